"""Building blocks of the hybrid models: a linear physics stage and numeric-only preprocessing."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

from wattgpu_lite.hybrid.load import is_batch_mode
from wattgpu_lite.wattgpu.preprocessing import Preprocessor

RIDGE_ALPHA = 1.0  # L2 penalty of the linear stage (inputs are O(1) logs; a light touch)


@dataclass
class LinearStage:
    """Ridge y ≈ w·φ + b fitted per load mode ("batch", "rate") and on all rows ("all", used
    for a mode absent from training). ``coefs``: mode -> [b, w_1, ..., w_k]."""

    columns: tuple[str, ...]
    coefs: dict[str, list[float]] = field(default_factory=dict)

    def fit(self, frame: pd.DataFrame, y: np.ndarray) -> LinearStage:
        if not self.columns:
            return self
        x, batch = frame[list(self.columns)].to_numpy(dtype=float), is_batch_mode(frame)
        for mode, rows in (("all", np.ones(len(y), bool)), ("batch", batch), ("rate", ~batch)):
            if rows.any():
                r = Ridge(alpha=RIDGE_ALPHA).fit(x[rows], y[rows])
                self.coefs[mode] = [float(r.intercept_), *map(float, r.coef_)]
        return self

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        if not self.columns:
            return np.zeros(len(frame))
        x, batch = frame[list(self.columns)].to_numpy(dtype=float), is_batch_mode(frame)
        c = {m: np.asarray(self.coefs.get(m, self.coefs["all"])) for m in ("batch", "rate")}
        return np.where(batch, c["batch"][0] + x @ c["batch"][1:], c["rate"][0] + x @ c["rate"][1:])


def numeric_only(rows: pd.DataFrame, cols: tuple[str, ...]) -> Preprocessor:
    """The paper's numeric preprocessing (mean impute, standardise) when there is no text input."""
    x = rows[list(cols)].to_numpy(dtype=float)
    mean = np.nanmean(x, axis=0)
    scale = np.nanstd(np.where(np.isnan(x), mean, x), axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    fl = tuple(float(v) for v in mean)
    return Preprocessor(cols, cols, (), fl, fl, tuple(float(v) for v in scale), (), ())
