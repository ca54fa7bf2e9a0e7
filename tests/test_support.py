"""Where the learned correction applies: inside the training GPUs' specs AND the training runs'
context (hybrid.engine.outside_support; data/hybrid/candidates.json, the 2026-12-02 round)."""

from __future__ import annotations

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import backbone_runs as T
from wattgpu_lite.hybrid import engine as E
from wattgpu_lite.hybrid import external_report as R
from wattgpu_lite.hybrid import protocol as PR
from wattgpu_lite.hybrid.model import HybridModel
from wattgpu_lite.runs import measurements

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
QUANTITIES = ("itl_s", "throughput_tokens_per_s", "power_w", "energy_per_token_j")


def test_the_shipped_context_range_is_the_runs_measured_tokens():
    runs = measurements.load(dense_only=True)
    context = runs["prompt_tokens"] + runs["generated_tokens"]
    lo, hi = HybridModel.pretrained().ranges["context_tokens"]
    assert (lo, hi) == pytest.approx((context.min(), context.max()), rel=1e-9)
    assert 19 < lo < 20 and hi == 275.0  # SQuAD prompts; generation capped at 256


@pytest.mark.parametrize(("t_in", "t_out", "corrected"), [(15, 180, True), (100, 175, True),
                                                          (100, 176, False), (1500, 400, False)])  # fmt: skip
def test_the_correction_applies_only_inside_the_training_context(t_in, t_out, corrected):
    p = wl.predict(LLAMA, "L40S", batch=8, t_in=t_in, t_out=t_out)
    bare = wl.predict(LLAMA, "L40S", batch=8, t_in=t_in, t_out=t_out, correction=False)
    assert (p.power_w_interval.basis != "physics") == corrected
    if corrected:
        assert p.itl_s != pytest.approx(bare.itl_s, rel=1e-9)
    else:
        assert (p.itl_s, p.power_w) == pytest.approx((bare.itl_s, bare.power_w), rel=1e-12)
        assert any("no training run had a context like this one" in n for n in p.notes)


def test_explain_says_why_a_long_context_gets_the_backbone():
    x = wl.explain(LLAMA, "L40S", rate_qps=0.5, t_in=1500, t_out=400)
    why = x.corrections["itl"].why
    assert "a context of 1900 tokens, outside the training runs' 19–275" in why
    assert x.corrections["itl"].final == pytest.approx(x.corrections["itl"].backbone, rel=1e-12)


def test_support_refuses_an_input_it_does_not_read():
    with pytest.raises(ValueError, match="outside_support reads"):
        E.outside_support(HybridModel.pretrained(), {"params_b": np.array([8.0])})


@pytest.mark.parametrize("kind", ["logo", "lolo", "llm5", "pair5"])
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


def test_outside_training_the_correction_is_never_worse_than_the_backbone_alone():
    """Issue 17's goal, per external GPU outside training and per quantity: MdAPE with the
    correction <= MdAPE of the backbone alone (equal where the correction does not apply)."""
    rep = R.per_gpu()
    new = rep[~rep["in_training"].astype(bool) & rep["quantity"].isin(QUANTITIES)]
    assert new["gpu"].nunique() >= 5 and set(new["quantity"]) == set(QUANTITIES)
    worse = new[new["mdape_hybrid"] > new["mdape_backbone"] + 1e-9]
    assert worse.empty, worse[["gpu", "quantity", "mdape_hybrid", "mdape_backbone"]].to_string()
