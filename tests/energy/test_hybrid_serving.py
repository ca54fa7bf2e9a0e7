"""The physics backbone: hand-computed values and the trends physics fixes, for any constants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wattgpu_lite as wl
from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.energy.backbone.constants_fit import LOWER, UPPER, WITH_HOST

PAIRS = [(m, g) for m in ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct",
                          "google/gemma-3-27b-it", "openai-community/gpt2")
         for g in ("H100 NVL", "L4", "T4", "B200", "MI300X", "A100 SXM4 40GB")]  # fmt: skip
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
constants = st.builds(lambda xs: S.Constants(**dict(zip(WITH_HOST, xs, strict=True))), st.tuples(
    *(st.floats(max(LOWER[n], 1e-3 * UPPER[n]), UPPER[n]) for n in WITH_HOST)))  # fmt: skip


def rows_for(llm: str, gpu: str, t_in=15.0, t_out=180.0, n=1):
    rows, cap = R.build([wl.llm(llm)] * n, [wl.gpu(gpu)] * n, t_in, t_out)
    return rows, cap


def test_batch_one_decode_is_the_weight_read_plus_the_step_cost():
    """Llama-3.1-8B alone on an H100 NVL, 1 prompt and 1,000 generated tokens: each step reads the
    15.01 GB of streamed weights (its 0.53 B-parameter input table is gathered, one row a token;
    plus one prefill read spread over the 1,000 steps) and 131,072 B of KV cache per token of
    context (500.5 tokens on average), at η·3,940 GB/s, plus the step cost."""
    c = S.Constants(eta_bw=0.8, eta_flops=0.5, step_s=1e-3)
    rows, _ = rows_for("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", t_in=1.0, t_out=1000.0)
    step = S.step_time_s(rows, np.array([1.0]), c)[0]
    bytes_per_step = (8.030261e9 - 128_256 * 4096) * 2 * 1.001 + 131072 * 500.5
    assert step == pytest.approx(bytes_per_step / (0.8 * 3940e9) + 1e-3, rel=2e-3)


@SETTINGS
@given(st.sampled_from(PAIRS), constants)
def test_itl_never_falls_as_batch_or_context_grows(pair, c):
    rows, _ = rows_for(*pair, n=10)
    batch = np.geomspace(1, 512, 10)
    assert np.all(np.diff(S.step_time_s(rows, batch, c)) >= -1e-12)
    longer, _ = rows_for(*pair, t_in=4000.0, n=10)
    assert np.all(S.step_time_s(longer, batch, c) >= S.step_time_s(rows, batch, c))


@SETTINGS
@given(st.sampled_from(PAIRS), constants)
def test_power_stays_between_idle_and_tdp_and_rises_with_load(pair, c):
    rows, cap = rows_for(*pair, n=12)
    rate = np.geomspace(0.01, 20, 12)
    power = S.at_rate(rows, rate, np.maximum(cap, 1), c)["power_w"]
    idle, tdp = S.idle_power_w(rows, c), rows.tdp_w
    assert np.all(power >= idle - 1e-9) and np.all(power <= tdp + 1e-9)
    assert np.all(np.diff(power) >= -1e-6 * tdp[0])


def test_in_flight_obeys_littles_law_below_capacity():
    c = S.Constants()
    rows, cap = rows_for("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", n=3)
    rate = np.array([0.05, 1.0, 10.0])
    load = S.in_flight_at_rate(rows, rate, cap, c)
    itl = S.step_time_s(rows, 1.0 + load, c)
    assert np.allclose(load, rate * rows.t_out * itl, rtol=1e-6)


def test_beyond_capacity_the_load_sits_at_the_cache_limit():
    c = S.Constants()
    rows, cap = rows_for("meta-llama/Llama-3.1-8B-Instruct", "L4", n=2)
    capacity = S.capacity_qps(rows, cap, c)
    load = S.in_flight_at_rate(rows, np.array([0.5, 2.0]) * capacity, cap, c)
    assert load[0] < cap[0] and load[1] == cap[1]


@SETTINGS
@given(st.sampled_from(PAIRS), constants)
def test_batch_power_never_falls_as_the_batch_grows(pair, c):
    rows, _ = rows_for(*pair, n=16)
    power = S.busy_power_w(rows, np.geomspace(1, 512, 16), c)
    assert np.all(np.diff(power) >= -1e-9) and np.all(power <= rows.tdp_w + 1e-9)


def test_at_the_capacity_rate_the_cache_is_exactly_full():
    """Little's law at capacity: λ_max · T_out · s(cap) = cap sequences in flight."""
    c = S.Constants()
    rows, cap = rows_for("meta-llama/Llama-3.1-8B-Instruct", "L4", n=1)
    capacity = S.capacity_qps(rows, cap, c)
    assert capacity * rows.t_out * S.step_time_s(rows, cap, c) == pytest.approx(cap, rel=1e-9)
    assert S.in_flight_at_rate(rows, 0.999 * capacity, cap, c)[0] == pytest.approx(cap[0], rel=0.02)
