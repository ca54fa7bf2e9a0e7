"""One fitted WattGPU target: preprocessing state + XGBoost regressor, in natural units.

Targets (WattGPU §4): ``power`` is P/TDP (so predictions are multiplied back by the GPU's TDP
to give watts); ``itl`` is ln(ITL [s]) (predictions are exponentiated back to seconds).

XGBoost and scikit-learn are the ``[train]`` extra: they are imported where a model is fitted or
loaded (:func:`xgb`), so the core install imports this module without them.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import fix_for, read_bytes
from wattgpu_lite.errors import DataFileError, InvalidInputError, require
from wattgpu_lite.wattgpu.features import CATEGORICAL
from wattgpu_lite.wattgpu.preprocessing import Preprocessor

# 2.0.3-3.0.5 load the shipped trees without an error but predict 316.7 W for 116.7 W (issue 12)
XGBOOST_MIN = "3.1.0"
N_JOBS = 1  # one thread per fit: on a shared 2-core machine 2 threads run ~5x slower (spin-waits)
REGRESSORS = ("xgb", "linear", "elastic_net")
WHAT = "the paper's WattGPU model (wl.WattGPU: fitting, loading, evaluating it)"

if TYPE_CHECKING:
    from xgboost import XGBRegressor


def xgb() -> Any:
    """The ``xgboost`` module, or a MissingExtraError naming the ``[train]`` extra."""
    return require("xgboost", "train", WHAT)


def check_xgb_params(params, where: str) -> dict:
    """``params`` if it is a dict of keyword arguments XGBRegressor takes (read from the
    installed xgboost: ``XGBRegressor().get_params()``), else InvalidInputError naming the key and
    close matches: XGBoost only warns about a key it does not use, and fits without it.
    random_state and n_jobs are the kit's (``seed=``; one thread)."""
    if not isinstance(params, Mapping):
        raise InvalidInputError(
            f"{where}: XGBoost's parameters must be a dict such as {{'max_depth': 5}}, got "
            f"{params!r:.80}"
        )
    taken = sorted(set(xgb().XGBRegressor().get_params()) - {"random_state", "n_jobs"})
    for key in params:
        if key in {"random_state", "n_jobs", "seed"}:
            raise InvalidInputError(
                f"{where}: {key!r} is the kit's to set: WattGPU(seed=) sets XGBoost's "
                "random_state, and the kit fits on one thread (n_jobs=1)"
            )
        if key not in taken:
            close = difflib.get_close_matches(str(key), taken, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InvalidInputError(
                f"{where}: {key!r} is not a parameter of XGBoost's regressor{hint} "
                f"It takes: {', '.join(taken)}"
            )
    return dict(params)


def make_regressor(kind: str = "xgb", params: dict | None = None, seed: int = 0):
    """An unfitted regressor: XGBoost (the paper's), or the linear ones it was compared with."""
    if kind == "xgb":
        params = check_xgb_params(params or {}, "XGBRegressor")
        return xgb().XGBRegressor(**params, random_state=seed, n_jobs=N_JOBS)
    if kind in ("linear", "elastic_net"):
        linear = require("sklearn.linear_model", "train", WHAT)
        if kind == "linear":
            return linear.LinearRegression(**(params or {}))
        return linear.ElasticNet(**{"random_state": seed, **(params or {})})
    raise ValueError(f"unknown regressor {kind!r}; use one of {REGRESSORS}")


def target_values(frame: pd.DataFrame, target: str) -> np.ndarray:
    """Training target: power_w / tdp_w (dimensionless) or ln(itl_s)."""
    if target == "power":
        return (frame["power_w"] / frame["tdp_w"]).to_numpy(dtype=float)
    return np.log(frame["itl_s"].to_numpy(dtype=float))


def to_natural(pred: np.ndarray, frame: pd.DataFrame, target: str) -> np.ndarray:
    """Model output back to watts (x TDP) or seconds (exp)."""
    if target == "power":
        return pred * frame["tdp_w"].to_numpy(dtype=float)
    return np.exp(pred)


def training_rows(frame: pd.DataFrame, target: str) -> pd.DataFrame:
    """Rows usable for ``target``: a finite, positive measurement (index reset)."""
    col = "power_w" if target == "power" else "itl_s"
    ok = np.isfinite(frame[col]) & (frame[col] > 0)
    return frame[ok].reset_index(drop=True)


@dataclass
class TargetModel:
    """A fitted preprocessing + regressor pair for one target."""

    target: str
    preprocessor: Preprocessor
    regressor: XGBRegressor

    def importance(self) -> np.ndarray:
        """Per input: XGBoost's normalised gain importance, or |coefficient| of a linear model."""
        if hasattr(self.regressor, "feature_importances_"):
            return np.asarray(self.regressor.feature_importances_, dtype=float)
        return np.abs(np.asarray(self.regressor.coef_, dtype=float))

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        """Prediction in natural units (W or s) for each row of a feature frame."""
        raw = self.regressor.predict(self.preprocessor.transform(frame))
        return to_natural(raw.astype(float), frame, self.target)

    @classmethod
    def load(cls, path: Path, state: dict, target: str) -> TargetModel:
        """Read the XGBoost JSON at ``path`` (checked against data/MANIFEST.sha256 when shipped)
        with its preprocessing ``state``; DataFileError names the file for any failure."""
        raw = read_bytes(path, what="model file")
        xgb_error = xgb().core.XGBoostError
        try:
            prep = Preprocessor.from_dict(state)
            regressor = load_regressor(raw)
        except (KeyError, TypeError, ValueError, xgb_error) as err:
            raise DataFileError(
                f"model file {path}: cannot be loaded ({type(err).__name__}: "
                f"{' '.join(str(err).split())[:200]}); {fix_for(path)}"
            ) from None
        if regressor.n_features_in_ != len(prep.feature_names):
            raise DataFileError(
                f"model file {path}: {regressor.n_features_in_} inputs, but its "
                f"preprocessing has {len(prep.feature_names)}; {fix_for(path)}"
            )
        return cls(target, prep, regressor)


def load_regressor(raw: bytes) -> XGBRegressor:
    """An XGBRegressor from the bytes of an XGBoost JSON model (one thread: predictions are small
    and latency-bound). Raises XGBoostError or ValueError for damaged bytes."""
    regressor = xgb().XGBRegressor(n_jobs=1)
    regressor.load_model(bytearray(raw))
    return regressor


def check_xgboost(state: dict, where: str) -> None:
    """DataFileError unless the model state records the xgboost it was built with and the one
    installed is at least the state's ``xgboost_min_version`` (see :data:`XGBOOST_MIN`)."""
    built, need = state.get("xgboost_version"), state.get("xgboost_min_version")
    if not (isinstance(built, str) and isinstance(need, str)):
        raise DataFileError(
            f"{where}: records no xgboost_version / xgboost_min_version, so it "
            "cannot be checked; re-save it with this kit's save()"
        )
    installed = xgb().__version__
    if _version(installed) < _version(need):
        raise DataFileError(
            f"{where}: built with xgboost {built}; xgboost {installed} is installed, "
            f"and versions before {need} load these trees without an error but predict wrong "
            f"numbers. Upgrade: pip install 'xgboost>={need}' (or 'xgboost-cpu>={need}')"
        )


def _version(text: str) -> tuple[int, ...]:
    """'3.1.0rc1' -> (3, 1, 0): the leading numeric release parts."""
    parts = []
    for part in text.split(".")[:3]:
        digits = "".join(itertools.takewhile(str.isdigit, part))
        parts.append(int(digits or 0))
    return tuple(parts)


def fit_target(
    rows: pd.DataFrame,
    target: str,
    columns: Sequence[str],
    params: dict | None = None,
    *,
    seed: int = 0,
    kind: str = "xgb",
) -> TargetModel:
    """Fit preprocessing and a regressor (``make_regressor(kind, params)``) on ``rows``."""
    prep = Preprocessor.fit(rows, columns, [c for c in columns if c in CATEGORICAL])
    model = make_regressor(kind, params, seed)
    model.fit(prep.transform(rows), target_values(rows, target))
    if kind == "xgb":
        model.set_params(n_jobs=1)  # predict on one thread: small inputs, no spin-wait
    return TargetModel(target, prep, model)
