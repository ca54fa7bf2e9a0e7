"""Seaborn figures used by the notebooks. Each function takes tidy data and returns the Axes or Figure.

Plots import the library, never the other way round; no function here computes a number that a test
should check — that lives in the module that owns the quantity.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from wattgpu_lite.face.labels import ESTIMATE_METHODS
from wattgpu_lite.face.plots_explain import explain_waterfall  # noqa: F401  (re-exported: wl.explain)
from wattgpu_lite.face.plots_selection import (  # noqa: F401  (re-exported: notebook 05, dashboard)
    plan_bars,
    sla_choice_curve,
)
from wattgpu_lite.face.plots_wattgpu import (  # noqa: F401  (re-exported: figures of notebooks 03 and 04)
    coverage_heatmap,
    fold_maps,
    importance_bars,
    itl_vs_bandwidth_latency,
    mdape_vs_paper,
    power_scale_invariance,
    power_vs_load,
    predicted_vs_measured,
    readings_bars,
    runs_power_vs_itl,
)
from wattgpu_lite.face.style import (  # noqa: F401  (re-exported: the one figure style, wl.plots.*)
    GPU_PALETTE,
    gpu_color,
    gpu_order,
    gpu_palette,
    label,
    legend_outside,
    log_ticks,
    readable_columns,
    takeaway,
    use_style,
)

# --- energy model (issue 3) -----------------------------------------------------------------------
ENERGY_COLORS = {
    "compute": "#4c72b0",
    "parameter_reads": "#dd8452",
    "kv_writes": "#55a868",
    "attention_reads": "#c44e52",
    "static": "#8c8c8c",
    "communication": "#8172b3",
}


# sweep axes named as the energy model names them (label() would read "t out")
TOKEN_AXES = {"t_out": "generated tokens per request (T_out)", "t_in": "prompt tokens (T_in)"}


def energy_stack(
    tidy: pd.DataFrame, x: str, ax=None, logx: bool = False, title: str = "", legend: bool = True
):
    """Stacked component energy (J per generated token) against ``x`` from a tidy breakdown; the
    components that are zero everywhere are left out, the legend sits right of the axes."""
    ax = ax or plt.subplots(figsize=(6, 3.2), dpi=90)[1]
    wide = tidy.pivot_table(index=x, columns="component", values="energy_per_token_j")
    cols = [c for c in ENERGY_COLORS if c in wide and wide[c].any()]
    ax.stackplot(
        wide.index,
        *(wide[c] for c in cols),
        labels=[label(c) for c in cols],
        colors=[ENERGY_COLORS[c] for c in cols],
    )
    ax.set(
        xlabel=TOKEN_AXES.get(x, label(x)),
        ylabel="J per generated token",
        title=title,
        xscale="log" if logx else "linear",
    )
    if legend:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))  # the style's font size
    return ax


def energy_bars(
    tidy: pd.DataFrame, x: str, ax=None, title: str = "", markers=None, legend: bool = True
):
    """Stacked bars of component energy (J per generated token), one bar per ``x`` value, in the
    order the values first appear in ``tidy``. ``markers``: a Series indexed by ``x`` values,
    drawn as black ticks on the bar of the same label (never by position)."""
    ax = ax or plt.subplots(figsize=(7, 3.2), dpi=90)[1]
    order = list(pd.unique(tidy[x]))
    wide = tidy.pivot_table(
        index=x, columns="component", values="energy_per_token_j", aggfunc="sum", sort=False
    ).reindex(order)
    cols = [c for c in ENERGY_COLORS if c in wide and wide[c].any()]
    wide[cols].rename(columns=label).plot.bar(
        stacked=True, ax=ax, width=0.8, color=[ENERGY_COLORS[c] for c in cols]
    )
    if markers is not None:
        pos = {
            label.get_text(): p
            for label, p in zip(ax.get_xticklabels(), ax.get_xticks(), strict=True)
        }
        xs = [pos[str(label)] for label in markers.index]
        ax.plot(xs, markers.to_numpy(), "k_", ms=14, mew=2, label=markers.name or "marker")
    ax.set(ylabel="J per generated token", title=title)
    if legend:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))  # the style's font size
    else:
        ax.get_legend().remove()
    return ax


def measured_vs_estimated(pred: pd.DataFrame, methods: list[str]):
    """Estimated vs measured J per generated token (log-log), one panel per scenario."""
    long = pred.melt(["gpu", "scenario", "energy_per_token_j"], methods, "method", "estimate_j")
    long["method"] = long["method"].map(lambda m: ESTIMATE_METHODS.get(m, label(m)))
    grid = sns.relplot(
        data=long,
        x="energy_per_token_j",
        y="estimate_j",
        hue="method",
        col="scenario",
        s=8,
        alpha=0.5,
        height=3.0,
        facet_kws={"sharex": False, "sharey": False},
    )
    for ax in grid.axes.flat:
        lo, hi = ax.get_xlim()
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
    grid.set(xscale="log", yscale="log")
    grid.set_axis_labels("measured J/token", "estimated J/token")
    for name, ax in grid.axes_dict.items():
        ax.set_title(label(name))  # server_low -> "server, low load (0.017 req/s)"
        ax.set_ylabel("estimated J/token")  # every panel: each has its own y axis
    grid.legend.set_title("estimate")
    grid.tight_layout()  # room for the second panel's y label
    return grid.figure


def energy_components_bar(table: pd.DataFrame, title: str = ""):
    """Horizontal bars of J per generated token by component (widgets.energy_table output)."""
    ax = plt.subplots(figsize=(6, 2.6), dpi=90)[1]
    colors = [ENERGY_COLORS[c] for c in table["component"]]
    ax.barh(table["component"], table["energy_per_token_j"], color=colors)
    ax.set(xlabel="J per generated token", title=title)
    return ax
