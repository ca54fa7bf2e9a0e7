"""WattGPU's engineered features, pinned by hand from the spec numbers (WattGPU gpu_features.csv)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.wattgpu.features import (
    CATEGORICAL,
    ITL_FEATURES,
    POWER_FEATURES,
    feature_frame,
    run_features,
)
from wattgpu_lite.wattgpu.preprocessing import Preprocessor, column_transformer

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
N_B = 8.03  # WattGPU's total_b_params for Llama-3.1-8B-Instruct
# GPU: (base MHz, boost MHz, bandwidth GB/s, dense FP16 TFLOPS), as in WattGPU's spec rows
SPECS = {
    "V100 SXM2 32GB": (1290, 1530, 898.0, 125),
    "T4": (585, 1590, 320.0, 65),
    "A100 SXM4 40GB": (1095, 1410, 1560.0, 312),
    "A30": (930, 1440, 933.1, 165),
    "L40S": (1110, 2520, 864.0, 362),
    "L4": (795, 2040, 300.1, 121),
    "H100 NVL": (1080, 1785, 3940.0, 835),
    "H200 NVL": (1365, 1785, 4890.0, 835),
}
RTX_4090 = {  # built from a spec dict, not the catalog (TechPowerUp / NVIDIA Ada figures)
    "name": "RTX 4090 (test)", "release_year": 2022, "base_clock_mhz": 2235,
    "boost_clock_mhz": 2520, "memory_gb": 24, "memory_type": "GDDR6X", "bandwidth_gbs": 1008,
    "tdp_w": 450, "fp16_tflops": 165.2, "transistors_m": 76300,
}  # fmt: skip


@pytest.fixture(scope="module")
def llama_rows() -> pd.DataFrame:
    return feature_frame([LLAMA], list(SPECS), ["offline"]).set_index("gpu")


@pytest.mark.parametrize("gpu", list(SPECS))
def test_engineered_values_llama_8b(llama_rows, gpu):
    base, boost, bw, tflops = SPECS[gpu]
    row = llama_rows.loc[gpu]
    assert row["params_nominal_b"] == N_B
    assert row["boost_ratio"] == pytest.approx(boost / base, rel=1e-12)
    assert row["bandwidth_latency_s"] == pytest.approx(2 * N_B / bw, rel=1e-12)
    assert row["compute_latency_s"] == pytest.approx(2 * N_B * 1e9 / (tflops * 1e12), rel=1e-12)
    assert row["log_params_nominal_b"] == pytest.approx(math.log(N_B))


def test_h100_nvl_values_by_hand(llama_rows):
    row = llama_rows.loc["H100 NVL"]
    assert row["bandwidth_latency_s"] == pytest.approx(0.0040761, rel=1e-4)  # 16.06 / 3940
    assert row["compute_latency_s"] == pytest.approx(1.92335e-5, rel=1e-4)  # 16.06e9 / 835e12
    assert row["boost_ratio"] == pytest.approx(1.652778, rel=1e-6)  # 1785 / 1080


def test_feature_lists_are_the_papers():
    assert len(POWER_FEATURES) == 11 and len(ITL_FEATURES) == 14
    assert set(CATEGORICAL) <= set(POWER_FEATURES) | set(ITL_FEATURES)
    assert "bandwidth_latency_s" in POWER_FEATURES and "compute_latency_s" in ITL_FEATURES


def test_gpu_in_no_table_gets_finite_features():
    gpu = wl.GPU.from_spec(RTX_4090)
    row = feature_frame([LLAMA], [gpu], ["server_low"]).iloc[0]
    assert row["bandwidth_latency_s"] == pytest.approx(2 * N_B / 1008)
    assert np.isfinite(row[[c for c in ITL_FEATURES if c not in CATEGORICAL]].astype(float)).all()


def test_bad_scenario_raises():
    with pytest.raises(InvalidInputError, match="scenario"):
        feature_frame([LLAMA], ["L4"], ["batch"])


def test_run_features_cover_every_dense_run():
    frame = run_features(wl.measurements(dense_only=True))
    assert frame[list(POWER_FEATURES) + list(ITL_FEATURES)].notna().all().all()


@pytest.fixture(scope="module")
def fitted():
    rows = run_features(wl.measurements(dense_only=True)).iloc[::7]
    cats = [c for c in ITL_FEATURES if c in CATEGORICAL]
    return rows, Preprocessor.fit(rows, ITL_FEATURES, cats)


def test_preprocessor_equals_sklearn_column_transformer(fitted):
    rows, prep = fitted
    num = [c for c in ITL_FEATURES if c not in CATEGORICAL]
    cat = [c for c in ITL_FEATURES if c in CATEGORICAL]
    ct: ColumnTransformer = column_transformer(num, cat)
    expected = ct.fit_transform(rows[num + cat].astype({c: object for c in cat}))
    np.testing.assert_array_equal(prep.transform(rows), expected)


def test_preprocessor_json_round_trip_and_unknowns(fitted):
    rows, prep = fitted
    again = Preprocessor.from_dict(prep.to_dict())
    assert again == prep
    odd = rows.iloc[:1].copy()
    odd["memory_type"] = "HBM4"  # never seen: ordinal code -1
    odd["hidden_size"] = np.nan  # missing: mean-imputed, so standardised to 0
    x = again.transform(odd)[0]
    names = again.feature_names
    assert x[names.index("memory_type")] == -1.0
    assert x[names.index("hidden_size")] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((LLAMA, ["L4"], ["offline"]), f"llms must be a list, not the single '{LLAMA}'"),
        (
            ([LLAMA], "L4", ["offline"]),
            "gpus must be a list, not the single 'L4'; write gpus=['L4']",
        ),
        (([LLAMA], ["L4"], "offline"), "scenarios must be a list"),
        (([], ["L4"], ["offline"]), "llms is empty"),
        (([LLAMA], ["L4"], None), "scenarios must be a list, got NoneType"),
    ],
)
def test_feature_frame_wants_lists(args, words):
    """A bare name was read letter by letter (unknown LLM 'm'), an empty list was a KeyError."""
    with pytest.raises(InvalidInputError, match=re.escape(words)):
        feature_frame(*args)
