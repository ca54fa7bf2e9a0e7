"""wl.WattGPU(params=, features=, seed=) refuses what it would ignore or fail on later: a target
key other than 'power' and 'itl' (params={'pwr': ...} was dropped silently), an input no user
can give (a pandas KeyError at fit), a seed that is no integer (XGBoost's 'expect long'), a
parameter XGBoost's regressor does not take (it only warns, and fits without it)."""

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
        (
            {"params": {"itl": {"max_depht": 3}}},  # XGBoost only warns, and fits without it
            r"'max_depht' is not a parameter of XGBoost's regressor; did you mean max_depth",
        ),
        ({"params": {"itl": 3}}, r"parameters must be a dict such as \{'max_depth': 5\}, got 3"),
        ({"params": {"power": {"random_state": 1}}}, r"'random_state' is the kit's.*seed="),
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


def test_the_parameters_named_are_the_installed_xgboosts():
    """The list the refusal gives is read from the installed xgboost, not copied by hand."""
    xgboost = pytest.importorskip("xgboost")
    with pytest.raises(InvalidInputError) as err:
        wl.WattGPU(params={"power": {"n_estimator": 5}})
    taken = set(xgboost.XGBRegressor().get_params()) - {"random_state", "n_jobs"}
    assert set(str(err.value).split("It takes: ")[1].split(", ")) == taken
    assert wl.WattGPU(params={"itl": {"subsample": 0.5}}).params["itl"]["subsample"] == 0.5


def test_params_override_the_papers_key_by_key_and_the_rest_stay():
    """params={'itl': {'max_depth': 3}} dropped every other paper parameter of the ITL model:
    it fitted with XGBoost's reg_lambda 1 instead of the paper's 100, without a word."""
    from wattgpu_lite.wattgpu.predictor import ITL_PARAMS, POWER_PARAMS

    model = wl.WattGPU(params={"itl": {"max_depth": 3}})
    assert model.params == {"power": POWER_PARAMS, "itl": {**ITL_PARAMS, "max_depth": 3}}
    assert model.params["itl"]["reg_lambda"] == 100 and ITL_PARAMS["max_depth"] == 5
    model.params["power"]["max_depth"] = 1  # a copy: the module's defaults stay the paper's
    assert POWER_PARAMS["max_depth"] == 6 and wl.WattGPU().params["power"] == POWER_PARAMS


def test_the_fitted_regressors_use_the_merged_params_and_a_saved_model_keeps_them(tmp_path):
    few = {"n_estimators": 3}
    model = wl.WattGPU(params={"power": few, "itl": few}).fit(wl.measurements())
    itl = model.models["itl"].regressor.get_params()
    power = model.models["power"].regressor.get_params()
    assert (itl["max_depth"], itl["reg_lambda"], itl["n_estimators"]) == (5, 100, 3)
    assert (power["max_depth"], power["reg_lambda"], power["n_estimators"]) == (6, 150, 3)
    assert wl.WattGPU.load(model.save(tmp_path / "m")).params == model.params


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
