"""Figures of notebook 04's evaluation: which runs each fold holds out (in the style of
scikit-learn's "Visualizing cross-validation behavior"), and ours beside the paper's.

Re-exported by :mod:`wattgpu_lite.face.plots` through :mod:`wattgpu_lite.face.plots_wattgpu`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import to_rgb
from matplotlib.patches import Patch

from wattgpu_lite.face.labels import label
from wattgpu_lite.face.style import MEASURED_ORDER, gpu_color, legend_outside, log_ticks, takeaway

# train and test in greys and black: no GPU colour of the strip below may be mistaken for them
ROLE_COLORS = {"train": "#e8e8e8", "test": "#1a1a1a"}
MAX_PANEL_ROWS = 10  # a panel of more folds (LOLO: one per LLM) is drawn no taller than this
READING_NAMES = {r: label(r) for r in ("all", "paper_7gpu", "paper")}
# ours in black and dark grey, the paper in light grey: a GPU's blue here would read as that GPU
READING_COLORS = {
    "ours, all GPUs": "#1a1a1a",
    "ours, paper's 7 GPUs": "#6e6e6e",
    "paper": "#c4c4c4",
}


def _strip_image(matrix: pd.DataFrame) -> np.ndarray:
    """RGB rows: one per fold (train/test colour per run), a gap, then the run's GPU colour."""
    roles = matrix.pivot(index="fold", columns="position", values="role")
    gpus = matrix[matrix["fold"] == matrix["fold"].min()].sort_values("position")["gpu"]
    rows = [[to_rgb(ROLE_COLORS[r]) for r in roles.loc[k]] for k in roles.index]
    rows += [[(1.0, 1.0, 1.0)] * roles.shape[1], [to_rgb(gpu_color(g)) for g in gpus]]
    return np.asarray(rows)


def fold_maps(matrices: dict[str, pd.DataFrame], titles: dict[str, str] | None = None):
    """One panel per strategy (a ``studies.split_matrix`` table each): a row per fold, a column
    per run (runs ordered by GPU, then LLM), black where the run is tested; the bottom strip
    is the run's GPU. Legend: train, test and the GPU colours. A panel of many folds is
    squeezed to ``MAX_PANEL_ROWS`` rows of height."""
    heights = [min(m["fold"].nunique(), MAX_PANEL_ROWS) + 2 for m in matrices.values()]
    fig, axes = plt.subplots(
        len(matrices),
        1,
        figsize=(10, 0.16 * sum(heights) + 1.2 * len(heights)),
        gridspec_kw={"height_ratios": heights},
    )
    for ax, (name, matrix) in zip(np.atleast_1d(axes), matrices.items(), strict=True):
        image = _strip_image(matrix)
        ax.imshow(image, aspect="auto", interpolation="nearest")
        n = image.shape[0] - 2
        ticks = [0, n - 1] if n > 10 else list(range(n))
        ax.set_yticks([*ticks, n + 1], [*(f"fold {k + 1}" for k in ticks), "GPU"])
        ax.set(xlabel="", xticks=[])
        ax.grid(False)
        takeaway(ax, (titles or {}).get(name, name), 110)
    np.atleast_1d(axes)[-1].set_xlabel("runs, ordered by GPU, then LLM, then scenario")
    handles = [
        Patch(color=c, label=f"{r}ing set" if r == "train" else "test set")
        for r, c in ROLE_COLORS.items()
    ]
    handles += [Patch(color=gpu_color(g), label=g) for g in MEASURED_ORDER]
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 0.98))
    fig.tight_layout()
    return fig


def readings_bars(table: pd.DataFrame, metric: str = "mdape_pct", ax=None, log: bool = True):
    """A ``studies.readings`` table as bars: per (model, strategy, scenario) cell, ours on all
    GPUs, ours on the paper's 7 GPUs, and the paper's number."""
    rows = table[table["metric"] == metric]
    long = rows.assign(cell=_cells(rows)).melt(
        "cell", [c for c in READING_NAMES if c in rows], "reading", "value"
    )
    long["reading"] = long["reading"].map(READING_NAMES)
    ax = ax or plt.subplots(figsize=(7, 0.45 * rows.shape[0] + 1))[1]
    sns.barplot(data=long, y="cell", x="value", hue="reading", palette=READING_COLORS, ax=ax)
    ax.set(ylabel="", xlabel=label(metric), xscale="log" if log else "linear")
    if log:
        log_ticks(ax, "x")
    legend_outside(ax, "")
    return ax


def _cells(rows: pd.DataFrame) -> pd.Series:
    """ "XGBoost · LOGO · server", "TDP · offline": readable names of the table's cells."""
    parts = rows[["model", "strategy", "scenario"]].map(label).replace("none", "")
    return parts.apply(lambda r: " · ".join(p for p in r if p), axis=1)


def mdape_vs_paper(table: pd.DataFrame, ax=None) -> plt.Axes:
    """Our MdAPE beside the paper's (an ``evaluate`` table), one pair of bars per cell."""
    data = table.assign(metric="mdape_pct", all=table["mdape_pct"], paper=table["paper_mdape_pct"])
    return readings_bars(data, "mdape_pct", ax=ax)
