"""Fitting physical mode's two constants (kappa, static_fraction) by grid search on MdAPE.

Used by :mod:`energy_validation`: on all eight GPUs for the library defaults (``calibrate``) and
leave-one-GPU-out for the validation table. static_fraction is fitted on server_low runs (idle-
dominated), kappa on offline runs (dynamic-dominated), alternating twice.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

KAPPA_RANGE, STATIC_RANGE = (0.5, 6.0, 0.01), (0.02, 0.8, 0.005)  # (low, high, final step)


def mdape_pct(pred, true) -> float:
    """Median absolute percentage error, median(|pred − true| / true) × 100."""
    return float(np.median(np.abs(pred - true) / true) * 100)


def grid_min(err: Callable[[float], float], low: float, high: float, step: float) -> float:
    """Argmin of ``err`` on a grid: 10×step coarse, then ``step`` within ±10 steps of the best."""
    coarse = np.arange(low, high + step / 2, 10 * step)
    best = coarse[int(np.argmin([err(x) for x in coarse]))]
    fine = np.round(np.arange(max(low, best - 10 * step), min(high, best + 10 * step) + step / 2,
                              step), 4)  # fmt: skip
    return float(fine[int(np.argmin([err(x) for x in fine]))])


def fit_constants(predict, true_j: np.ndarray, offline: np.ndarray) -> dict[str, float]:
    """{kappa, static_fraction}: ``predict(mask, kappa, static_fraction)`` -> J/token of rows mask.

    static_fraction on the server_low rows, then kappa on the offline rows (min MdAPE), twice.
    """
    kappa, frac = 1.0, 0.13
    low, off = ~offline, offline
    for _ in range(2):
        frac = grid_min(lambda f, k=kappa: mdape_pct(predict(low, k, f), true_j[low]),
                        *STATIC_RANGE)  # fmt: skip
        kappa = grid_min(lambda k, f=frac: mdape_pct(predict(off, k, f), true_j[off]),
                         *KAPPA_RANGE)  # fmt: skip
    return {"kappa": kappa, "static_fraction": frac}
