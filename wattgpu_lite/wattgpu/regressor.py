"""One fitted WattGPU target: preprocessing state + XGBoost regressor, in natural units.

Targets (WattGPU §4): ``power`` is P/TDP (so predictions are multiplied back by the GPU's TDP
to give watts); ``itl`` is ln(ITL [s]) (predictions are exponentiated back to seconds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import ElasticNet, LinearRegression
from xgboost import XGBRegressor

from wattgpu_lite.wattgpu.features import CATEGORICAL
from wattgpu_lite.wattgpu.preprocessing import Preprocessor

N_JOBS = 1  # one thread per fit: on a shared 2-core machine 2 threads run ~5x slower (spin-waits)
REGRESSORS = ("xgb", "linear", "elastic_net")


def make_regressor(kind: str = "xgb", params: dict | None = None, seed: int = 0):
    """An unfitted regressor: XGBoost (the paper's), or the linear ones it was compared with."""
    if kind == "xgb":
        return XGBRegressor(**(params or {}), random_state=seed, n_jobs=N_JOBS)
    if kind == "linear":
        return LinearRegression(**(params or {}))
    if kind == "elastic_net":
        return ElasticNet(**{"random_state": seed, **(params or {})})
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
        """Read the XGBoost JSON at ``path`` with its preprocessing ``state``."""
        regressor = XGBRegressor(n_jobs=1)  # one thread: predictions are small and latency-bound
        regressor.load_model(path)
        return cls(target, Preprocessor.from_dict(state), regressor)


def fit_target(
    rows: pd.DataFrame,
    target: str,
    columns: Sequence[str],
    params: dict | None = None,
    seed: int = 0,
    kind: str = "xgb",
) -> TargetModel:
    """Fit preprocessing and a regressor (``make_regressor(kind, params)``) on ``rows``."""
    prep = Preprocessor.fit(rows, columns, [c for c in columns if c in CATEGORICAL])
    model = make_regressor(kind, params, seed)
    model.fit(prep.transform(rows), target_values(rows, target))
    if isinstance(model, XGBRegressor):
        model.set_params(n_jobs=1)  # predict on one thread: small inputs, no spin-wait
    return TargetModel(target, prep, model)
