"""WattGPU's two XGBoost predictors: mean GPU power and inter-token latency (WattGPU §4).

- Power: target P/TDP (TDP only normalises, so GPUs of any size share one scale);
  XGBRegressor(max_depth=6, reg_lambda=150, n_estimators=200) on the 11 power inputs.
- ITL: target ln(ITL [s]); XGBRegressor(max_depth=5, reg_lambda=100, n_estimators=100) on the
  14 ITL inputs. Hyper-parameters as the authors' released notebook.

Dense models only. XGBoost is the ``[train]`` extra (``pip install 'wattgpu-lite[train]'``):
without it the module imports, and fitting or loading a model says which extra it needs. A model pre-trained on every dense Watt Counts run ships in data/models/wattgpu
(built by data/scripts/build_wattgpu_models.py) and loads on first use:

    p = wl.WattGPU.pretrained()
    p.predict("meta-llama/Llama-3.1-8B-Instruct", "L4", "server_low")   # power_w, itl_s, ...
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, fix_for
from wattgpu_lite.errors import DataFileError, InvalidInputError, UnsupportedModelError
from wattgpu_lite.jsonfiles import model_folder, read_json
from wattgpu_lite.runs.measurements import LAMBDA_QPS
from wattgpu_lite.runs.training import check_training_runs
from wattgpu_lite.specs.llm import LLM
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_OUT, server_time_per_token_s
from wattgpu_lite.wattgpu import physical_limits
from wattgpu_lite.wattgpu.features import (
    FEATURES,
    check_scenario,
    feature_frame,
    run_features,
    unsupported,
)
from wattgpu_lite.wattgpu.inputs import check_features
from wattgpu_lite.wattgpu.regressor import (
    XGBOOST_MIN,
    TargetModel,
    check_xgb_params,
    check_xgboost,
    fit_target,
    training_rows,
    xgb,
)

__all__ = ["ITL_PARAMS", "POWER_PARAMS", "WattGPU", "pretrained_dir"]

POWER_PARAMS: dict = {"max_depth": 6, "reg_lambda": 150, "n_estimators": 200}
ITL_PARAMS: dict = {"max_depth": 5, "reg_lambda": 100, "n_estimators": 100}


def pretrained_dir() -> Path:
    """The folder of the shipped WattGPU models (data/models/wattgpu; no file read at import)."""
    return data_dir() / "models" / "wattgpu"


_STATE = "preprocessing.json"


class WattGPU:
    """Both predictors. ``fit(runs)`` trains on the dense rows of a runs table.

    ``params``, by target (``{"itl": {"max_depth": 3}}``), overrides XGBoost parameters key by
    key over the paper's (:data:`POWER_PARAMS`, :data:`ITL_PARAMS`): the keys not given keep the
    paper's values, never XGBoost's own defaults (``reg_lambda`` 1, not 100). A key XGBoost's
    regressor does not take is refused by name. ``features``, by target, replaces the inputs."""

    def __init__(self, params: Mapping[str, dict] | None = None, features=None, seed: int = 0):
        for name, given in (("params", params), ("features", features)):  # by target, or refused
            if given is not None and not (isinstance(given, Mapping) and set(given) <= {*FEATURES}):
                got = f"got {given!r:.80}" if not isinstance(given, Mapping) else f"keys {[*given]}"
                by_target = f"a dict by target, 'power' and/or 'itl' (e.g. {name}={{'itl': ...}})"
                raise InvalidInputError(f"WattGPU: {name} must be {by_target}, {got}")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):  # numpy's too
            raise InvalidInputError(f"WattGPU: seed must be an integer, got {seed!r:.40}")
        given = {
            t: check_xgb_params(p, f"WattGPU(params={{{t!r}: ...}})")
            for t, p in (params or {}).items()
        }
        defaults = {"power": POWER_PARAMS, "itl": ITL_PARAMS}
        self.params = {t: {**p, **given.get(t, {})} for t, p in defaults.items()}
        self.features = {
            **FEATURES,
            **{t: check_features(t, f) for t, f in (features or {}).items()},
        }
        self.seed = seed
        self.models: dict[str, TargetModel] = {}

    def __repr__(self) -> str:
        state = "fitted" if self.models else "not fitted"
        return f"WattGPU(power={self.params['power']}, itl={self.params['itl']}, {state})"

    def fit(self, runs: pd.DataFrame) -> WattGPU:
        """Train both models on ``runs`` (a ``wl.measurements()`` table; MoE rows are dropped)."""
        check_training_runs(runs, "WattGPU().fit")
        frame = run_features(runs[runs["dense"]]) if "dense" in runs else run_features(runs)
        for target in ("power", "itl"):
            rows = training_rows(frame, target)
            self.models[target] = fit_target(
                rows, target, self.features[target], self.params[target], seed=self.seed
            )
        return self

    def predict_frame(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Add power_w, itl_s and energy_per_token_j to a feature frame.

        energy_per_token_j is the GPU energy per generated token, accounted as the measurements
        are: offline P̄ · ITL (ITL = 1/throughput there); at a server rate λ the GPU is held, idle
        or not, for the whole interval, so P̄ / (λ · T_out) with T_out = ``DEFAULT_T_OUT``
        generated tokens per request (the Watt Counts mean). P̄ · ITL alone would charge only the
        time a token is being produced and miss the idle power between requests.

        ``status`` says per row whether it is answered ("ok") or refused (:func:`~wattgpu_lite.
        wattgpu.physical_limits.row_limits`: weights beyond the memory, an ITL below the floor, an
        input that is no number), ``message`` why; a refused row's numbers are NaN.
        """
        if not self.models:
            raise RuntimeError("WattGPU is not fitted: call fit(runs) or WattGPU.pretrained()")
        if not isinstance(frame, pd.DataFrame):
            raise InvalidInputError(
                f"WattGPU.predict_frame takes a feature frame (a DataFrame: wattgpu_lite.wattgpu."
                f"features.feature_frame(llms, gpus, scenarios)), got {type(frame).__name__}"
            )
        for scenario in frame["scenario"].unique() if "scenario" in frame else ():
            check_scenario(scenario)  # else its rows predict as no scenario, energy NaN
        out = frame.copy()
        power_w, itl_s = (self.models[t].predict(frame) for t in ("power", "itl"))
        numeric = [c for m in self.models.values() for c in m.preprocessor.numeric]
        answers = physical_limits.limited(frame, power_w, itl_s, numeric=numeric)
        out["power_w"], out["itl_s"] = answers["power_w"], answers["itl_s"]
        server_s = server_time_per_token_s(frame["scenario"].map(LAMBDA_QPS), DEFAULT_T_OUT)
        per_token_s = np.where(frame["scenario"] == "offline", out["itl_s"], server_s)
        out["energy_per_token_j"] = out["power_w"] * per_token_s
        out["status"], out["message"] = answers["status"], answers["message"]
        return out

    def predict(self, llm, gpu, scenario: str) -> dict:
        """Prediction for one (LLM, GPU, scenario). ``llm``: LLM, catalog name, config dict or
        path to a config.json; ``gpu``: GPU, catalog name, spec dict or path to a spec JSON.
        ``notes``: a power outside [P_floor, TDP]; an ITL below the physical floor is refused
        (:mod:`~wattgpu_lite.wattgpu.physical_limits`)."""
        model, device = dense_only(resolve_llm(llm)), resolve_gpu(gpu)
        out = self.predict_frame(feature_frame([model], [device], [scenario])).iloc[0]
        keys = ("llm", "gpu", "scenario", "tdp_w", "power_w", "itl_s", "energy_per_token_j")
        answer = {k: out[k] if isinstance(out[k], str) else float(out[k]) for k in keys}
        answer |= {"status": out["status"], "message": out["message"]}
        return physical_limits.checked(answer, device.idle_power_w)

    def save(self, folder: str | Path) -> Path:
        """Write power.json and itl.json (XGBoost JSON) and preprocessing.json to ``folder``."""
        folder = model_folder(folder, "WattGPU.save")
        if not self.models:  # else a folder load() refuses
            raise RuntimeError("WattGPU is not fitted, so there is nothing to save: call fit(runs)")
        folder.mkdir(parents=True, exist_ok=True)
        state = {
            "seed": self.seed,
            "params": self.params,
            "targets": {},
            "xgboost_version": xgb().__version__,
            "xgboost_min_version": XGBOOST_MIN,
        }
        for target, model in self.models.items():
            model.regressor.save_model(folder / f"{target}.json")
            state["targets"][target] = model.preprocessor.to_dict()
        (folder / _STATE).write_text(json.dumps(state, indent=1) + "\n")
        return folder

    @classmethod
    def load(cls, folder: str | Path) -> WattGPU:
        """Read a model written by :meth:`save` (shipped files are checked against
        data/MANIFEST.sha256); DataFileError names the file for any failure."""
        folder = model_folder(folder, "WattGPU.load")
        state = read_json(folder / _STATE, what="model state")
        check_xgboost(state, str(folder / _STATE))
        try:
            self = cls(params=state["params"], seed=state["seed"])
            self.params |= {t: dict(p) for t, p in state["params"].items()}  # as trained
            targets = state["targets"].items()
        except (KeyError, TypeError, AttributeError, InvalidInputError) as err:
            raise DataFileError(
                f"model state {folder / _STATE}: lacks or mistypes {err}; "
                f"{fix_for(folder / _STATE)}"
            ) from None
        for target, prep in targets:
            self.models[target] = TargetModel.load(folder / f"{target}.json", prep, target)
            self.features[target] = tuple(self.models[target].preprocessor.columns)
        if set(self.models) != {"power", "itl"}:
            raise DataFileError(
                f"model state {folder / _STATE}: targets {sorted(self.models)}, "
                f"expected ['itl', 'power']; {fix_for(folder / _STATE)}"
            )
        return self

    @classmethod
    def pretrained(cls) -> WattGPU:
        """The shipped model, trained on every dense Watt Counts run (loaded once, cached)."""
        return _pretrained()


def dense_only(model: LLM) -> LLM:
    """``model`` if it is a dense 16-bit LLM, else UnsupportedModelError: WattGPU's features and
    training runs assume every parameter is used for every token, stored in 16 bits."""
    if unsupported(model):
        raise UnsupportedModelError(unsupported(model))
    return model


@cache
def _pretrained() -> WattGPU:
    return WattGPU.load(pretrained_dir())


def __getattr__(name: str):
    """``PRETRAINED_DIR``, computed when read (:func:`pretrained_dir`), so importing this module reads no file."""
    if name == "PRETRAINED_DIR":
        return pretrained_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
