"""Figures of the WattGPU notebooks (03 data and features, 04 leave-one-out training).

Each function takes a tidy DataFrame from the library and returns a matplotlib Figure or Axes.
Re-exported by :mod:`wattgpu_lite.face.plots`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

SCENARIO_ORDER = ["offline", "server_high", "server_low"]


def coverage_heatmap(runs: pd.DataFrame) -> plt.Figure:
    """Runs per (LLM, GPU): which pairs were measured (blank = did not fit or not run)."""
    counts = runs.pivot_table(index="llm", columns="gpu", values="power_w", aggfunc="size")
    fig, ax = plt.subplots(figsize=(7, 9))
    sns.heatmap(
        counts, annot=True, fmt=".0f", cmap="Blues", cbar=False, ax=ax, annot_kws={"size": 6}
    )
    ax.set(xlabel="GPU", ylabel="", title="Runs per (LLM, GPU), all three scenarios")
    ax.tick_params(labelsize=7)
    return fig


def power_scale_invariance(frame: pd.DataFrame) -> plt.Figure:
    """Mean power in watts vs as a fraction of TDP, per GPU and scenario (why P/TDP)."""
    data = frame.assign(power_over_tdp=frame["power_w"] / frame["tdp_w"])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, col, label in zip(
        axes, ["power_w", "power_over_tdp"], ["P [W]", "P / TDP"], strict=True
    ):
        sns.boxplot(data=data, y="gpu", x=col, hue="scenario", hue_order=SCENARIO_ORDER, ax=ax,
                    fliersize=1)  # fmt: skip
        ax.set(xlabel=label, ylabel="")
    axes[0].get_legend().remove()
    fig.tight_layout()
    return fig


def power_vs_load(frame: pd.DataFrame) -> plt.Axes:
    """Mean P/TDP per GPU as the load goes from server_low to server_high to offline."""
    order = ["server_low", "server_high", "offline"]
    data = frame.assign(power_over_tdp=frame["power_w"] / frame["tdp_w"])
    mean = data.groupby(["gpu", "scenario"])["power_over_tdp"].mean().reset_index()
    _, ax = plt.subplots(figsize=(6, 4))
    sns.pointplot(data=mean, x="scenario", y="power_over_tdp", hue="gpu", order=order, ax=ax)
    ax.set(xlabel="load (0.017 req/s, 0.33 req/s, 1,000 prompts at once)", ylabel="mean P / TDP")
    ax.legend(fontsize=7, ncols=2)
    return ax


def itl_vs_bandwidth_latency(frame: pd.DataFrame) -> plt.Axes:
    """Measured ITL vs the time to read the weights once (log-log); y = x is the memory bound."""
    _, ax = plt.subplots(figsize=(6, 5))
    sns.scatterplot(data=frame, x="bandwidth_latency_s", y="itl_s", hue="scenario", s=8,
                    hue_order=SCENARIO_ORDER, ax=ax, linewidth=0)  # fmt: skip
    lo, hi = frame["bandwidth_latency_s"].min(), frame["bandwidth_latency_s"].max()
    ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="ITL = 2N / BW")
    ax.set(xscale="log", yscale="log", xlabel="bandwidth latency 2N/BW [s]", ylabel="ITL [s]")
    ax.legend(fontsize=8)
    return ax


def fold_maps(assignments: dict[str, pd.DataFrame]) -> plt.Figure:
    """One panel per strategy: each (LLM, GPU) cell coloured by the fold that tests it."""
    fig, axes = plt.subplots(1, len(assignments), figsize=(4 * len(assignments), 7), sharey=True)
    for ax, (name, table) in zip(np.atleast_1d(axes), assignments.items(), strict=True):
        grid = table.pivot(index="llm", columns="gpu", values="fold")
        sns.heatmap(grid, cmap="tab20", cbar=False, ax=ax, linewidths=0.2)
        ax.set(title=f"{name}: {int(table['fold'].max()) + 1} folds", xlabel="", ylabel="")
        ax.tick_params(labelsize=6)
    fig.tight_layout()
    return fig


def importance_bars(summary: pd.DataFrame, title: str, ax=None) -> plt.Axes:
    """Mean gain importance over folds, with the spread across folds as error bars."""
    ax = ax or plt.subplots(figsize=(5, 4))[1]
    ax.barh(summary["feature"], summary["gain_mean"], xerr=summary["gain_std"], color="steelblue")
    ax.invert_yaxis()
    ax.set(xlabel="gain importance (mean over folds)", title=title)
    return ax


def predicted_vs_measured(pred: pd.DataFrame, unit: str, log: bool = False) -> sns.FacetGrid:
    """Out-of-fold predictions vs measurements, one panel per held-out GPU."""
    g = sns.relplot(data=pred, x="y_true", y="y_pred", hue="scenario", col="gpu", col_wrap=4,
                    hue_order=SCENARIO_ORDER, s=8, height=2.4, linewidth=0)  # fmt: skip
    for ax in g.axes.flat:
        lo, hi = pred["y_true"].min(), pred["y_true"].max()
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
        if log:
            ax.set(xscale="log", yscale="log")
    g.set_axis_labels(f"measured [{unit}]", f"predicted [{unit}]")
    return g


def mdape_vs_paper(table: pd.DataFrame, ax=None) -> plt.Axes:
    """Our MdAPE beside the paper's, one pair of bars per (model, strategy, scenario)."""
    data = table.assign(cell=table["model"] + " " + table["strategy"] + " " + table["scenario"])
    long = data.melt("cell", ["mdape_pct", "paper_mdape_pct"], var_name="who", value_name="MdAPE %")
    ax = ax or plt.subplots(figsize=(6, 4))[1]
    sns.barplot(data=long, y="cell", x="MdAPE %", hue="who", ax=ax)
    ax.set(ylabel="", xscale="log")
    return ax
