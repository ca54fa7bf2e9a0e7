"""Properties the shipped predictor holds for every catalog (LLM, GPU) pair.

Hypothesis draws pairs from the whole catalog (seeded); each draw checks a grid of loads at once:
rates 0.01–20 req/s, batches 1–512, contexts up to the model's limit, within the replica's capacity.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wattgpu_lite as wl
from wattgpu_lite.errors import CapacityError
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.result import StepResult
from wattgpu_lite.hybrid.predict.steps import predict_arrays

LLMS = list(wl.llms()["name"])
GPUS = list(wl.gpus()["name"])
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
pairs = st.tuples(st.sampled_from(LLMS), st.sampled_from(GPUS))


def grid(llm: str, gpu: str, t_in, t_out, rate, batch) -> StepResult:
    n = max(np.size(t_in), np.size(t_out), np.size(rate), np.size(batch))
    return predict_arrays(HybridState.pretrained(), [wl.llm(llm)] * n, [wl.gpu(gpu)] * n,
                          t_in, t_out=t_out, rate_qps=rate, batch=batch)  # fmt: skip


def ok(out: StepResult) -> np.ndarray:
    return out.status == "ok"


@SETTINGS
@given(pairs)
def test_itl_per_request_never_falls_with_batch(pair):
    out = grid(*pair, 200, 200, np.nan, np.arange(1.0, 513.0))
    itl = out.itl_s[ok(out)]
    assert np.all(np.diff(itl) >= -1e-12 * itl[:-1])


@SETTINGS
@given(pairs)
def test_itl_per_request_never_falls_with_context(pair):
    limit = wl.llm(pair[0]).context_length
    t_in = np.unique(np.geomspace(1, max(limit - 256, 1), 40).round())
    out = grid(*pair, t_in, 256, np.nan, 4.0)
    itl = out.itl_s[ok(out)]
    assert np.all(np.diff(itl) >= -1e-12 * itl[:-1])


@SETTINGS
@given(pairs)
def test_power_stays_between_idle_and_tdp_and_rises_with_the_rate(pair):
    out = grid(*pair, 15, 180, np.geomspace(0.01, 20, 60), np.nan)
    m = ok(out)
    power, tdp = out.power_w[m], wl.gpu(pair[1]).tdp_w
    assert np.all(power >= out.idle_power_w[m] * (1 - 1e-12)) and np.all(power <= 1.05 * tdp)
    assert np.all(np.diff(power) >= -1e-9 * tdp)


@SETTINGS
@given(pairs, st.sampled_from([0.8, 0.9]))
def test_values_are_finite_positive_and_inside_their_intervals(pair, level):
    out = grid(*pair, [15, 500, 2000], [180, 300, 500], [0.05, np.nan, 1.0], [np.nan, 16, np.nan])
    m = ok(out)
    for q in ("power_w", "itl_s", "time_per_token_s", "energy_per_token_j"):
        v, lo, hi = getattr(out, q)[m], getattr(out, f"{q}_lo")[m], getattr(out, f"{q}_hi")[m]
        assert np.all(np.isfinite(v) & (v > 0)) and np.all((lo <= v) & (v <= hi))


@pytest.mark.parametrize(
    ("llm", "gpu"),
    [("meta-llama/Llama-3.1-8B-Instruct", "L4"), ("Qwen/Qwen2.5-0.5B-Instruct", "B200")],
)
def test_a_rate_beyond_capacity_is_an_error_that_gives_the_capacity(llm, gpu):
    capacity = wl.predict(llm, gpu, rate_qps=0.01).capacity_qps
    assert wl.predict(llm, gpu, rate_qps=0.9 * capacity).power_w > 0
    with pytest.raises(CapacityError, match=f"{capacity:.3g} req/s"):
        wl.predict(llm, gpu, rate_qps=1.1 * capacity)
