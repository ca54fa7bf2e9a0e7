"""Fitting the backbone's seven constants on training runs (refitted inside every training fold).

All seven are fitted together by robust least squares on the log ratios of predicted to measured
ITL (paper units) and power, one residual per run and target: a soft-L1 loss with scale 0.1 (about
10 %), so a few odd runs do not pull the constants. Bounds keep every constant physical (an
efficiency in (0, 1]: no kernel beats the peak, non-negative overheads and idle power).
"""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np
from scipy.optimize import least_squares

from wattgpu_lite.energy import backbone_runs as T
from wattgpu_lite.energy.backbone import Constants

NAMES = tuple(f.name for f in fields(Constants))
LOWER = {"eta_bw": 0.05, "eta_flops": 0.02, "step_s": 1e-6, "step_per_layer_s": 1e-9,
         "kappa": 0.05, "idle_w": 0.0, "idle_fraction": 0.0}  # fmt: skip
UPPER = {"eta_bw": 1.0, "eta_flops": 1.0, "step_s": 0.05, "step_per_layer_s": 1e-3,
         "kappa": 10.0, "idle_w": 200.0, "idle_fraction": 0.8}  # fmt: skip
LOSS_SCALE = 0.1  # soft-L1: quadratic below ~10 % error, linear above


def log_residuals(ts: T.TrainingSet, c: Constants) -> np.ndarray:
    """ln(predicted / measured) of ITL then power, one per run each."""
    pred = T.paper_units(T.physics(ts, c), ts.loads.offline)
    return np.concatenate([np.log(pred[t] / ts.target(t)) for t in ("itl", "power")])


def fit_constants(ts: T.TrainingSet, start: Constants | None = None) -> Constants:
    """The constants minimising the soft-L1 loss of :func:`log_residuals` on ``ts``."""
    start = Constants() if start is None else start
    x0 = np.array([getattr(start, n) for n in NAMES], dtype=float)
    lo = np.array([LOWER[n] for n in NAMES])
    hi = np.array([UPPER[n] for n in NAMES])
    x0 = np.clip(x0, lo + 1e-12, hi)

    def residuals(x: np.ndarray) -> np.ndarray:
        return log_residuals(ts, replace(start, **dict(zip(NAMES, x, strict=True))))

    fit = least_squares(residuals, x0, bounds=(lo, hi), loss="soft_l1", f_scale=LOSS_SCALE,
                        x_scale=np.abs(x0) + 1e-6)  # fmt: skip
    return Constants(**{n: float(v) for n, v in zip(NAMES, fit.x, strict=True)})
