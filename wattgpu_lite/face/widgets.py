"""ipywidgets explorers. Thin: read the controls, call the library, draw.

from wattgpu_lite.face.widgets import gpu_explorer
gpu_explorer()          # LLM, GPUs, load, SLA, GPUs per replica, tokens -> ranking + chart
"""

from __future__ import annotations

import io

import ipywidgets
import matplotlib.pyplot as plt
import pandas as pd

from wattgpu_lite.energy.estimate import estimate_energy
from wattgpu_lite.errors import WattGPUError
from wattgpu_lite.face import plots
from wattgpu_lite.face.widgets_gpu import gpu_explorer  # noqa: F401  (re-exported: wl.widgets.*)
from wattgpu_lite.hybrid.predict.chain import FORM_FIELDS, predict_for_spec, spec_template
from wattgpu_lite.specs.catalog import gpus, llms


# --- energy model explorer (issue 3) --------------------------------------------------------------
def energy_table(
    llm: str,
    gpu: str,
    t_in: int,
    t_out: int,
    batch: float,
    mode: str,
    num_gpus: int = 1,
    weights: str | None = None,
):
    """Component energies of one request: component, energy_j, energy_per_token_j, share."""
    est = estimate_energy(
        llm, gpu, batch=batch, t_in=t_in, t_out=t_out, mode=mode, num_gpus=num_gpus, weights=weights
    )
    comps = est.components_j
    df = pd.DataFrame({"component": list(comps), "energy_j": list(comps.values())})
    df["energy_per_token_j"] = df["energy_j"] / t_out
    df["share"] = df["energy_j"] / est.total_j
    return df


def _figure_png(fig) -> bytes:
    """A figure as PNG bytes for an Image widget (nothing leaks into the cell's outputs)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def energy_explorer(
    llm: str = "meta-llama/Llama-3.1-8B-Instruct", gpu: str = "H100 NVL"
) -> ipywidgets.VBox:
    """LLM, GPU, T_in, T_out, batch, mode, GPUs, weights -> the redrawn breakdown of one request."""
    c = dict(
        llm=ipywidgets.Dropdown(options=sorted(llms()["name"]), value=llm, description="LLM"),
        gpu=ipywidgets.Dropdown(options=list(gpus()["name"]), value=gpu, description="GPU"),
        t_in=ipywidgets.IntSlider(500, min=1, max=8192, description="T_in"),
        t_out=ipywidgets.IntSlider(500, min=1, max=20000, description="T_out"),
        batch=ipywidgets.IntSlider(1, min=1, max=256, description="batch"),
        mode=ipywidgets.ToggleButtons(options=["physical", "paper"], description="mode"),
        num_gpus=ipywidgets.Dropdown(options=[1, 2, 4, 8], value=1, description="GPUs"),
        weights=ipywidgets.Dropdown(
            options=[
                ("model's own", None),
                ("bf16", "bf16"),
                ("fp8", "fp8"),
                ("fp4", "fp4"),
                ("int4", "int4"),
            ],
            description="weights",
        ),
    )
    message, chart = (
        ipywidgets.HTML(),
        ipywidgets.Image(format="png", layout=ipywidgets.Layout(width="560px")),
    )

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
    return ipywidgets.VBox([*c.values(), message, chart])


def byo_gpu_form(llm: str = "meta-llama/Llama-3.1-8B-Instruct", like: str = "H100 NVL"):
    """Spec-sheet form: edit a GPU's fields, pick a rate, get predictions with intervals and
    the extrapolation notes (:func:`wattgpu_lite.hybrid.predict.chain.predict_for_spec`)."""

    spec = spec_template(like)
    boxes = {
        f: (ipywidgets.Text if isinstance(spec[f], str) else ipywidgets.FloatText)(
            value=spec[f], description=f
        )
        for f in FORM_FIELDS
    }
    rate, out = (
        ipywidgets.FloatLogSlider(value=0.1, min=-2, max=0, description="rate req/s"),
        ipywidgets.Output(),
    )

    def show(_=None) -> None:
        edited = spec | {f: b.value for f, b in boxes.items()}
        table, notes = predict_for_spec(edited, llm, rate_qps=rate.value)
        with out:
            out.clear_output()
            print(table.to_string(index=False), "\n", notes or "inside the training range")

    button = ipywidgets.Button(description="Predict")
    button.on_click(show)
    return ipywidgets.VBox([*boxes.values(), rate, button, out])
