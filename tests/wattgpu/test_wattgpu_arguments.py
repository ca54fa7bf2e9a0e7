"""wl.WattGPU(params=, features=, seed=) refuses what it would ignore or fail on later: a target
key other than 'power' and 'itl' (params={'pwr': ...} was dropped silently), an input no user
can give (a pandas KeyError at fit), a seed that is no integer (XGBoost's 'expect long')."""

from __future__ import annotations

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError, SpecError
from wattgpu_lite.wattgpu.features import ITL_FEATURES, feature_frame


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"params": {"pwr": {"max_depth": 3}}}, r"params must be a dict by target.*keys \['pwr'\]"),
        ({"params": [("power", {})]}, r"params must be a dict by target.*got \[\('power'"),
        ({"features": {"itl": ["bogus"]}}, r"feature 'bogus' is not an input a user can give"),
        (
            {"features": {"energy": ["scenario"]}},
            r"features must be a dict by target.*\['energy'\]",
        ),
        ({"seed": "x"}, r"WattGPU: seed must be an integer, got 'x'"),
        ({"seed": True}, r"WattGPU: seed must be an integer, got True"),
    ],
)
def test_arguments_are_refused_by_name_before_any_fit(kwargs, said):
    with pytest.raises(InvalidInputError, match=said):
        wl.WattGPU(**kwargs)


def test_fewer_inputs_still_fit_and_predict():
    fewer = [f for f in ITL_FEATURES if f != "compute_latency_s"]
    model = wl.WattGPU(features={"itl": fewer}).fit(wl.measurements())
    assert model.features["itl"] == tuple(fewer)
    assert model.predict("meta-llama/Llama-3.1-8B-Instruct", "L4", "offline")["itl_s"] > 0


def test_a_numpy_integer_is_a_seed():
    """A seed drawn with numpy (np.int64) is an integer, as XGBoost takes it."""
    assert wl.WattGPU(seed=np.int64(3)).seed == 3


def test_an_unfitted_model_is_not_saved(tmp_path):
    """It wrote a folder that load() then refused ('targets []')."""
    with pytest.raises(RuntimeError, match="not fitted, so there is nothing to save"):
        wl.WattGPU().save(tmp_path / "model")
    assert not (tmp_path / "model").exists()


@pytest.mark.parametrize(("gpus", "error"), [([None], SpecError), ([{"name": "x"}], SpecError)])
def test_feature_frame_reads_a_gpu_as_predict_does(gpus, error):
    """A GPU that is no name and no GPU was an AttributeError ('NoneType' has no 'name')."""
    with pytest.raises(error, match="GPU|spec"):
        feature_frame(["meta-llama/Llama-3.1-8B-Instruct"], gpus, ["offline"])
