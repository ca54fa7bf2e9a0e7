"""Prediction intervals by split conformal prediction on grouped out-of-fold residuals.

Score of a calibration row: s = |ln(y_true / y_pred)| (relative, so the interval scales with the
prediction). For a level 1 − α the quantile is the k-th smallest of the n scores,
k = ⌈(n + 1)(1 − α)⌉ (Vovk et al.; Lei et al. 2018), and the interval is
[ŷ · e^(−q), ŷ · e^(+q)]. If the scores are exchangeable with the new one, coverage ≥ 1 − α.

The residuals must come from the situation being predicted (the "basis"):
``logo`` (leave one GPU out) for a GPU not in the training runs, ``lolo`` (leave one LLM out) for
an LLM not in them, ``cv`` (pairs held out) when both were seen, and the wider of ``logo`` and
``lolo`` when neither was. Scores are kept per scenario group (offline = a batch; server = a
rate), since their errors differ (Mondrian conformal).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from wattgpu_lite.errors import InvalidInputError

BASES = ("cv", "logo", "lolo")
BOTH_UNSEEN = "logo+lolo"


def check_level(level: float) -> float:
    """A coverage level strictly between 0 and 1."""
    if not (isinstance(level, int | float) and 0 < level < 1):
        raise InvalidInputError(f"level must be in (0, 1), e.g. 0.8 or 0.9; got {level!r}")
    return float(level)


def conformal_quantile(scores, level: float) -> float:
    """k-th smallest score, k = ⌈(n + 1) · level⌉; +inf if k > n (too few scores)."""
    s = np.sort(np.asarray(scores, dtype=float))
    k = math.ceil((len(s) + 1) * check_level(level))
    return float(s[k - 1]) if k <= len(s) else math.inf


def bounds(y_pred, q: float) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) = (ŷ · e^(−q), ŷ · e^(+q)) for a relative score quantile q."""
    y = np.asarray(y_pred, dtype=float)
    return y * np.exp(-q), y * np.exp(q)


def basis_for(llm_seen: bool, gpu_seen: bool) -> str:
    """Which residuals apply: cv (both seen), logo (new GPU), lolo (new LLM), logo+lolo."""
    if llm_seen and gpu_seen:
        return "cv"
    if llm_seen:
        return "logo"
    return "lolo" if gpu_seen else BOTH_UNSEEN


def scenario_group(batch_mode) -> np.ndarray:
    """'offline' for rows at a fixed batch, 'server' for rows at an arrival rate."""
    return np.where(np.asarray(batch_mode, dtype=bool), "offline", "server")


def group_scores(oof: pd.DataFrame) -> dict[str, np.ndarray]:
    """Sorted |log residual| per scenario group of an out-of-fold table."""
    groups = scenario_group(oof["scenario"].eq("offline"))
    s = oof["log_residual"].abs().to_numpy()
    return {g: np.sort(s[groups == g]) for g in ("offline", "server")}


def nested_coverage(oof: pd.DataFrame, level: float) -> pd.DataFrame:
    """Empirical coverage per scenario group when each fold (a held-out GPU or LLM) is
    calibrated only on the other folds' residuals: fraction of rows with |r| ≤ q_(−fold)."""
    groups = scenario_group(oof["scenario"].eq("offline"))
    s, fold = oof["log_residual"].abs().to_numpy(), oof["fold"].to_numpy()
    covered, width = np.zeros(len(s), bool), np.zeros(len(s))
    for g in ("offline", "server"):
        for k in np.unique(fold[groups == g]):
            test, calib = (groups == g) & (fold == k), (groups == g) & (fold != k)
            q = conformal_quantile(s[calib], level)
            covered[test], width[test] = s[test] <= q, 2 * np.sinh(q)
    rows = [{"scenario": g, "level": level, "coverage": covered[groups == g].mean(),
             "median_width_rel": float(np.median(width[groups == g]))} for g in ("offline", "server")]  # fmt: skip
    return pd.DataFrame(rows)
