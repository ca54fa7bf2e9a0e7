"""Fitting the correction forest (XGBoost), kept apart so predicting never imports XGBoost."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xgboost import XGBRegressor

from wattgpu_lite.hybrid.predict.correction import (
    MONOTONE_DOWN,
    MONOTONE_UP,
    TARGET_CLIP,
    Correction,
)


def fit(x: np.ndarray, residual: np.ndarray, columns: Sequence[str], bound: float,
        params: dict, families: Sequence[str] = (), seed: int = 0) -> Correction:  # fmt: skip
    """Fit the forest on clipped log residuals ln(y / y_physics) with the monotone constraints."""
    cons = tuple(1 if c in MONOTONE_UP else -1 if c in MONOTONE_DOWN else 0 for c in columns)
    model = XGBRegressor(**params, monotone_constraints=cons, random_state=seed, n_jobs=1)
    model.fit(x, np.clip(residual, -TARGET_CLIP, TARGET_CLIP))
    text = model.get_booster().save_raw("json").decode()
    return Correction(tuple(columns), float(bound), tuple(families), text)
