"""The GPU explorer widget (notebook 05, the dashboard). Thin: read the controls into
:class:`~wattgpu_lite.face.explorer.ExplorerControls`, call :func:`explorer_view`, draw.

    from wattgpu_lite.face.widgets import gpu_explorer
    gpu_explorer()   # LLM, GPUs, load, SLA, GPUs per replica, tokens, grid, PUE -> ranking + chart
"""

from __future__ import annotations

import io

import ipywidgets
import matplotlib.pyplot as plt

from wattgpu_lite.face import plots
from wattgpu_lite.face.explorer import (
    GPUS_PER_REPLICA,
    LOADS,
    ExplorerControls,
    explorer_view,
    grid_enabled,
    rate_enabled,
    region_intensity,
    region_options,
    sla_slider_range,
)
from wattgpu_lite.selection import accounting
from wattgpu_lite.selection.accounting import DEFAULT_REGION
from wattgpu_lite.selection.inputs import default_candidates
from wattgpu_lite.specs.catalog import gpus, llms
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

_WIDE = {"description_width": "130px"}


def _controls(llm: str, candidates, itl_sla_ms: float) -> dict:
    names = sorted(llms()["name"])  # dense and mixture-of-experts models alike
    text = {"style": _WIDE, "layout": ipywidgets.Layout(width="300px")}
    wide = {"style": _WIDE, "layout": ipywidgets.Layout(width="520px")}
    return {
        "llm": ipywidgets.Combobox(
            value=llm,
            options=names,
            ensure_option=True,
            description="LLM",
            placeholder="type to search",
            **wide,
        ),
        "gpus": ipywidgets.SelectMultiple(
            options=list(gpus()["name"]),
            value=tuple(candidates),
            rows=12,
            description="candidate GPUs",
            style=_WIDE,
        ),
        "load": ipywidgets.Dropdown(options=LOADS, value="server_low", description="load", **text),
        "rate_qps": ipywidgets.BoundedFloatText(
            value=0.1,
            min=0.001,
            max=1000.0,
            step=0.01,
            description="rate (req/s)",
            disabled=True,
            **text,
        ),
        "itl_sla_ms": ipywidgets.FloatSlider(
            value=itl_sla_ms,
            min=1.0,
            max=200.0,
            step=1.0,
            description="ITL SLA (ms)",
            **wide,
        ),
        "gpus_per_replica": ipywidgets.Dropdown(
            options=GPUS_PER_REPLICA, value="best", description="GPUs per replica", **text
        ),
        "t_in": ipywidgets.BoundedIntText(
            value=DEFAULT_T_IN, min=1, max=1_000_000, description="prompt tokens", **text
        ),
        "t_out": ipywidgets.BoundedIntText(
            value=DEFAULT_T_OUT, min=1, max=1_000_000, description="output tokens", **text
        ),
        "region": ipywidgets.Dropdown(
            options=region_options(),
            value=DEFAULT_REGION,
            description="grid region",
            **wide,
        ),
        "grid_gco2_per_kwh": ipywidgets.FloatSlider(
            value=accounting.DEFAULT_GRID_GCO2_PER_KWH,
            min=0.0,
            max=1000.0,
            step=1.0,
            description="grid (gCO₂e/kWh)",
            disabled=True,
            **wide,
        ),
        "pue": ipywidgets.FloatSlider(
            value=accounting.DEFAULT_PUE,
            min=1.0,
            max=3.0,
            step=0.01,
            description="PUE",
            **wide,
        ),
    }


def _read(c: dict, source: str) -> ExplorerControls:
    values = {name: control.value for name, control in c.items()}
    return ExplorerControls(**{**values, "gpus": tuple(values["gpus"]), "source": source})


def _chart_png(table, itl_sla_ms: float) -> bytes:
    """The plans against the SLA as PNG bytes (an Image widget: nothing leaks into outputs)."""
    fig = plots.plan_bars(table, itl_sla_ms)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    plt.close(fig)
    return buffer.getvalue()


def _sync_slider(slider, load: str, source: str) -> None:
    """Move the SLA slider's range when the load switches its scale (see sla_slider_range)."""
    lo, hi, step, start = sla_slider_range(load, source)
    if (slider.min, slider.max) != (lo, hi):
        with slider.hold_trait_notifications():
            slider.min, slider.max = min(lo, slider.min), max(hi, slider.max)
            slider.step, slider.value = step, start
            slider.min, slider.max = lo, hi


def _sync_grid(box, region: str, quiet: dict) -> None:
    """The grid box shows a region's intensity, greyed out; for the custom number it comes alive
    at the last region's value. Moving it is no change of the user's (``quiet``)."""
    box.disabled = not grid_enabled(region)
    value = region_intensity(region)
    if value is not None:
        quiet["grid"] = True
        try:
            box.value = value
        finally:
            quiet["grid"] = False


def gpu_explorer(
    llm: str = "meta-llama/Llama-3.1-8B-Instruct",
    candidates=None,
    itl_sla_ms: float = 30.0,
    source: str = "hybrid",
) -> ipywidgets.VBox:
    """Rank GPUs (and GPUs per replica) for an LLM under an ITL SLA; redraws the table and the
    chart on every change. ``candidates`` None: the GPUs ``rank_gpus`` tries by default for the
    source (today's for the hybrid, data/current_gpus.csv). ``box.controls`` holds the controls
    by name."""
    chosen = default_candidates(source) if candidates is None else candidates
    c = _controls(llm, chosen, itl_sla_ms)
    message, table = ipywidgets.HTML(), ipywidgets.HTML()
    chart = ipywidgets.Image(format="png", layout=ipywidgets.Layout(width="880px"))
    quiet = {"grid": False}  # the grid box moved to a region's number: no redraw of its own

    def redraw(_=None) -> None:
        if c["llm"].value not in c["llm"].options or quiet["grid"]:
            return  # still typing, or the region's redraw follows
        view = explorer_view(_read(c, source))
        chart.value = _chart_png(view.table, c["itl_sla_ms"].value) if len(view.table) else b""
        html = view.display.to_html(index=False, classes="wl-ranking-table")
        caption = f"<p class='wl-verdicts'>{view.verdicts}</p>" if view.verdicts else ""
        caption += f"<p class='wl-wall'>{view.wall}</p>" if view.wall else ""
        table.value = f"<div class='wl-ranking'>{html}{caption}</div>"  # the wall's inputs below
        message.value = f"<b class='wl-message'>{view.message}</b>"  # last: the page is current

    def on_load(change) -> None:
        c["rate_qps"].disabled = not rate_enabled(change["new"])
        _sync_slider(c["itl_sla_ms"], change["new"], source)
        redraw()

    def on_region(change) -> None:
        _sync_grid(c["grid_gco2_per_kwh"], change["new"], quiet)
        redraw()

    handlers = {"load": on_load, "region": on_region}
    for name, control in c.items():
        control.observe(handlers.get(name, redraw), names="value")
    _sync_slider(c["itl_sla_ms"], c["load"].value, source)
    redraw()
    left = ipywidgets.VBox([c[k] for k in c if k != "gpus"])
    box = ipywidgets.VBox([ipywidgets.HBox([left, c["gpus"]]), message, table, chart])
    box.controls = c
    return box
