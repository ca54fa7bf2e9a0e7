"""The vectorised path as named steps into one typed result."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.hybrid.predict import interval_steps, one_row
from wattgpu_lite.hybrid.predict import steps as E
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.result import (
    NUMERIC_COLUMNS,
    Backbone,
    Status,
    StepResult,
    status_of,
)

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def rows_for(n: int):
    llms = [wl.llm(LLAMA)] * n
    gpus = [wl.gpu(g) for g in ("A30", "H100 NVL", "T4", "L40S")][:n]
    return llms, gpus


def test_the_steps_in_order_give_exactly_what_predict_arrays_gives():
    model = HybridState.pretrained()
    llms, gpus = rows_for(4)
    rate, batch = np.array([0.2, np.nan, 0.05, np.nan]), np.array([np.nan, 32.0, np.nan, 8.0])
    out = E.predict_arrays(model, llms, gpus, 500, t_out=300, rate_qps=rate, batch=batch, level=0.8)
    rows, cap = R.build(llms, gpus, 500, 300)
    backbone_result = E.backbone_step(model, rows, cap, rate, batch=batch)
    physics_only = E.physics_only_rows(model, llms, rows)
    factor = E.correction_step(
        model, llms, gpus, rows, backbone_result=backbone_result, physics_only=physics_only
    )
    power, itl, floor = E.bounds_step(rows, backbone_result, factor)
    basis = interval_steps.basis_step(model, llms, gpus, physics_only)
    cells = interval_steps.cell_step(
        model, llms, gpus, rows, backbone_result=backbone_result, basis=basis
    )
    widths, _, _ = interval_steps.intervals_step(
        model, rows, backbone_result, basis, level=0.8, cells=cells
    )
    values = interval_steps.bounded_intervals(
        rows, backbone_result, power, itl, floor=floor, widths=widths
    )
    ok = out.status == Status.OK
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
    llms, gpus = rows_for(2)
    out = E.predict_arrays(
        HybridState.pretrained(), llms, gpus, 15, t_out=180, rate_qps=[0.1, 1e3], batch=np.nan
    )
    assert isinstance(out, StepResult) and len(out) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.power_w = np.zeros(2)  # type: ignore[misc]
    assert list(out.status) == [Status.OK, Status.SATURATED]
    assert np.isnan(out.power_w[1]) and np.isfinite(out.capacity_qps[1])
    assert list(out.status == Status.OK) == [True, False]


def test_status_priority_no_fit_over_batch_over_saturation():
    cap = np.array([0.5, 4.0, 4.0, 4.0])
    rate = np.array([9.0, np.nan, 9.0, 0.1])
    batch = np.array([np.nan, 8.0, np.nan, np.nan])
    got = status_of(cap, rate, batch, np.full(4, 1.0))
    assert list(got) == [Status.NO_FIT, Status.BATCH_ABOVE_KV, Status.SATURATED, Status.OK]
    assert (
        all(isinstance(s, Status) for s in got) and str(Status.NO_FIT) == "does not fit in memory"
    )


def test_a_replica_whose_weights_do_not_fit_serves_nothing():
    """Its capacity is 0 q/s (what it serves), never the capacity of the stand-in single
    sequence its physics is evaluated at; a saturated row keeps its capacity (it says why), and
    a replica that holds exactly one sequence serves one at a time."""
    rows = pd.DataFrame({"llm": ["meta-llama/Llama-3.1-70B-Instruct", LLAMA, LLAMA, LLAMA],
                         "gpu": ["T4", "H100 SXM", "H100 SXM", "H100 SXM"],
                         "rate_qps": [0.1, 0.1, 500.0, 0.05], "t_in": 100, "t_out": 100,
                         "max_num_seqs": [256, 256, 256, 1]})  # fmt: skip
    out = wl.predict_many(rows)
    assert list(out["status"].astype(str)) == [
        str(Status.NO_FIT),
        "ok",
        str(Status.SATURATED),
        "ok",
    ]
    assert out["capacity_qps"][0] == 0.0 and out["max_batch"][0] == 0.0
    assert 0 < out["capacity_qps"][2] == out["capacity_qps"][1] < 500
    assert out["max_batch"][3] == 1 and 0.05 < out["capacity_qps"][3] < out["capacity_qps"][1]


def test_each_status_says_what_to_pass_instead():
    args, kv = ("m", "A30", 3.0, 64.0), {"max_batch": 12.0, "capacity_qps": 1.5}
    assert Status.OK.message(*args, **kv) == "" and Status.INVALID.message(*args, **kv) == ""
    assert "capacity is about 1.5 req/s (12 sequences" in Status.SATURATED.message(*args, **kv)
    assert "pass batch <= 12" in Status.BATCH_ABOVE_KV.message(*args, **kv)
    assert "more memory" in Status.NO_FIT.message(*args, **kv)


def test_predict_and_predict_many_are_views_of_one_result():
    frame = pd.DataFrame({"llm": [LLAMA] * 2, "gpu": ["A30", "L40S"], "rate_qps": [0.2, np.nan],
                          "batch": [np.nan, 16.0]})  # fmt: skip
    many = wl.predict_many(frame)
    llms, gpus = rows_for(1)
    out = E.predict_arrays(
        HybridState.pretrained(), llms, gpus, 15, t_out=180, rate_qps=0.2, batch=np.nan
    )
    one = wl.predict(LLAMA, "A30", rate_qps=0.2)
    for q in ("power_w", "itl_s", "energy_per_token_j", "energy_per_token_j_hi"):
        assert many[q].iloc[0] == getattr(out, q)[0]
    assert one.power_w == out.power_w[0] and one.itl_s_interval.hi == out.itl_s_hi[0]
    assert set(NUMERIC_COLUMNS) <= set(many.columns) and list(many["status"]) == ["ok", "ok"]


ONE_ROW_CASES = [
    (LLAMA, "A30", {}, 0.1, np.nan),
    (LLAMA, "H100 NVL", {}, np.nan, 24.0),
    ("Qwen/Qwen3-30B-A3B", "H100 SXM", {"num_gpus": wl.Parallel(ep=4)}, 1.5, np.nan),
    ("Qwen/Qwen3-30B-A3B", "B200", {"num_gpus": wl.Parallel(tp=2)}, np.nan, 3.0),
    ("openai/gpt-oss-20b", "H200 SXM", {}, 0.02, np.nan),
    ("google/gemma-3-27b-it", "MI300X", {"num_gpus": 2}, np.nan, 1.0),
]


def assert_same_backbone(one: Backbone, general: Backbone) -> None:
    """Every field of two Backbone records equal bit for bit (NaN equal to NaN)."""
    for f in dataclasses.fields(Backbone):
        a, b = getattr(one, f.name), getattr(general, f.name)
        if isinstance(a, dict):
            assert list(a) == list(b)
            for key in a:
                np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        else:
            np.testing.assert_array_equal(a, b, err_msg=f.name)


@pytest.mark.parametrize(("llm", "gpu", "deploy", "rate", "batch"), ONE_ROW_CASES)
def test_one_row_folds_its_physics_into_one_call_with_the_same_values(llm, gpu, deploy, rate,
                                                                      batch):  # fmt: skip
    model = HybridState.pretrained()
    rows, cap = R.build([wl.llm(llm)], [wl.gpu(gpu)], 500, 200, **deploy)
    rate, batch = np.array([rate]), np.array([batch])
    one = one_row.one_row_backbone(model, rows, cap, rate, batch=batch)
    assert one is not None
    assert_same_backbone(one, E.rows_backbone(model, rows, cap, rate, batch=batch))
    assert_same_backbone(E.backbone_step(model, rows, cap, rate, batch=batch), one)


def test_one_row_equals_the_general_path_on_a_grid():
    """The one-row path (its configuration's arguments kept, :mod:`one_row`; a dense row's load
    solved on floats) gives every Backbone field of the general path, bit for bit, over dense,
    MoE, MXFP4 and sliding-window models, one GPU and tensor or expert parallel layouts, short
    and long contexts, light and heavy loads (each configuration's setup built at its first
    case, then kept for the others)."""
    model = HybridState.pretrained()
    llms = (
        LLAMA,
        "Qwen/Qwen3-30B-A3B",
        "openai/gpt-oss-20b",
        "google/gemma-3-27b-it",
        "microsoft/phi-4",
    )
    layouts = ({}, {"num_gpus": wl.Parallel(tp=2)}, {"num_gpus": wl.Parallel(ep=2)})
    loads = ((0.02, np.nan), (0.6, np.nan), (np.nan, 1.0), (np.nan, 7.5))
    compared = 0
    for llm, gpu, deploy, (t_in, t_out), (rate, batch) in itertools.product(
            llms, ("A30", "H100 SXM", "B200", "MI300X"), layouts, ((15, 180), (900, 40), (3000, 2000)),
            loads):  # fmt: skip
        if deploy and deploy["num_gpus"].ep > 1 and not wl.llm(llm).is_moe:
            continue
        rows, cap = R.build([wl.llm(llm)], [wl.gpu(gpu)], t_in, t_out, **deploy)
        rate_, batch_ = np.array([rate]), np.array([batch])
        one = one_row.one_row_backbone(model, rows, cap, rate_, batch=batch_)
        if one is None:  # not OK: the general path answers (test below)
            continue
        assert_same_backbone(one, E.rows_backbone(model, rows, cap, rate_, batch=batch_))
        compared += 1
    assert compared > 150


def test_a_single_predict_evaluates_the_physics_twice(monkeypatch):
    from wattgpu_lite.energy import _step_generated, physical

    wl.predict(LLAMA, "A30", rate_qps=0.1)  # warm: catalogs and model loaded
    seen = []
    calls = ((physical, "evaluate_symbols"), (physical, "evaluate_at_load"),
             (_step_generated, "coefficients"))  # fmt: skip
    for module, name in calls:
        original = getattr(module, name)

        def counted(*args, _original=original, _name=name, **kwargs):
            seen.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    for load in ({"rate_qps": 0.12}, {"batch": 7}):
        seen.clear()
        wl.predict(LLAMA, "A30", t_in=321, t_out=123, **load)
        assert sorted(seen) == ["coefficients", "evaluate_at_load"], load  # the rest: kept


def test_one_row_that_is_not_ok_takes_the_general_path():
    model = HybridState.pretrained()
    rows, cap = R.build([wl.llm(LLAMA)], [wl.gpu("A30")], 500, 200)
    saturated = one_row.one_row_backbone(
        model, rows, cap, np.array([1e3]), batch=np.array([np.nan])
    )
    above = one_row.one_row_backbone(model, rows, cap, np.array([np.nan]), batch=np.array([1e4]))
    assert saturated is None and above is None
    backbone_result = E.backbone_step(model, rows, cap, np.array([1e3]), batch=np.array([np.nan]))
    assert list(backbone_result.status) == [Status.SATURATED]


def test_status_ok_is_the_comparison_with_ok():
    from wattgpu_lite.hybrid.predict.result import _MEMBERS, Status, status_ok

    status = _MEMBERS[np.array([0, 1, 2, 0, 3, 4])]
    assert status_ok(status).tolist() == (status == Status.OK).tolist()
    assert status_ok(status).tolist() == [s is Status.OK for s in status]


def test_single_predicts_are_the_rows_of_predict_many_bit_for_bit():
    """A single predict (its one-row paths: the physics on floats, the forest's one row, the
    e-folds summed on floats) gives each value and interval end its row among many gives, at
    rates and batches, short and long contexts (widened, one-sided) and on GPUs in and beyond
    the training range."""
    rng = np.random.default_rng(12)
    n = 100
    llms = rng.choice([LLAMA, "mistralai/Mistral-7B-Instruct-v0.3", "google/gemma-3-12b-it"], n)
    at_rate = rng.random(n) < 0.5
    frame = pd.DataFrame({"llm": llms, "gpu": rng.choice(["A30", "L40S", "H100 SXM", "L4"], n),
                          "rate_qps": np.where(at_rate, rng.uniform(0.01, 0.4, n), np.nan),
                          "batch": np.where(at_rate, np.nan, rng.integers(1, 24, n)),
                          "t_in": rng.choice([15, 500, 3000, 9000], n), "t_out": rng.integers(10, 900, n)})  # fmt: skip
    many = wl.predict_many(frame)
    compared = 0
    for i, row in frame.iterrows():
        if many["status"].iloc[i] != "ok":
            continue
        load = {"rate_qps": row.rate_qps} if at_rate[i] else {"batch": row.batch}
        one = wl.predict(row.llm, row.gpu, t_in=int(row.t_in), t_out=int(row.t_out), **load)
        for q in ("power_w", "itl_s", "time_per_token_s", "energy_per_token_j"):
            interval = getattr(one, f"{q}_interval")
            got = (getattr(one, q), interval.lo, interval.hi)
            assert got == tuple(many[f"{q}{s}"].iloc[i] for s in ("", "_lo", "_hi")), (i, q)
        compared += 1
    assert compared > 50, compared


def test_one_rows_steps_and_busy_power_on_floats_are_the_arrays():
    """energy.backbone.one_row_solves.steps_and_busy (a single predict's s(cap), s and busy power from its
    floats) gives the arrays' step_and_power_from and steps_and_busy_from, and None where a step
    is 0 (numpy's inf there: the arrays' path)."""
    from wattgpu_lite.energy import backbone as S
    from wattgpu_lite.energy.backbone import one_row_solves

    c = HybridState.pretrained().constants
    rng = np.random.default_rng(13)
    for gpu in ("A30", "H100 SXM", "L4"):
        rows, _ = R.build([wl.llm(LLAMA)], [wl.gpu(gpu)], 500, 200)
        for _ in range(50):
            loads = rng.uniform(1, 300, 5)
            found = (rng.uniform(1e-4, 1.0, 5), rng.uniform(1.0, 500.0, 5))
            p_idle = S.idle_power_w(rows, c)
            step, power = S.step_and_power_from(rows, loads, found, c)  # its own idle power
            want = (step[:1], *S.steps_and_busy_from(step[None, 1:], power[None, 1:]))
            got = one_row_solves.steps_and_busy(rows, loads, found, c, p_idle=p_idle)
            for a, b in zip(got, want, strict=True):
                assert a.shape == (1,) and np.array_equal(a, b)
    zero = dataclasses.replace(c, step_s=0.0, seq_s=0.0)
    none = (np.zeros(5), np.ones(5))
    assert one_row_solves.steps_and_busy(rows, np.ones(5), none, zero, p_idle=p_idle) is None
