"""Ranking with the hybrid: it agrees with ``wl.predict``, counts replicas, and says why not."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import NoFeasibleGPUError
from wattgpu_lite.hybrid.predict import chain
from wattgpu_lite.specs.layout import Parallel

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def max_rate_under_sla(gpu: str, sla_s: float) -> float:
    """The largest rate [req/s] one GPU serves LLAMA at (15, 180) tokens within ``sla_s``."""
    rep = chain.replicas(wl.llm(LLAMA), [wl.gpu(gpu)], [Parallel(tp=1)], 15, t_out=180)
    return float(rep.max_rate_under_sla(sla_s)[0][0])


@pytest.mark.parametrize(
    ("gpu", "load"),
    [("A30", {"rate_qps": 0.05}), ("H100 NVL", {"rate_qps": 0.1}), ("L40S", {"batch": 16})],
)
def test_rank_and_predict_give_the_same_answer_for_the_same_load(gpu, load):
    t = wl.rank_gpus(LLAMA, itl_sla_ms=1e4, candidates=[gpu], t_in=300, t_out=200,
                     gpu_counts=(1,), **load)  # fmt: skip
    p = wl.predict(LLAMA, gpu, t_in=300, t_out=200, **load)
    row = t.iloc[0]
    assert row["replicas"] == 1
    assert row["power_w"] == pytest.approx(p.power_w, rel=1e-12)
    assert row["itl_ms"] == pytest.approx(p.itl_s * 1e3, rel=1e-12)
    assert row["energy_per_1k_tokens_j"] == pytest.approx(p.energy_per_token_j * 1e3, rel=1e-12)


def test_a_rate_one_replica_cannot_serve_gets_more_replicas():
    sla = 40.0
    r_max = max_rate_under_sla("A30", sla / 1e3)
    assert r_max > 0
    t = wl.rank_gpus(LLAMA, rate_qps=3.5 * r_max, itl_sla_ms=sla, candidates=["A30"],
                     gpu_counts=(1,))  # fmt: skip
    row = t.iloc[0]
    assert row["replicas"] == 4 and row["meets_sla"] and row["itl_ms"] <= sla
    # every replica is held: the plan's energy per token is 4 P̄(λ/4) / (λ T_out)
    one = wl.predict(LLAMA, "A30", rate_qps=3.5 * r_max / 4)
    by_hand = 4 * one.power_w / (3.5 * r_max * 180)
    assert row["energy_per_1k_tokens_j"] == pytest.approx(by_hand * 1e3)
    assert row["total_power_w"] == pytest.approx(4 * one.power_w)


def test_the_sla_bisection_stops_at_the_sla():
    sla_s = 0.030
    r = max_rate_under_sla("A100 SXM4 40GB", sla_s)
    just_below = wl.predict(LLAMA, "A100 SXM4 40GB", rate_qps=r * 0.999).itl_s
    just_above = wl.predict(LLAMA, "A100 SXM4 40GB", rate_qps=r * 1.01).itl_s
    assert just_below <= sla_s < just_above


def test_why_not_names_memory_and_a_missed_sla():
    t = wl.rank_gpus("google/gemma-3-27b-it", rate_qps=0.5, itl_sla_ms=12,
                     candidates=["T4", "H100 NVL"], gpu_counts=(1,)).set_index("gpu")  # fmt: skip
    assert t.loc["T4", "why_not"].startswith(
        "does not fit in memory: needs 54.1 GB (bf16 weights 54.0"
    )
    assert "> 90 % of 16 GB = 14.4 GB" in t.loc["T4", "why_not"] and not t.loc["T4", "fits"]
    assert "at the lightest load > SLA 12 ms" in t.loc["H100 NVL", "why_not"]
    assert pd.isna(t.loc["T4", "rank"]) and pd.isna(t.loc["H100 NVL", "rank"])
    assert t.loc["H100 NVL", "itl_ms"] > 12  # a plan that misses still shows its figures


def test_no_candidate_holds_the_model():
    with pytest.raises(NoFeasibleGPUError, match="T4"):
        wl.rank_gpus("google/gemma-3-27b-it", rate_qps=0.5, itl_sla_ms=50, candidates=["T4"],
                     gpu_counts=(1,))  # fmt: skip


def test_rank_chooses_a_gpu_count_for_a_model_one_gpu_cannot_hold():
    """gpt-oss-120b (MXFP4, 65 GB) at 20 req/s: one L40S cannot hold it; the pick is a plan that
    meets the SLA, and two GPUs per replica beat eight H100s on energy."""
    t = wl.rank_gpus("openai/gpt-oss-120b", rate_qps=20, itl_sla_ms=50, t_in=1000, t_out=500,
                     candidates=["H100 SXM", "L40S"], gpu_counts=(1, 2, 8))  # fmt: skip
    plans = t[t["ep"] == 1].set_index(["gpu", "num_gpus"])  # tensor parallel (MoE: also EP rows)
    assert plans.loc[("L40S", 1), "why_not"].startswith("does not fit in memory")
    best = t.iloc[0]
    assert best["rank"] == 1 and best["meets_sla"] and best["itl_ms"] <= 50
    assert (
        plans.loc[("H100 SXM", 2), "energy_per_1k_tokens_j"]
        < plans.loc[("H100 SXM", 8), "energy_per_1k_tokens_j"]
    )
    ok = t[t["meets_sla"]]  # energy per 1,000 tokens = the plan's power / (λ · T_out) · 1,000
    assert np.allclose(ok["total_power_w"] / (20 * 500) * 1e3, ok["energy_per_1k_tokens_j"])


def test_a_gpu_count_that_does_not_split_the_heads_is_refused_by_name():
    t = wl.rank_gpus(LLAMA, rate_qps=1, itl_sla_ms=50, candidates=["H100 SXM"], gpu_counts=(1, 3))
    three = t.set_index("num_gpus").loc[3]
    assert "must divide 32" in three["why_not"] and not three["meets_sla"]
