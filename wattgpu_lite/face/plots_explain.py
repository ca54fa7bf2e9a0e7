"""The waterfall of a prediction (``wl.explain``): how the step-time terms build the backbone ITL and
the correction moves it to the prediction, and how idle and busy power build the mean power.

    fig = wl.plots.explain_waterfall(wl.explain(llm, gpu, rate_qps=0.5))

Also the figures of ``predict --plot`` (:func:`prediction_bars`: power, ITL and energy per token
with their intervals) and ``estimate --plot`` (:func:`energy_breakdown`: a request's energy by
component and phase). Matplotlib only (the CLI draws them without seaborn).
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt

from wattgpu_lite.energy.result import EnergyEstimate
from wattgpu_lite.face.labels import BASIS, label
from wattgpu_lite.face.style import WIDE_FIGSIZE
from wattgpu_lite.hybrid.predict.explain import Explanation
from wattgpu_lite.hybrid.predict.prediction import Prediction

# the words a step-time term carries on the figure (never a raw key)
TERM_LABELS = {
    "memory": "memory\n(bandwidth)",
    "compute": "compute",
    "power limit": "power\nlimit",
    "layout": "layout\n(communication)",
    "prompt": "prompt\nshare",
    "fixed": "fixed\ncost",
}
UP, DOWN, TOTAL = "#4c72b0", "#c44e52", "0.35"


def _waterfall(ax, steps: list[tuple[str, float]], totals: set[int], scale: float) -> None:
    """Bars that float from the running sum (``totals``: bars drawn from 0 at the sum so far)."""
    level = 0.0
    for k, (_, value) in enumerate(steps):
        if k in totals:
            level = value
            ax.bar(k, value * scale, color=TOTAL)
            top = value
        else:
            bottom = level if value >= 0 else level + value
            ax.bar(k, abs(value) * scale, bottom=bottom * scale, color=UP if value >= 0 else DOWN)
            level += value
            top = max(level, level - value)
        ax.text(
            k,
            top * scale,
            f"{value * scale:+.3g}" if k not in totals else f"{value * scale:.3g}",
            ha="center",
            va="bottom",
        )
    ax.set_xticks(range(len(steps)), [name for name, _ in steps])


def explain_waterfall(x: Explanation) -> plt.Figure:
    """Two panels: ITL (ms) from its step-time terms through the correction to the prediction,
    the hard floor dashed; mean power (W) from idle through the busy share and the correction,
    the replica's TDP dashed. Bars up are blue, down red, totals grey."""
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(WIDE_FIGSIZE[0], 4.6), gridspec_kw={"width_ratios": [3, 2]}
    )
    itl = x.corrections["itl"]
    steps = [
        (TERM_LABELS[k], x.step_terms_s[k])
        for k in (x.roofline, "layout", "prompt", "fixed")
        if x.step_terms_s[k] > 0 or k == x.roofline
    ]
    steps += [
        ("physics\nstep time", x.backbone_step_s),
        ("correction", itl.final - itl.backbone),
        ("predicted\nITL", itl.final),
    ]
    n = len(steps)
    _waterfall(left, steps, {n - 3, n - 1}, 1e3)
    left.axhline(x.floor_s * 1e3, color="black", ls="--", lw=1.0)
    # under the line in the correction's column: that bar floats on the prediction, which is held
    # at or above the floor, so nothing is drawn there (at the left edge it ran over the first bar)
    left.annotate(
        "hard floor",
        (n - 2, x.floor_s * 1e3),
        xytext=(0, -3),
        textcoords="offset points",
        va="top",
        ha="center",
    )
    left.set(ylabel="ITL (ms)")
    top_ms = max(x.backbone_step_s, itl.final, x.floor_s) * 1e3
    left.set_ylim(0, top_ms * 1.15)  # room for the values above the bars
    power = x.corrections["power"]
    busy_share = x.backbone_power_w - x.idle_power_w
    psteps = [
        ("idle", x.idle_power_w),
        ("busy share", busy_share),
        ("physics\npower", x.backbone_power_w),
        ("correction", power.final - power.backbone),
        ("predicted\npower", power.final),
    ]
    _waterfall(right, psteps, {0, 2, 4}, 1.0)
    right.axhline(x.replica_tdp_w, color="black", ls="--", lw=1.0)
    right.text(-0.4, x.replica_tdp_w, "TDP", va="bottom", ha="left")
    right.set(ylabel="mean power (W)")
    right.set_ylim(0, max(x.replica_tdp_w, power.final) * 1.15)
    i = x.inputs
    load = f"{i.rate_qps:g} req/s" if i.rate_qps is not None else f"batch {i.batch:g}"
    bound = f"; held at the {itl.bound}" if itl.bound else ""
    title = (
        f"{i.llm} on {i.gpu} at {load}: the step is bound by {x.binding}; "
        f"correction x{itl.factor:.2f} on ITL{bound}, x{power.factor:.2f} on power"
    )
    fig.suptitle("\n".join(textwrap.wrap(title, 95)), x=0.01, ha="left")
    fig.tight_layout()
    return fig


# predict --plot: each quantity's panel (attribute, scale, axis label)
PREDICTION_PANELS = (("power_w", 1.0, "mean power (W)"), ("itl_s", 1e3, "ITL (ms)"),
                     ("energy_per_token_j", 1.0, "energy per generated token (J)"))  # fmt: skip
PHASE_COLORS = {"prefill": "#dd8452", "decode": UP}


def _title(fig, text: str) -> None:
    fig.suptitle("\n".join(textwrap.wrap(text, 95)), x=0.01, ha="left")


def prediction_bars(p: Prediction) -> plt.Figure:
    """Three panels, one bar each: mean power (W), ITL (ms) and energy per generated token (J),
    each with its interval as a whisker and the interval's ends written beside it."""
    fig, axes = plt.subplots(1, len(PREDICTION_PANELS), figsize=(WIDE_FIGSIZE[0], 3.6))
    for ax, (q, scale, ylabel) in zip(axes, PREDICTION_PANELS, strict=True):
        value, interval = getattr(p, q) * scale, getattr(p, f"{q}_interval")
        lo, hi = interval.lo * scale, interval.hi * scale
        ax.bar(0, value, width=0.5, color=UP)
        ax.errorbar(0, value, yerr=[[value - lo], [hi - value]], color="black", capsize=8, lw=1.2)
        ax.text(0.3, value, f"{value:.3g}\n[{lo:.3g}, {hi:.3g}]", va="center", ha="left")
        ax.set(xlim=(-0.6, 1.2), ylim=(0, hi * 1.15), ylabel=ylabel)
        ax.set_xticks([])
    i = p.inputs
    load = f"{i.rate_qps:g} req/s" if i.rate_qps is not None else f"batch {i.batch:g}"
    _title(
        fig,
        f"{i.llm} on {i.gpu} at {load}, {i.t_in} prompt / {i.t_out} generated tokens: "
        f"{p.power_w_interval.level:.0%} intervals, "
        f"{BASIS.get(p.power_w_interval.basis, p.power_w_interval.basis)}",
    )
    fig.tight_layout()
    return fig


def energy_breakdown(est: EnergyEstimate) -> plt.Figure:
    """Horizontal bars of a request's energy (J) by component, split into prefill and decode,
    the total in the title."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    comps = list(est.components_j)
    left = [0.0] * len(comps)
    for phase in dict.fromkeys(ph for ph, _, _ in est.terms):
        by = dict.fromkeys(comps, 0.0)
        for ph, comp, value in est.terms:
            by[comp] += value if ph == phase else 0.0
        widths = [by[c] for c in comps]
        ax.barh(
            [label(c) for c in comps],
            widths,
            left=left,
            label=label(phase),
            color=PHASE_COLORS.get(phase),
        )
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.invert_yaxis()
    ax.set(xlabel="energy per request (J)")
    ax.legend(loc="lower right")
    _title(fig, f"{est.header()}: {est.total_j:.3g} J = {est.total_wh:.3g} Wh per request")
    fig.tight_layout()
    return fig
