"""Figures of the WattGPU notebooks (03 data and features, 04 leave-one-out training).

Each function takes a tidy DataFrame from the library and returns a matplotlib Figure or Axes,
drawn in the kit's style (:mod:`wattgpu_lite.face.style`): one colour per GPU, fonts >= 9 pt,
legends off the data, readable log ticks. Re-exported by :mod:`wattgpu_lite.face.plots`.
"""

from __future__ import annotations

import warnings

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from matplotlib import MatplotlibDeprecationWarning

from wattgpu_lite.face.labels import label
from wattgpu_lite.face.plots_folds import fold_maps, mdape_vs_paper, readings_bars  # noqa: F401
from wattgpu_lite.face.style import (
    MIN_FONT_PT,
    gpu_order,
    gpu_palette,
    legend_outside,
    log_ticks,
    readable_texts,
    takeaway,
)

SCENARIO_ORDER = ["offline", "server_high", "server_low"]
LOAD_ORDER = ["server_low", "server_high", "offline"]


def coverage_heatmap(runs: pd.DataFrame) -> plt.Figure:
    """Runs per (LLM, GPU), all three scenarios: which pairs were measured (blank = not run)."""
    counts = runs.pivot_table(index="llm", columns="gpu", values="power_w", aggfunc="size")
    counts = counts[gpu_order(counts.columns)]
    fig, ax = plt.subplots(figsize=(9, 0.26 * len(counts) + 1.6))
    sns.heatmap(
        counts,
        annot=True,
        fmt=".0f",
        cmap="Blues",
        cbar=False,
        ax=ax,
        annot_kws={"size": MIN_FONT_PT},
        linewidths=0.5,
    )
    ax.set(xlabel="", ylabel="")
    ax.xaxis.tick_top()
    ax.tick_params(axis="x", top=False)
    # rotated about their anchor, left-aligned: each name starts above its own column
    plt.setp(ax.get_xticklabels(), rotation=30, ha="left", rotation_mode="anchor")
    takeaway(ax, "Runs per (LLM, GPU): the 16 GB T4 holds only the small models", 70)
    return fig


def power_scale_invariance(frame: pd.DataFrame) -> plt.Figure:
    """Mean power in watts vs as a fraction of TDP, per GPU and scenario (why P/TDP)."""
    data = frame.assign(power_over_tdp=frame["power_w"] / frame["tdp_w"])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, col in zip(axes, ["power_w", "power_over_tdp"], strict=True):
        with warnings.catch_warnings():  # seaborn 0.13 passes matplotlib 3.11 a deprecated `vert`
            warnings.simplefilter("ignore", MatplotlibDeprecationWarning)
            sns.boxplot(
                data=data,
                y="gpu",
                x=col,
                hue="scenario",
                hue_order=SCENARIO_ORDER,
                ax=ax,
                order=gpu_order(data["gpu"]),
                fliersize=1,
            )
        ax.set(xlabel=label(col), ylabel="")
    axes[0].get_legend().remove()
    legend_outside(axes[1])
    readable_texts(axes[1])
    takeaway(axes[0], "In watts the GPUs live apart ...")
    takeaway(axes[1], "... as a fraction of TDP they share one scale")
    fig.tight_layout()
    return fig


def power_vs_load(frame: pd.DataFrame) -> plt.Axes:
    """Mean P/TDP per GPU as the load goes from server_low to server_high to offline."""
    data = frame.assign(power_over_tdp=frame["power_w"] / frame["tdp_w"])
    mean = data.groupby(["gpu", "scenario"])["power_over_tdp"].mean().reset_index()
    _, ax = plt.subplots(figsize=(7.5, 4))
    sns.pointplot(
        data=mean,
        x="scenario",
        y="power_over_tdp",
        hue="gpu",
        order=LOAD_ORDER,
        hue_order=gpu_order(mean["gpu"]),
        palette=gpu_palette(mean["gpu"]),
        ax=ax,
    )
    ax.set(xlabel="load", ylabel="mean P / TDP")
    readable_texts(ax)
    ax.tick_params(axis="x", labelsize=MIN_FONT_PT)
    legend_outside(ax, "GPU")
    takeaway(ax, "More load, more power on every GPU, by a GPU-specific amount")
    return ax


def itl_vs_bandwidth_latency(frame: pd.DataFrame) -> plt.Axes:
    """Measured ITL vs the time to read the weights once (log-log); y = x is the memory bound."""
    _, ax = plt.subplots(figsize=(7, 5))
    sns.scatterplot(
        data=frame,
        x="bandwidth_latency_s",
        y="itl_s",
        hue="scenario",
        s=8,
        hue_order=SCENARIO_ORDER,
        ax=ax,
        linewidth=0,
    )
    lo, hi = frame["bandwidth_latency_s"].min(), frame["bandwidth_latency_s"].max()
    (bound,) = ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="memory bound: ITL = 2N / BW")
    ax.set(xscale="log", yscale="log", xlabel="bandwidth latency 2N / BW (s)", ylabel="ITL (s)")
    log_ticks(ax)
    # seaborn's legend was drawn before the line: add the bound to it
    legend = ax.get_legend()
    texts = [t.get_text() for t in legend.texts]
    ax.legend([*legend.legend_handles, bound], [*texts, bound.get_label()])
    legend_outside(ax)
    readable_texts(ax)
    takeaway(
        ax,
        "Server ITL sits above the memory bound, far above for small models; offline "
        "batching goes far below",
    )
    return ax


def importance_bars(summary: pd.DataFrame, title: str, ax=None) -> plt.Axes:
    """Mean gain importance over folds, with the spread across folds as error bars."""
    ax = ax or plt.subplots(figsize=(5.5, 4))[1]
    names = [label(f) for f in summary["feature"]]
    ax.barh(names, summary["gain_mean"], xerr=summary["gain_std"], color="#0173b2")
    ax.invert_yaxis()
    ax.set(xlabel="gain importance (mean over folds)")
    takeaway(ax, title, 45)
    return ax


def predicted_vs_measured(pred: pd.DataFrame, unit: str, log: bool = False) -> sns.FacetGrid:
    """Out-of-fold predictions vs measurements, one panel per held-out GPU, each on its own
    axes (a 72 W L4 and a 700 W H200 on shared axes would squash the small GPUs)."""
    # the scenarios in words before the grid sizes its legend: relabelled afterwards, the longer
    # texts ran over the right-hand panels' tick labels
    data = pred.assign(scenario=pred["scenario"].map(label))
    g = sns.relplot(
        data=data,
        x="y_true",
        y="y_pred",
        hue="scenario",
        col="gpu",
        col_wrap=4,
        col_order=gpu_order(pred["gpu"]),
        hue_order=[label(s) for s in SCENARIO_ORDER],
        s=8,
        height=2.7,
        linewidth=0,
        facet_kws={"sharex": False, "sharey": False},
    )
    for gpu_name, ax in g.axes_dict.items():
        rows = pred[pred["gpu"] == gpu_name]
        lo, hi = rows[["y_true", "y_pred"]].min().min(), rows[["y_true", "y_pred"]].max().max()
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
        if log:
            ax.set(xscale="log", yscale="log")
            log_ticks(ax)
    g.set_titles("{col_name}")
    g.set_axis_labels(f"measured ({unit})", f"predicted ({unit})")
    return g


def runs_power_vs_itl(runs: pd.DataFrame) -> sns.FacetGrid:
    """Mean GPU power (W) against ITL (ms, log), one panel per scenario, one colour per GPU
    (the kit's palette), each panel on its own ITL axis."""
    data = runs.assign(itl_ms=runs["itl_s"] * 1e3)
    g = sns.relplot(
        data=data,
        x="itl_ms",
        y="power_w",
        hue="gpu",
        col="scenario",
        s=12,
        alpha=0.7,
        col_order=["offline", "server_high", "server_low"],
        hue_order=gpu_order(data["gpu"]),
        palette=gpu_palette(data["gpu"]),
        height=3.4,
        aspect=1.0,
        linewidth=0,
        facet_kws={"sharex": False},
    )
    g.set(xscale="log")
    for ax in g.axes.flat:
        log_ticks(ax, "x")
    for name, ax in g.axes_dict.items():
        ax.set_title(label(name))
    g.set_axis_labels("ITL (ms, log scale)", "mean GPU power (W)")
    g.legend.set_title("GPU")
    return g
