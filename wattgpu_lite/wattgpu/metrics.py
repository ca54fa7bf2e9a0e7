"""WattGPU's metrics (WattGPU §5), on natural units (W or s), one scenario group at a time.

- MdAPE = median over rows of |pred - true| / |true|, in % (:mod:`wattgpu_lite.metrics`, the
  one copy every chapter imports).
- Pearson r between true and predicted values.
- GPU-ranking Kendall tau: for each (LLM, scenario), average the repeats per GPU, rank the GPUs
  by true and by predicted value, take Kendall's tau-b; report the mean over (LLM, scenario).
  Groups with fewer than two GPUs or a constant truth or prediction are skipped (tau undefined).
- LLM-ranking Kendall tau: the same per (GPU, scenario), ranking LLMs.

A prediction frame has columns llm, gpu, scenario, y_true, y_pred.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wattgpu_lite.errors import require
from wattgpu_lite.metrics import mdape_pct  # the kit's one MdAPE (wattgpu_lite.metrics)

SCENARIO_GROUPS = {"offline": ("offline",), "server": ("server_low", "server_high")}


def _stats():
    """``scipy.stats`` (the ``[train]`` extra; MdAPE needs numpy only)."""
    return require("scipy.stats", "train", "Pearson r and Kendall tau (wattgpu.metrics)")


def pearson_r(y_true, y_pred) -> float:
    """Pearson correlation coefficient; NaN if fewer than 2 rows or a constant input."""
    t, p = np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float)
    if len(t) < 2 or np.std(t) == 0 or np.std(p) == 0:
        return np.nan
    return float(_stats().pearsonr(t, p)[0])


def mean_kendall_tau(
    frame: pd.DataFrame,
    group_cols: Sequence[str],
    rank_col: str,
    true_col: str = "y_true",
    pred_col: str = "y_pred",
) -> float:
    """Mean over groups of Kendall's tau-b between true and predicted ranks of ``rank_col``."""
    means = frame.groupby([*group_cols, rank_col])[[true_col, pred_col]].mean()
    taus = []
    for _, g in means.groupby(level=list(range(len(group_cols)))):
        if len(g) < 2 or g[true_col].nunique() < 2 or g[pred_col].nunique() < 2:
            continue
        tau = _stats().kendalltau(g[true_col], g[pred_col])[0]
        if np.isfinite(tau):
            taus.append(tau)
    return float(np.mean(taus)) if taus else np.nan


def gpu_tau(frame: pd.DataFrame) -> float:
    """GPU-ranking tau: groups (llm, scenario), ranking GPUs."""
    return mean_kendall_tau(frame, ["llm", "scenario"], "gpu")


def llm_tau(frame: pd.DataFrame) -> float:
    """LLM-ranking tau: groups (gpu, scenario), ranking LLMs."""
    return mean_kendall_tau(frame, ["gpu", "scenario"], "llm")


def group_metrics(frame: pd.DataFrame) -> dict:
    """All metrics of one scenario group's rows, plus absolute errors in natural units."""
    err = (frame["y_pred"] - frame["y_true"]).abs()
    return {
        "mdape_pct": mdape_pct(frame["y_true"], frame["y_pred"]),
        "pearson_r": pearson_r(frame["y_true"], frame["y_pred"]),
        "gpu_tau": gpu_tau(frame),
        "llm_tau": llm_tau(frame),
        "median_abs_error": float(err.median()),
        "mean_abs_error": float(err.mean()),
        "n_runs": len(frame),
    }


def scenario_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per scenario group (offline; server = server_low + server_high pooled)."""
    rows = [
        {"scenario": name, **group_metrics(frame[frame["scenario"].isin(members)])}
        for name, members in SCENARIO_GROUPS.items()
    ]
    return pd.DataFrame(rows)
