"""The vectorised path as named steps into one typed result."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import backbone_rows as R
from wattgpu_lite.hybrid.predict import steps as E
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.result import NUMERIC_COLUMNS, Status, StepResult, status_of

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def rows_for(n: int):
    llms = [wl.llm(LLAMA)] * n
    gpus = [wl.gpu(g) for g in ("A30", "H100 NVL", "T4", "L40S")][:n]
    return llms, gpus


def test_the_steps_in_order_give_exactly_what_predict_arrays_gives():
    model = HybridState.pretrained()
    llms, gpus = rows_for(4)
    rate, batch = np.array([0.2, np.nan, 0.05, np.nan]), np.array([np.nan, 32.0, np.nan, 8.0])
    out = E.predict_arrays(model, llms, gpus, 500, 300, rate, batch, 0.8)
    rows, cap = R.build(llms, gpus, 500, 300)
    back = E.backbone_step(model, rows, cap, rate, batch)
    odd = E.physics_only_rows(model, llms, rows)
    power, itl, floor = E.bounds_step(rows, back, E.correction_step(model, llms, gpus, rows,
                                                                     back, odd))  # fmt: skip
    half, _, _ = E.intervals_step(model, rows, back, E.basis_step(model, llms, gpus, odd), 0.8)
    values = E.bounded_intervals(rows, back, power, itl, floor, half)
    ok = out.ok
    # Llama-3.1-8B in bf16 does not fit a T4 with a KV cache
    assert list(ok) == [True, True, False, True]
    for q, (v, lo, hi) in values.items():
        np.testing.assert_array_equal(getattr(out, q)[ok], v[ok])
        np.testing.assert_array_equal(getattr(out, f"{q}_lo")[ok], lo[ok])
        np.testing.assert_array_equal(getattr(out, f"{q}_hi")[ok], hi[ok])
        assert np.isnan(getattr(out, q)[~ok]).all()
    assert np.all(out.itl_s[ok] >= out.itl_floor_s[ok])
    assert np.all(out.power_w[ok] <= out.replica_tdp_w[ok])


def test_the_result_is_frozen_and_its_status_an_enum():
    out = E.predict_arrays(HybridState.pretrained(), *rows_for(2), 15, 180, [0.1, 1e3], np.nan)
    assert isinstance(out, StepResult) and len(out) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.power_w = np.zeros(2)  # type: ignore[misc]
    assert list(out.status) == [Status.OK, Status.SATURATED]
    assert np.isnan(out.power_w[1]) and np.isfinite(out.capacity_qps[1])
    assert list(out.ok) == [True, False]


def test_status_priority_no_fit_over_batch_over_saturation():
    cap = np.array([0.5, 4.0, 4.0, 4.0])
    rate = np.array([9.0, np.nan, 9.0, 0.1])
    batch = np.array([np.nan, 8.0, np.nan, np.nan])
    got = status_of(cap, rate, batch, np.full(4, 1.0))
    assert list(got) == [Status.NO_FIT, Status.BATCH_ABOVE_KV, Status.SATURATED, Status.OK]
    assert (
        all(isinstance(s, Status) for s in got) and str(Status.NO_FIT) == "does not fit in memory"
    )


def test_each_status_says_what_to_pass_instead():
    args = ("m", "A30", 3.0, 64.0, 12.0, 1.5)
    assert Status.OK.message(*args) == "" and Status.INVALID.message(*args) == ""
    assert "capacity is about 1.5 req/s (12 sequences" in Status.SATURATED.message(*args)
    assert "pass batch <= 12" in Status.BATCH_ABOVE_KV.message(*args)
    assert "more memory" in Status.NO_FIT.message(*args)


def test_predict_and_predict_many_are_views_of_one_result():
    frame = pd.DataFrame({"llm": [LLAMA] * 2, "gpu": ["A30", "L40S"], "rate_qps": [0.2, np.nan],
                          "batch": [np.nan, 16.0]})  # fmt: skip
    many = wl.predict_many(frame)
    out = E.predict_arrays(HybridState.pretrained(), *rows_for(1), 15, 180, 0.2, np.nan)
    one = wl.predict(LLAMA, "A30", rate_qps=0.2)
    for q in ("power_w", "itl_s", "energy_per_token_j", "energy_per_token_j_hi"):
        assert many[q].iloc[0] == getattr(out, q)[0]
    assert one.power_w == out.power_w[0] and one.itl_s_interval.hi == out.itl_s_hi[0]
    assert set(NUMERIC_COLUMNS) <= set(many.columns) and list(many["status"]) == ["ok", "ok"]
