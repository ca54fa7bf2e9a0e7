"""ipywidgets explorers. Thin: read the controls, call the library, draw.

from wattgpu_lite.widgets import gpu_explorer
gpu_explorer()          # LLM, candidate GPUs, load, ITL SLA, grid intensity -> ranking + bars
"""

from __future__ import annotations

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import display

from . import plots
from .accounting import DEFAULT_GRID_GCO2_PER_KWH
from .catalog import gpus, llms
from .explorer import LOADS, ExplorerControls, explorer_view, sla_slider_range
from .measurements import MEASURED_GPUS

_WIDE = {"description_width": "110px"}


def _controls(llm: str, candidates, itl_sla_ms: float) -> dict:
    names = sorted(llms()["name"])
    return {
        "llm": w.Combobox(value=llm, options=names, ensure_option=True, description="LLM",
                          placeholder="type to search", style=_WIDE,
                          layout=w.Layout(width="480px")),
        "gpus": w.SelectMultiple(options=list(gpus()["name"]), value=tuple(candidates),
                                 rows=8, description="candidate GPUs", style=_WIDE),
        "load": w.Dropdown(options=LOADS, value="server_low", description="load", style=_WIDE),
        "rate_qps": w.BoundedFloatText(value=0.1, min=0.001, max=100.0, step=0.01,
                                       description="rate (req/s)", style=_WIDE),
        "itl_sla_ms": w.FloatSlider(value=itl_sla_ms, min=1.0, max=150.0, step=1.0,
                                    description="ITL SLA (ms)", style=_WIDE),
        "grid_gco2_per_kwh": w.FloatSlider(value=DEFAULT_GRID_GCO2_PER_KWH, min=0.0, max=1000.0,
                                           step=10.0, description="grid gCO2e/kWh", style=_WIDE),
    }  # fmt: skip


def _read(c: dict, source: str) -> ExplorerControls:
    return ExplorerControls(
        llm=c["llm"].value, gpus=tuple(c["gpus"].value), load=c["load"].value,
        rate_qps=c["rate_qps"].value, itl_sla_ms=c["itl_sla_ms"].value,
        grid_gco2_per_kwh=c["grid_gco2_per_kwh"].value, source=source,
    )  # fmt: skip


def gpu_explorer(
    llm: str = "meta-llama/Llama-3.1-8B-Instruct", candidates=MEASURED_GPUS,
    itl_sla_ms: float = 30.0, source: str = "predicted",
) -> w.VBox:  # fmt: skip
    """Rank GPUs for an LLM under an ITL SLA; redraws the table and bar chart on every change."""
    c = _controls(llm, candidates, itl_sla_ms)
    message, table, chart = w.HTML(), w.HTML(), w.Output()

    def redraw(_=None) -> None:
        if c["llm"].value not in c["llm"].options:
            return  # still typing
        view, text = explorer_view(_read(c, source))
        message.value = f"<b class='wl-message'>{text}</b>"
        html = view.to_html(index=False, na_rep="", classes="wl-ranking-table")
        table.value = f"<div class='wl-ranking'>{html}</div>"
        with chart:
            chart.clear_output(wait=True)
            if len(view):
                fig, ax = plt.subplots(figsize=(6.4, 0.3 * len(view) + 1.0), dpi=80)
                plots.gpu_energy_bars(view, ax=ax)
                fig.tight_layout()
                display(fig)
                plt.close(fig)

    def on_load(change) -> None:
        lo, hi, step = sla_slider_range(change["new"])
        slider = c["itl_sla_ms"]
        slider.min, slider.max, slider.step = min(lo, slider.min), max(hi, slider.max), step
        slider.value = min(max(slider.value, lo), hi)
        slider.min, slider.max = lo, hi
        redraw()

    for name, control in c.items():
        control.observe(on_load if name == "load" else redraw, names="value")
    redraw()
    left = w.VBox([c["llm"], c["load"], c["rate_qps"], c["itl_sla_ms"], c["grid_gco2_per_kwh"]])
    return w.VBox([w.HBox([left, c["gpus"]]), message, table, chart])
