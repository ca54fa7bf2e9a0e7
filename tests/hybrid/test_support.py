"""Where the learned correction applies: inside the training GPUs' specs (else the backbone alone),
and beyond the training runs' context only where it raises the answer (hybrid.predict.intervals.beyond_context;
data/hybrid/candidates.json, the 2026-12-02 round)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wattgpu_lite as wl
from wattgpu_lite.energy.backbone import training_runs as T
from wattgpu_lite.hybrid.fit import protocol as PR
from wattgpu_lite.hybrid.predict import intervals as E
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.report import external_per_gpu as R
from wattgpu_lite.runs import measurements

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
QUANTITIES = ("itl_s", "throughput_tokens_per_s", "power_w", "energy_per_token_j")


def test_the_shipped_context_range_is_the_runs_measured_tokens():
    runs = measurements.load(dense_only=True)
    context = runs["prompt_tokens"] + runs["generated_tokens"]
    lo, hi = HybridState.pretrained().ranges["context_tokens"]
    assert (lo, hi) == pytest.approx((context.min(), context.max()), rel=1e-9)
    assert 19 < lo < 20 and hi == 275.0  # SQuAD prompts; generation capped at 256


@pytest.mark.parametrize(("t_in", "t_out", "inside"), [(15, 180, True), (100, 175, True),
                                                       (100, 176, False), (1500, 400, False)])  # fmt: skip
def test_beyond_the_training_context_the_correction_only_raises_the_answer(t_in, t_out, inside):
    p = wl.predict(LLAMA, "A30", batch=8, t_in=t_in, t_out=t_out)
    bare = wl.predict(LLAMA, "A30", batch=8, t_in=t_in, t_out=t_out, correction=False)
    assert p.power_w_interval.basis == "cv"  # the learned basis either way
    # the shipped factors on this pair: power x1.125 (kept everywhere), ITL x0.917 (kept inside)
    assert p.power_w / bare.power_w == pytest.approx(1.125, abs=0.01)
    if inside:
        assert p.itl_s / bare.itl_s == pytest.approx(0.917, abs=0.005)
    else:
        assert p.itl_s == pytest.approx(bare.itl_s, rel=1e-12)
        assert any("kept only where it raises the answer" in n for n in p.notes)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.sampled_from(["L4", "A30", "L40S", "H100 NVL", "H100 SXM", "A100 SXM4 40GB"]),
       st.integers(1, 64), st.integers(16, 400))  # fmt: skip
def test_itl_never_falls_as_the_context_crosses_the_training_range(gpu, batch, t_out):
    """Around 275 tokens of context: a correction that stopped at the range end would drop a
    factor above 1 to 1 and let the ITL fall; the one-sided rule keeps it non-decreasing."""
    t_in = np.arange(1.0, 600.0, 7.0)
    n = len(t_in)
    frame = pd.DataFrame({"llm": [LLAMA] * n, "gpu": [gpu] * n, "batch": float(batch),
                          "t_in": t_in.astype(int), "t_out": t_out})  # fmt: skip
    out = wl.predict_many(frame)
    itl = out["itl_s"].to_numpy()[out["status"].to_numpy() == "ok"]
    assert np.all(np.diff(itl) >= -1e-12 * itl[:-1])


def test_explain_says_the_correction_is_one_sided_at_a_long_context():
    x = wl.explain(LLAMA, "A30", rate_qps=0.5, t_in=1500, t_out=400)
    why = x.corrections["itl"].why
    assert "a context of 1900 tokens is longer than any training run's (19–275)" in why
    assert x.corrections["itl"].final == pytest.approx(x.corrections["itl"].backbone, rel=1e-12)
    assert x.corrections["power"].factor > 1.05


def test_support_is_the_gpu_specs_and_the_context_is_apart():
    assert E.SUPPORT == ("bandwidth_gbs", "fp16_tflops") and E.CONTEXT == "context_tokens"
    f = E.one_sided({"itl": np.array([0.8, 1.3]), "power": np.array([0.9, 0.9])},
                    np.array([True, True]))  # fmt: skip
    assert list(f["itl"]) == [1.0, 1.3] and list(f["power"]) == [1.0, 1.0]


@pytest.mark.parametrize("kind", ["logo", "lolo", "llm5", "cv"])
def test_the_context_rule_removes_no_watt_counts_row_from_any_fold(kind):
    """The protocol needs no context rule of its own: each run is asked at the designed 195
    tokens, inside every training fold's measured context range."""
    ts = T.watt_counts()
    runs = measurements.load(dense_only=True)
    assert list(runs["gpu"]) == list(ts.frame["gpu"]) and list(runs["llm"]) == list(ts.frame["llm"])
    context = (runs["prompt_tokens"] + runs["generated_tokens"]).to_numpy(dtype=float)
    asked = ts.rows.t_in + ts.rows.t_out
    assert set(asked) == {195.0}
    for _, test in PR.folds(ts, kind):
        assert context[~test].min() <= 195.0 <= context[~test].max()


def test_outside_training_the_correction_costs_at_most_a_point_against_the_backbone():
    """Per external GPU outside training and per quantity: MdAPE with the correction at most
    one percentage point above the backbone alone's (equal where it does not apply). The
    backbone's constants are fitted on these rows and the correction never saw them, so it may
    cost a little (H100 SXM throughput: 32.04 % against 31.19 %), never much."""
    rep = R.per_gpu()
    new = rep[~rep["in_training"].astype(bool) & rep["quantity"].isin(QUANTITIES)]
    assert new["gpu"].nunique() >= 5 and set(new["quantity"]) == set(QUANTITIES)
    worse = new[new["mdape_hybrid"] > new["mdape_backbone"] + 1.0]
    assert worse.empty, worse[["gpu", "quantity", "mdape_hybrid", "mdape_backbone"]].to_string()
