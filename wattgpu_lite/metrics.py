"""The error metrics both chapters score with (WattGPU's evaluation, the hybrid's protocol and
report, the energy validation, the source agreement of selection), at the bottom of the layering so
every chapter imports the one copy.

Arguments are always ``(y_true, y_pred)`` — the truth first, as scikit-learn orders them:

    ape_pct([100, 10], [110, 9])     # -> array([10., 10.])   |pred - true| / |true| · 100
    mdape_pct([100, 10], [110, 9])   # -> 10.0                the median of ape_pct

Rows whose truth is zero (no percentage) or whose truth or prediction is not finite are skipped by
``mdape_pct``; with none left it is NaN.
"""

from __future__ import annotations

import numpy as np

ZERO_TRUTH = 1e-12  # |true| at or below this has no percentage error


def ape_pct(y_true, y_pred) -> np.ndarray:
    """Absolute percentage error per row [%]: |pred - true| / |true| · 100 (NaN where the truth
    is zero or either value is not finite). Accepts lists, arrays or Series; returns an array."""
    t, p = np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float)
    if t.shape != p.shape:
        raise ValueError(f"y_true and y_pred differ in shape: {t.shape} vs {p.shape}")
    ok = np.isfinite(t) & np.isfinite(p) & (np.abs(t) > ZERO_TRUTH)
    out = np.full(t.shape, np.nan)
    out[ok] = np.abs(p[ok] - t[ok]) / np.abs(t[ok]) * 100.0
    return out


def mdape_pct(y_true, y_pred) -> float:
    """Median absolute percentage error [%]: the median of :func:`ape_pct` over the rows it
    scores; NaN when there are none."""
    ape = ape_pct(y_true, y_pred)
    ape = ape[np.isfinite(ape)]
    return float(np.median(ape)) if ape.size else float("nan")
