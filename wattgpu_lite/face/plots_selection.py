"""Figures of choosing a GPU (notebook 05, the dashboard): plans against the SLA, energy per GPU,
the pick as the SLA loosens. Each GPU keeps its colour (:mod:`wattgpu_lite.face.style`); a plan
that misses the SLA is drawn hollow (dots) or hatched (bars)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, MaxNLocator

from wattgpu_lite.face.explorer import plan_labels
from wattgpu_lite.face.style import WIDE_FIGSIZE, gpu_color, log_ticks, takeaway
from wattgpu_lite.selection.verdict import (
    DOES_NOT_FIT,
    MAY_MEET,
    MEETS,
    MISSES,
    NOT_ANSWERED,
    sla_verdicts,
)

LOG_SPAN = 20.0  # an axis whose values span more than this factor is drawn on a log scale
MEETS_MARK = Line2D([], [], marker="o", ls="", color="0.3", label="meets the SLA")
MISSES_MARK = Line2D([], [], marker="o", ls="", color="0.3", mfc="white", label="misses the SLA")
# with an ITL interval: filled, half-filled, hollow (selection.verdict names the rule); a plan
# that does not fit or is not answered has no dot (plan_bars leaves it out)
FILL = {MEETS: "full", MAY_MEET: "left", MISSES: "none", NOT_ANSWERED: "none", DOES_NOT_FIT: "none"}
VERDICT_LABELS = {
    MEETS: "meets (at the upper bound)",
    MAY_MEET: "may meet (at the estimate)",
    MISSES: "misses",
}
VERDICT_MARKS = [
    Line2D(
        [],
        [],
        marker="o",
        ls="",
        color="0.3",
        mfc="white" if FILL[v] == "none" else "0.3",
        fillstyle="full" if FILL[v] == "none" else FILL[v],
        mfcalt="white",
        label=text,
    )
    for v, text in VERDICT_LABELS.items()
]


def _whiskers(data: pd.DataFrame, column: str) -> np.ndarray | None:
    """2 x n distances to the interval ends (``column``_lo/_hi), or None without intervals."""
    if f"{column}_lo" not in data:
        return None
    value = data[column].to_numpy(float)
    lo, hi = data[f"{column}_lo"].to_numpy(float), data[f"{column}_hi"].to_numpy(float)
    return np.nan_to_num(np.vstack([value - lo, hi - value]))


def _dots(ax, data: pd.DataFrame, column: str, fills: list[str]) -> None:
    """One dot per plan at ``column``, its interval as a whisker, filled as ``fills`` says; a
    log axis when the values or their intervals span more than ``LOG_SPAN``."""
    y, err = np.arange(len(data)), _whiskers(data, column)
    for k, (value, gpu, fill) in enumerate(zip(data[column], data["gpu"], fills, strict=True)):
        color = gpu_color(gpu)
        ax.errorbar(
            value,
            y[k],
            xerr=None if err is None else err[:, k : k + 1],
            fmt="o",
            color=color,
            mfc=color if fill != "none" else "white",
            fillstyle="full" if fill == "none" else fill,
            mfcalt="white",
            ms=7,
            capsize=3,
            lw=1.2,
        )
    ends = [c for c in (column, f"{column}_lo", f"{column}_hi") if c in data]
    values = data[ends].to_numpy(float).ravel()
    values = values[np.isfinite(values) & (values > 0)]
    if len(values) and values.max() / values.min() > LOG_SPAN:
        ax.set_xscale("log")
        log_ticks(ax, "x")
    else:
        ax.xaxis.set_major_locator(MaxNLocator(6))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.6g}"))


def _fills(data: pd.DataFrame, itl_sla_ms: float) -> tuple[list[str], list[Line2D]]:
    """Marker fills and legend by verdict (:func:`~wattgpu_lite.selection.verdict.sla_verdicts`):
    three kinds with ITL intervals; meets/misses without (the estimate decides)."""
    fills = [FILL[v] for v in sla_verdicts(data, itl_sla_ms)]
    with_intervals = "itl_ms_hi" in data and data["itl_ms_hi"].notna().any()
    return fills, VERDICT_MARKS if with_intervals else [MEETS_MARK, MISSES_MARK]


def plan_bars(
    table: pd.DataFrame, itl_sla_ms: float, title: str | None = None, max_rows: int = 12
) -> plt.Figure:
    """Two panels sharing the plans (rows of a ranking, in its order): ITL with the SLA drawn as
    a dashed line, and energy per 1,000 generated tokens, each with its interval if the table
    has one. With ITL intervals a dot is filled when the plan meets the SLA at the upper bound,
    half-filled at the estimate only, hollow when it misses. Plans that do not fit are left out."""
    data = table.dropna(subset=["energy_per_1k_tokens_j"]).head(max_rows)
    height = 0.36 * max(len(data), 3) + 1.5
    fig, (left, right) = plt.subplots(1, 2, sharey=True, figsize=(WIDE_FIGSIZE[0], height))
    fills, handles = _fills(data, itl_sla_ms)
    _dots(left, data, "itl_ms", fills)
    _dots(right, data, "energy_per_1k_tokens_j", fills)
    left.axvline(itl_sla_ms, color="black", ls="--", lw=1.2)
    left.text(itl_sla_ms, -0.7, f" SLA {itl_sla_ms:g} ms", va="bottom", ha="left")
    left.set_yticks(np.arange(len(data)), plan_labels(data))
    left.set_ylim(len(data) - 0.5, -1.0)
    left.set(xlabel="ITL (ms)")
    right.set(xlabel="GPU energy per 1,000 generated tokens (J)")
    right.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle(title or _default_title(data, itl_sla_ms), x=0.01, ha="left")
    fig.tight_layout()
    return fig


def _default_title(data: pd.DataFrame, itl_sla_ms: float) -> str:
    verdicts = sla_verdicts(data, itl_sla_ms)
    ok = data[verdicts.isin([MEETS, MAY_MEET])]
    if ok.empty:
        return f"No plan meets {itl_sla_ms:g} ms"
    best = plan_labels(ok.head(1))[0]
    verb = "meet" if verdicts[ok.index[0]] == MEETS else "may meet"
    return f"{best}: the least energy among the plans that {verb} {itl_sla_ms:g} ms"


def sla_choice_curve(
    sweep: pd.DataFrame,
    ax: plt.Axes | None = None,
    itl_sla_ms: float | None = None,
    title: str | None = None,
) -> plt.Axes:
    """The least-energy pick's energy as the ITL SLA loosens (a ``selection.sla_sweep`` table),
    each stretch in the colour of its GPU, labelled where it starts; ``itl_sla_ms`` dashed."""
    ax = ax or plt.subplots(figsize=(6.4, 3.4))[1]
    ok = sweep.dropna(subset=["energy_per_1k_tokens_j"]).reset_index(drop=True)
    starts = ok.index[ok["pick"] != ok["pick"].shift()].tolist() + [len(ok) - 1]
    for a, b in zip(starts[:-1], starts[1:], strict=True):
        part = ok.loc[a : min(b, len(ok) - 1)]
        color = gpu_color(ok.loc[a, "pick"])
        ax.step(
            part["itl_sla_ms"], part["energy_per_1k_tokens_j"], where="post", color=color, lw=2.2
        )
        ax.annotate(
            ok.loc[a, "pick"],
            (ok.loc[a, "itl_sla_ms"], ok.loc[a, "energy_per_1k_tokens_j"]),
            textcoords="offset points",
            xytext=(3, 5),
            color=color,
        )
    if itl_sla_ms is not None:
        ax.axvline(itl_sla_ms, color="black", ls="--", lw=1.0)
        ax.annotate(
            f"SLA {itl_sla_ms:g} ms",
            (itl_sla_ms, 1),
            xycoords=("data", "axes fraction"),
            xytext=(3, -3),
            textcoords="offset points",
            va="top",
            ha="left",
        )
    ax.set(xscale="log", xlabel="ITL SLA (ms)", ylabel="energy of the pick\n(J per 1,000 tokens)")
    ax.set_ylim(0, 1.2 * ok["energy_per_1k_tokens_j"].max())  # room for the labels
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.6g}"))
    log_ticks(ax, "x")
    return takeaway(ax, title) if title else ax
