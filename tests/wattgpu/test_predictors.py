"""WattGPU predictors: the shipped model equals a fresh fit, save/load is exact, inputs checked."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError, UnsupportedModelError
from wattgpu_lite.wattgpu.features import feature_frame

FIXTURES = Path(__file__).parents[1] / "fixtures"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
SCENARIOS = ["offline", "server_low", "server_high"]


@pytest.fixture(scope="module")
def fresh() -> wl.WattGPU:
    return wl.WattGPU().fit(wl.measurements())


@pytest.fixture(scope="module")
def grid() -> pd.DataFrame:
    measured = wl.gpus().query("measured")["name"]
    llms = ["meta-llama/Llama-3.1-8B-Instruct", "openai-community/gpt2", "google/gemma-3-27b-it"]
    return feature_frame(llms, measured, SCENARIOS)


def _outputs(model: wl.WattGPU, frame: pd.DataFrame) -> np.ndarray:
    return model.predict_frame(frame)[["power_w", "itl_s", "energy_per_token_j"]].to_numpy()


def test_shipped_model_equals_a_fresh_fit(fresh, grid):
    np.testing.assert_allclose(
        _outputs(wl.WattGPU.pretrained(), grid), _outputs(fresh, grid), rtol=1e-6
    )


def test_save_load_round_trip_is_identical(fresh, grid, tmp_path):
    again = wl.WattGPU.load(fresh.save(tmp_path / "model"))
    np.testing.assert_array_equal(_outputs(again, grid), _outputs(fresh, grid))
    assert sorted(p.name for p in (tmp_path / "model").iterdir()) == [
        "itl.json", "power.json", "preprocessing.json"
    ]  # fmt: skip


def test_predictions_are_physical(grid):
    """Positive power within 5 % of TDP (see the strict test below), positive ITL, and energy per
    token accounted with the Watt Counts constants written out here (λ = 0.017 / 0.33 req/s,
    180 generated tokens per request), not the code's own names for them."""
    out = wl.WattGPU.pretrained().predict_frame(grid)
    refused = out[out["status"] != "ok"]  # 16-bit weights beyond the memory (physical_limits)
    assert set(refused["status"]) == {"does not fit in memory"}
    assert (2 * refused["params_b"] > refused["memory_gb"]).all()
    assert refused[["power_w", "itl_s", "energy_per_token_j"]].isna().all().all()
    out = out[out["status"] == "ok"]
    assert (out["power_w"] > 0).all() and (out["power_w"] <= 1.05 * out["tdp_w"]).all()
    assert (out["itl_s"] > 0).all() and (out["itl_s"] < 10).all()
    off = out["scenario"] == "offline"
    np.testing.assert_allclose(
        out.loc[off, "energy_per_token_j"], (out["power_w"] * out["itl_s"])[off]
    )
    held_s = 1 / (out["scenario"].map({"server_low": 0.017, "server_high": 0.33}) * 180)
    np.testing.assert_allclose(out.loc[~off, "energy_per_token_j"], (out["power_w"] * held_s)[~off])
    # offline batching amortises the weight reads: ITL far below the server one (same pair)
    pivot = out.pivot_table(index=["llm", "gpu"], columns="scenario", values="itl_s")
    assert (pivot["offline"] < pivot["server_low"] / 5).all()


@pytest.mark.xfail(
    strict=True,
    reason="WattGPU as published predicts up to 4.8 % above TDP "
    "(99 of 13,875 catalog cells, offline on L4/T4/A30 ...), where no measured run "
    "exceeds 0.999 TDP. Kept as published: this is the paper's model, "
    "taught with its flaw; the kit's default, the hybrid, is capped at the TDP",
)
def test_power_never_exceeds_tdp(grid):
    out = wl.WattGPU.pretrained().predict_frame(grid)
    assert (out["power_w"] <= out["tdp_w"]).all()


def test_predict_for_a_gpu_in_no_table():
    result = wl.WattGPU.pretrained().predict(
        LLAMA, FIXTURES / "gpu_rtx5090_spec.json", "server_high"
    )
    assert result["gpu"] == "RTX 5090" and result["tdp_w"] == 575.0
    for key in ("power_w", "itl_s", "energy_per_token_j"):
        assert math.isfinite(result[key]) and result[key] > 0


def test_predict_from_a_config_json():
    result = wl.WattGPU.pretrained().predict(FIXTURES / "gpt2.json", "L4", "offline")
    assert math.isfinite(result["power_w"]) and math.isfinite(result["itl_s"])


def test_bad_scenario_raises():
    with pytest.raises(InvalidInputError, match="server_medium"):
        wl.WattGPU.pretrained().predict(LLAMA, "L4", "server_medium")


def test_moe_config_raises():
    with pytest.raises(UnsupportedModelError, match="dense models only"):
        wl.WattGPU.pretrained().predict(FIXTURES / "mixtral_moe.json", "H100 NVL", "offline")


def test_measured_moe_name_raises():
    with pytest.raises(UnsupportedModelError, match="dense models only"):
        wl.WattGPU.pretrained().predict("Qwen/Qwen1.5-MoE-A2.7B-Chat", "H100 NVL", "offline")


@pytest.mark.parametrize("folder", [None, 3, ["models"], ""])
def test_load_and_save_name_a_folder_that_is_no_path(folder):
    for call, where in ((lambda: wl.WattGPU.load(folder), "WattGPU.load"),
                        (lambda: wl.WattGPU.pretrained().save(folder), "WattGPU.save")):  # fmt: skip
        with pytest.raises(InvalidInputError, match=rf"{where}: folder must be the path"):
            call()


@pytest.mark.parametrize("frame", [None, [1, 2], {"scenario": ["offline"]}])
def test_predict_frame_takes_a_frame(frame):
    with pytest.raises(InvalidInputError, match="predict_frame takes a feature frame"):
        wl.WattGPU.pretrained().predict_frame(frame)


def test_predict_frame_refuses_an_unknown_scenario(grid):
    """Else its rows predict as no scenario (the offline power here) with energy NaN."""
    with pytest.raises(InvalidInputError, match="unknown scenario 'server-low'"):
        wl.WattGPU.pretrained().predict_frame(grid.assign(scenario="server-low"))


def test_unfitted_model_says_what_to_do(grid):
    with pytest.raises(RuntimeError, match="pretrained"):
        wl.WattGPU().predict_frame(grid)
