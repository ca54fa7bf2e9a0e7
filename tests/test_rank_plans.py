"""Ranking with the hybrid: it agrees with ``wl.predict``, counts replicas, and says why not."""

from __future__ import annotations

import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import NoFeasibleGPUError
from wattgpu_lite.selection.plan import max_rate_under_sla

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.mark.parametrize(
    ("gpu", "load"),
    [("A30", {"rate_qps": 0.05}), ("H100 NVL", {"rate_qps": 0.1}), ("L40S", {"batch": 16})],
)
def test_rank_and_predict_give_the_same_answer_for_the_same_load(gpu, load):
    t = wl.rank_gpus(LLAMA, itl_sla_ms=1e4, candidates=[gpu], t_in=300, t_out=200, **load)
    p = wl.predict(LLAMA, gpu, t_in=300, t_out=200, **load)
    row = t.iloc[0]
    assert row["replicas"] == 1
    assert row["power_w"] == pytest.approx(p.power_w, rel=1e-12)
    assert row["itl_ms"] == pytest.approx(p.itl_s * 1e3, rel=1e-12)
    assert row["energy_per_1k_tokens_j"] == pytest.approx(p.energy_per_token_j * 1e3, rel=1e-12)


def test_a_rate_one_replica_cannot_serve_gets_more_replicas():
    sla = 40.0
    r_max = max_rate_under_sla(wl.llm(LLAMA), [wl.gpu("A30")], 15, 180, sla / 1e3, 0.8)[0]
    assert r_max > 0
    t = wl.rank_gpus(LLAMA, rate_qps=3.5 * r_max, itl_sla_ms=sla, candidates=["A30"])
    row = t.iloc[0]
    assert row["replicas"] == 4 and row["meets_sla"] and row["itl_ms"] <= sla
    # every replica is held: the plan's energy per token is 4 × one replica's at λ/4
    one = wl.predict(LLAMA, "A30", rate_qps=3.5 * r_max / 4)
    assert row["energy_per_1k_tokens_j"] == pytest.approx(4 * one.energy_per_token_j * 1e3)


def test_the_sla_bisection_stops_at_the_sla():
    sla_s = 0.030
    r = max_rate_under_sla(wl.llm(LLAMA), [wl.gpu("A100 SXM4 40GB")], 15, 180, sla_s, 0.8)[0]
    just_below = wl.predict(LLAMA, "A100 SXM4 40GB", rate_qps=r * 0.999).itl_s
    just_above = wl.predict(LLAMA, "A100 SXM4 40GB", rate_qps=r * 1.01).itl_s
    assert just_below <= sla_s < just_above


def test_why_not_names_memory_and_a_missed_sla():
    t = wl.rank_gpus("google/gemma-3-27b-it", rate_qps=0.5, itl_sla_ms=12,
                     candidates=["T4", "H100 NVL"]).set_index("gpu")  # fmt: skip
    assert t.loc["T4", "why_not"].startswith(
        "does not fit in memory: needs 54.1 GB (bf16 weights 54.0"
    )
    assert "> 90 % of 16 GB = 14.4 GB" in t.loc["T4", "why_not"] and not t.loc["T4", "fits"]
    assert "at the lightest load > SLA 12 ms" in t.loc["H100 NVL", "why_not"]
    assert pd.isna(t.loc["T4", "rank"]) and pd.isna(t.loc["H100 NVL", "rank"])
    assert t.loc["H100 NVL", "itl_ms"] > 12  # a plan that misses still shows its figures


def test_no_candidate_holds_the_model():
    with pytest.raises(NoFeasibleGPUError, match="T4"):
        wl.rank_gpus("google/gemma-3-27b-it", rate_qps=0.5, itl_sla_ms=50, candidates=["T4"])
