"""ipywidgets explorers. Thin: read the controls, call the library, draw.

from wattgpu_lite.face.widgets import gpu_explorer
gpu_explorer()          # LLM, candidate GPUs, load, ITL SLA, grid intensity -> ranking + bars
"""

from __future__ import annotations

import io

import ipywidgets as w
import matplotlib.pyplot as plt

from wattgpu_lite.energy.estimate import estimate_energy
from wattgpu_lite.errors import WattGPUError
from wattgpu_lite.face import plots
from wattgpu_lite.face.explorer import LOADS, ExplorerControls, explorer_view, sla_slider_range
from wattgpu_lite.hybrid.byo import FORM_FIELDS, predict_for_spec, spec_template
from wattgpu_lite.runs.measurements import MEASURED_GPUS
from wattgpu_lite.selection.accounting import DEFAULT_GRID_GCO2_PER_KWH
from wattgpu_lite.specs.catalog import gpus, llms

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
                                           step=1.0, description="grid gCO2e/kWh", style=_WIDE),
    }  # fmt: skip


def _read(c: dict, source: str) -> ExplorerControls:
    return ExplorerControls(
        llm=c["llm"].value, gpus=tuple(c["gpus"].value), load=c["load"].value,
        rate_qps=c["rate_qps"].value, itl_sla_ms=c["itl_sla_ms"].value,
        grid_gco2_per_kwh=c["grid_gco2_per_kwh"].value, source=source,
    )  # fmt: skip


def _bars_png(view) -> bytes:
    """The energy bar chart as PNG bytes (an Image widget: nothing leaks into cell outputs)."""
    fig, ax = plt.subplots(figsize=(6.4, 0.3 * len(view) + 1.0), dpi=80)
    plots.gpu_energy_bars(view, ax=ax)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def gpu_explorer(
    llm: str = "meta-llama/Llama-3.1-8B-Instruct", candidates=MEASURED_GPUS,
    itl_sla_ms: float = 30.0, source: str = "hybrid",
) -> w.VBox:  # fmt: skip
    """Rank GPUs for an LLM under an ITL SLA; redraws the table and bar chart on every change."""
    c = _controls(llm, candidates, itl_sla_ms)
    message, table, chart = (
        w.HTML(),
        w.HTML(),
        w.Image(format="png", layout=w.Layout(width="560px")),
    )

    def redraw(_=None) -> None:
        if c["llm"].value not in c["llm"].options:
            return  # still typing
        view, text = explorer_view(_read(c, source))
        chart.value = _bars_png(view) if len(view) else b""
        html = view.to_html(index=False, na_rep="", classes="wl-ranking-table")
        table.value = f"<div class='wl-ranking'>{html}</div>"
        message.value = f"<b class='wl-message'>{text}</b>"  # last: the page is up to date

    def on_load(change) -> None:
        lo, hi, step, start = sla_slider_range(change["new"])
        slider = c["itl_sla_ms"]
        if (slider.min, slider.max) != (lo, hi):  # switching between offline and server
            with slider.hold_trait_notifications():
                slider.min, slider.max = min(lo, slider.min), max(hi, slider.max)
                slider.step, slider.value = step, start
                slider.min, slider.max = lo, hi
        redraw()

    for name, control in c.items():
        control.observe(on_load if name == "load" else redraw, names="value")
    redraw()
    left = w.VBox([c["llm"], c["load"], c["rate_qps"], c["itl_sla_ms"], c["grid_gco2_per_kwh"]])
    return w.VBox([w.HBox([left, c["gpus"]]), message, table, chart])


# --- energy model explorer (issue 3) --------------------------------------------------------------
def energy_table(llm: str, gpu: str, t_in: int, t_out: int, batch: int, mode: str,
                 num_gpus: int = 1, weights: str | None = None):  # fmt: skip
    """Component energies of one request: component, energy_j, energy_per_output_token_j, share."""
    import pandas as pd

    est = estimate_energy(llm, gpu, t_in, t_out, batch, mode, num_gpus, weights)
    comps = est.components_j
    df = pd.DataFrame({"component": list(comps), "energy_j": list(comps.values())})
    df["energy_per_output_token_j"] = df["energy_j"] / t_out
    df["share"] = df["energy_j"] / est.total_j
    return df


def _figure_png(fig) -> bytes:
    """A figure as PNG bytes for an Image widget (nothing leaks into the cell's outputs)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def energy_explorer(llm: str = "meta-llama/Llama-3.1-8B-Instruct", gpu: str = "H100 NVL") -> w.VBox:
    """LLM, GPU, T_in, T_out, batch, mode, GPUs, weights -> the redrawn breakdown of one request."""
    c = dict(
        llm=w.Dropdown(options=sorted(llms()["name"]), value=llm, description="LLM"),
        gpu=w.Dropdown(options=list(gpus()["name"]), value=gpu, description="GPU"),
        t_in=w.IntSlider(500, min=1, max=8192, description="T_in"),
        t_out=w.IntSlider(500, min=1, max=20000, description="T_out"),
        batch=w.IntSlider(1, min=1, max=256, description="batch"),
        mode=w.ToggleButtons(options=["physical", "paper"], description="mode"),
        num_gpus=w.Dropdown(options=[1, 2, 4, 8], value=1, description="GPUs"),
        weights=w.Dropdown(options=[("model's own", None), ("bf16", "bf16"), ("fp8", "fp8"),
                                    ("fp4", "fp4"), ("int4", "int4")], description="weights"),
    )  # fmt: skip
    message, chart = w.HTML(), w.Image(format="png", layout=w.Layout(width="560px"))

    def redraw(_=None) -> None:
        kw = {k: control.value for k, control in c.items()}
        if kw["mode"] == "paper":
            kw |= {"num_gpus": 1, "weights": None}  # paper mode: one GPU, 16-bit weights
        try:
            table = energy_table(**kw)
        except WattGPUError as err:  # a combination the model refuses: say why, draw nothing
            message.value, chart.value = f"<b>not estimated:</b> {err}", b""
            return
        ax = plots.energy_components_bar(table, f"{kw['llm']} on {kw['gpu']}")
        chart.value, message.value = _figure_png(ax.figure), ""

    for control in c.values():
        control.observe(redraw, names="value")
    redraw()
    return w.VBox([*c.values(), message, chart])


def byo_gpu_form(llm: str = "meta-llama/Llama-3.1-8B-Instruct", like: str = "H100 NVL"):
    """Spec-sheet form: edit a GPU's fields, pick a rate, get predictions with intervals and
    the extrapolation notes (:func:`wattgpu_lite.hybrid.byo.predict_for_spec`)."""

    spec = spec_template(like)
    boxes = {f: (w.Text if isinstance(spec[f], str) else w.FloatText)(value=spec[f], description=f)
             for f in FORM_FIELDS}  # fmt: skip
    rate, out = w.FloatLogSlider(value=0.1, min=-2, max=0, description="rate req/s"), w.Output()

    def show(_=None) -> None:
        edited = spec | {f: b.value for f, b in boxes.items()}
        table, notes = predict_for_spec(edited, llm, rate_qps=rate.value)
        with out:
            out.clear_output()
            print(table.to_string(index=False), "\n", notes or "inside the training range")

    button = w.Button(description="Predict")
    button.on_click(show)
    return w.VBox([*boxes.values(), rate, button, out])
