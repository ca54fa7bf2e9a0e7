"""The GPU explorer: its pure controls -> table function, and the widget redrawing on change."""

from __future__ import annotations

import pytest

from wattgpu_lite.face.explorer import (
    VIEW_COLUMNS,
    ExplorerControls,
    explorer_view,
    sla_slider_range,
    summary,
)

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"
MEASURED = ExplorerControls(llm=LLAMA8, source="measured", gpus=("A30", "L4", "T4", "H100 NVL"))


def test_view_measured_server_low_30ms():
    view, message = explorer_view(MEASURED)
    assert list(view.columns) == VIEW_COLUMNS
    assert list(view["gpu"]) == ["A30", "H100 NVL", "L4", "T4"]
    assert list(view["meets_sla"]) == [True, True, False, False]
    assert message == "Pick: A30 (9,306 J per 1,000 tokens); 2 of 4 GPUs meet 30 ms."


def test_a_looser_sla_lets_the_l4_win():
    view, message = explorer_view(ExplorerControls(**{**MEASURED.__dict__, "itl_sla_ms": 100}))
    assert view["gpu"].iloc[0] == "L4" and message.startswith("Pick: L4")


def test_custom_rate_scales_energy_as_one_over_rate():
    base = {**MEASURED.__dict__, "load": "custom rate", "gpus": ("A30",)}
    slow, _ = explorer_view(ExplorerControls(**{**base, "rate_qps": 0.01}))
    fast, _ = explorer_view(ExplorerControls(**{**base, "rate_qps": 0.02}))
    e_slow, e_fast = slow["energy_per_1k_tokens_j"][0], fast["energy_per_1k_tokens_j"][0]
    assert e_slow == pytest.approx(2 * e_fast, rel=1e-3)  # P / λ at the same power class


def test_grid_intensity_scales_carbon_only():
    clean, _ = explorer_view(ExplorerControls(**{**MEASURED.__dict__, "grid_gco2_per_kwh": 0}))
    assert (clean["kg_co2e_per_mtok"].dropna() == 0).all()
    assert clean["energy_per_1k_tokens_j"].notna().sum() == 3


@pytest.mark.parametrize(
    ("change", "text"),
    [({"itl_sla_ms": 0}, "itl_sla_ms"), ({"gpus": ("T4",)}, "fits no candidate"),
     ({"llm": "no-such-model"}, "unknown LLM"), ({"load": "custom rate", "rate_qps": 0}, "rate")],
)  # fmt: skip
def test_bad_controls_become_a_message(change, text):
    view, message = explorer_view(ExplorerControls(**{**MEASURED.__dict__, **change}))
    assert view.empty and message.startswith("error: ") and text in message


def test_summary_without_a_feasible_gpu():
    view, _ = explorer_view(ExplorerControls(**{**MEASURED.__dict__, "itl_sla_ms": 1}))
    assert summary(view.assign(fits=view["why_not"].str.startswith("ITL")), 1) == (
        "No GPU meets 1 ms (3 of 4 hold the model)."
    )


def test_slider_range_offline_is_sub_millisecond():
    assert sla_slider_range("offline")[1] <= 2.0 and sla_slider_range("server_low")[1] >= 100
    assert sla_slider_range("server_high")[3] == 30.0


def test_widget_redraws_on_change():
    from wattgpu_lite.face.widgets import gpu_explorer

    box = gpu_explorer(candidates=("A30", "L4", "T4"), source="measured")
    message, table = box.children[1], box.children[2]
    assert "Pick: A30" in message.value and "ITL 59.5 ms &gt; SLA 30 ms" in table.value
    sla = box.children[0].children[0].children[3]
    sla.value = 100.0
    assert "Pick: L4" in message.value and "&gt; SLA" not in table.value
    load = box.children[0].children[0].children[1]
    load.value = "offline"  # the slider moves to sub-millisecond ITLs
    assert sla.max == 2.0 and sla.value == 0.5 and "meet 0.5 ms" in message.value
    load.value = "custom rate"  # and back
    assert sla.max == 150.0 and sla.value == 30.0 and "Pick: A30" in message.value
