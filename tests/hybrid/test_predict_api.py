"""``wl.predict`` / ``wl.predict_many``: typed results, one answer per question, honest bases."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import CapacityError, InvalidInputError, SpecError
from wattgpu_lite.hybrid.predict.prediction import Prediction
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture(scope="module")
def p() -> Prediction:
    return wl.predict(LLAMA, "H100 NVL", rate_qps=0.1)


def test_prediction_is_a_frozen_typed_record_echoing_its_inputs(p):
    assert isinstance(p, Prediction)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.power_w = 1.0  # type: ignore[misc]
    assert (p.inputs.t_in, p.inputs.t_out) == (DEFAULT_T_IN, DEFAULT_T_OUT)
    assert p.inputs.rate_qps == 0.1 and p.inputs.batch is None and p.inputs.level == 0.8
    assert p.scenario == "server_high"  # 0.1 req/s is nearer 0.33 than 0.017 in log rate


def test_json_has_a_schema_version_and_no_nan(p):
    data = json.loads(p.to_json())
    assert data["schema_version"] == 1 and data["inputs"]["t_out"] == DEFAULT_T_OUT
    assert data["power_w_interval"]["basis"] == "cv"  # a measured LLM on a measured GPU
    # a missing value is null, as in EnergyEstimate's JSON (wattgpu_lite.jsonio): never NaN text
    missing = json.loads(dataclasses.replace(p, power_w=math.nan).to_json())
    assert missing["power_w"] is None
    with pytest.raises(InvalidInputError, match="'itl_s' is inf"):  # infinity names its field
        dataclasses.replace(p, itl_s=math.inf).to_json()


def test_intervals_bracket_the_values_and_widen_with_the_level(p):
    wider = wl.predict(LLAMA, "H100 NVL", rate_qps=0.1, level=0.95)
    for q, v, lo, hi in p.rows():
        assert lo <= v <= hi
        w = getattr(wider, f"{q}_interval")
        assert w.lo <= lo and w.hi >= hi


def test_energy_per_token_is_power_times_time_per_token_at_a_rate(p):
    assert p.time_per_token_s == pytest.approx(1 / (0.1 * DEFAULT_T_OUT))
    assert p.energy_per_token_j == pytest.approx(p.power_w * p.time_per_token_s)


def test_a_batch_prices_energy_by_throughput():
    b = wl.predict(LLAMA, "H100 NVL", batch=32, t_in=500, t_out=300)
    assert b.time_per_token_s == pytest.approx(b.itl_s / 32)
    assert b.energy_per_token_j == pytest.approx(b.power_w * b.itl_s / 32)
    assert b.inputs.batch == 32 and b.inputs.rate_qps is None


def test_a_load_beyond_capacity_says_the_capacity():
    with pytest.raises(CapacityError, match=r"capacity is about [\d.]+ req/s"):
        wl.predict(LLAMA, "L4", rate_qps=1e3)
    with pytest.raises(CapacityError, match="does not fit"):
        wl.predict("google/gemma-3-27b-it", "T4", rate_qps=0.1)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "exactly one load"),
        ({"rate_qps": 0.1, "batch": 4}, "exactly one load"),
        ({"scenario": "offline", "rate_qps": 0.1}, "exactly one load"),
        ({"rate_qps": -1}, "rate_qps must be"),
        ({"rate_qps": "0.1"}, "rate_qps must be"),
        ({"batch": 2.5}, "whole number"),
        ({"rate_qps": 0.1, "t_out": 0}, "t_out must be"),
        ({"rate_qps": 0.1, "t_in": 10**6}, "context length"),
        ({"rate_qps": 0.1, "level": 0.9999}, "level must be"),
        ({"scenario": "server_medium"}, "unknown scenario"),
    ],
)
def test_bad_workloads_are_refused_by_name(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        wl.predict(LLAMA, "H100 NVL", **kwargs)


def test_a_spec_borrowing_a_measured_name_is_judged_by_its_values():
    with pytest.raises(SpecError, match="name of its own"):
        wl.predict(
            LLAMA, dataclasses.replace(wl.gpu("H100 NVL"), bandwidth_gbs=8000.0), rate_qps=0.1
        )
    spec = dataclasses.replace(wl.gpu("H100 NVL"), name="faster", bandwidth_gbs=8000.0)
    p = wl.predict(LLAMA, spec, rate_qps=0.1)
    # 8,000 GB/s is beyond every training GPU: the backbone alone answers, and says why
    assert p.power_w_interval.basis == "physics" and p.model == "physics"
    assert any(n.startswith("no training GPU has a bandwidth_gbs") for n in p.notes)
    inside = dataclasses.replace(wl.gpu("H100 NVL"), name="slower", bandwidth_gbs=3000.0)
    assert wl.predict(LLAMA, inside, rate_qps=0.1).power_w_interval.basis == "new gpu"
    same = wl.predict(LLAMA, dataclasses.replace(wl.gpu("H100 NVL"), name="mine"), rate_qps=0.1)
    assert same.power_w_interval.basis == "cv"  # the same spec values under another name


def test_predict_many_equals_predict_row_by_row():
    rows = pd.DataFrame({"llm": [LLAMA, "Qwen/Qwen2.5-7B-Instruct", LLAMA],
                         "gpu": ["A30", "L40S", "B200"], "rate_qps": [0.05, np.nan, 2.0],
                         "batch": [np.nan, 64, np.nan], "t_in": [15, 500, 2000],
                         "t_out": [180, 300, 500]})  # fmt: skip
    many = wl.predict_many(rows)
    for i, r in rows.iterrows():
        load = {"rate_qps": r.rate_qps} if np.isfinite(r.rate_qps) else {"batch": r.batch}
        one = wl.predict(r.llm, r.gpu, t_in=int(r.t_in), t_out=int(r.t_out), **load)
        for q in ("power_w", "itl_s", "time_per_token_s", "energy_per_token_j"):
            assert many[q][i] == pytest.approx(getattr(one, q), rel=1e-12)
            assert many[f"{q}_lo"][i] == pytest.approx(getattr(one, f"{q}_interval").lo, rel=1e-12)


def test_predict_many_marks_overload_instead_of_raising():
    out = wl.predict_many(pd.DataFrame({"llm": [LLAMA] * 2, "gpu": ["L4", "L4"],
                                        "rate_qps": [0.1, 1e3]}))  # fmt: skip
    assert list(out["status"]) == ["ok", "saturated"]
    assert np.isnan(out["power_w"][1]) and out["capacity_qps"][1] > 0


def test_moe_and_quantised_models_rest_on_physics_alone():
    moe = wl.predict("openai/gpt-oss-20b", "H100 SXM", rate_qps=1.0)
    assert moe.model == "physics" and moe.power_w_interval.basis == "physics"
    trained = wl.predict(LLAMA, "H100 NVL", rate_qps=1.0)  # a training GPU (H100 SXM: physics)
    # ITL intervals are never clipped above (power's are, at idle and TDP): compare their widths
    width = moe.itl_s_interval.hi / moe.itl_s_interval.lo
    assert width > trained.itl_s_interval.hi / trained.itl_s_interval.lo
    dense = wl.predict(LLAMA, "H100 SXM", rate_qps=1.0)
    fp8 = wl.predict(LLAMA, "H100 SXM", rate_qps=1.0, weights="fp8")
    assert fp8.model == "physics" and fp8.inputs.weights == "fp8"
    assert fp8.itl_s < dense.itl_s  # half the bytes per weight: a faster decode
    two = wl.predict(LLAMA, "H100 SXM", rate_qps=1.0, num_gpus=2)
    assert two.model == "physics" and two.idle_power_w == pytest.approx(2 * dense.idle_power_w)
