"""The GPU explorer: its pure controls -> view function, and the widget redrawing on change."""

from __future__ import annotations

import re

import pytest

import wattgpu_lite as wl
from wattgpu_lite.face.explorer import (
    DASH,
    ExplorerControls,
    explorer_ranking,
    explorer_view,
    plan_labels,
    rate_enabled,
    sla_slider_range,
    summary,
)
from wattgpu_lite.runs.measurements import MEASURED_GPUS

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"
GPT_OSS = "openai/gpt-oss-120b"
MEASURED = ExplorerControls(llm=LLAMA8, source="measured", gpus=("A30", "L4", "T4", "H100 NVL"))
HYBRID = ExplorerControls(llm=LLAMA8, gpus=tuple(MEASURED_GPUS))


def _with(c: ExplorerControls, **change) -> ExplorerControls:
    return ExplorerControls(**{**c.__dict__, **change})


def test_view_measured_server_low_30ms():
    view = explorer_view(MEASURED)
    assert list(view.table["gpu"]) == ["A30", "H100 NVL", "L4", "T4"]
    assert list(view.display["meets SLA"]) == ["yes", "yes", "no", "no"]
    assert list(view.display["rank"]) == ["1", "2", DASH, DASH]  # never <NA>
    assert view.message == "Pick: A30 (9,310 J per 1,000 tokens); 2 of 4 GPUs meet 30 ms."
    assert view.display["why not"][2] == "ITL 59.5 ms > SLA 30 ms"


def test_display_headers_carry_units_and_no_missing_markers():
    view = explorer_view(HYBRID)
    headers = list(view.display.columns)
    assert "ITL (ms), 80 % interval" in headers and "power (W)" in headers
    assert "energy per 1,000 tokens (J), 80 % interval" in headers
    assert "kg CO₂e per million tokens" in headers and "interval from" in headers
    text = view.display.to_string()
    assert "<NA>" not in text and "nan" not in text.lower()


def test_displayed_interval_is_the_tables_own_and_contains_the_value():
    view = explorer_view(HYBRID)
    cell = view.display["energy per 1,000 tokens (J), 80 % interval"][0]
    value, lo, hi = (float(x.replace(",", "")) for x in re.findall(r"[\d,.]+", cell))
    row = view.table.iloc[0]
    assert lo <= value <= hi
    assert value == pytest.approx(row["energy_per_1k_tokens_j"], rel=5e-3)
    assert lo == pytest.approx(row["energy_per_1k_tokens_j_lo"], rel=5e-3)


def test_a_looser_sla_lets_the_l4_win():
    view = explorer_view(_with(MEASURED, itl_sla_ms=100))
    assert view.table["gpu"].iloc[0] == "L4" and view.message.startswith("Pick: L4")


def test_custom_rate_scales_energy_as_one_over_rate():
    base = _with(MEASURED, load="custom rate", gpus=("A30",))
    slow = explorer_view(_with(base, rate_qps=0.01)).table["energy_per_1k_tokens_j"][0]
    fast = explorer_view(_with(base, rate_qps=0.02)).table["energy_per_1k_tokens_j"][0]
    assert slow == pytest.approx(2 * fast, rel=1e-3)  # P / λ at the same measured power


def test_grid_intensity_scales_carbon_only():
    clean = explorer_view(_with(MEASURED, grid_gco2_per_kwh=0)).table
    assert (clean["kg_co2e_per_mtok"].dropna() == 0).all()
    assert clean["energy_per_1k_tokens_j"].notna().sum() == 3


def test_best_shows_each_gpu_types_least_energy_plan():
    full = wl.rank_gpus(LLAMA8, "server_low", itl_sla_ms=30, candidates=list(MEASURED_GPUS))
    shown = explorer_ranking(HYBRID)
    assert sorted(shown["gpu"]) == sorted(MEASURED_GPUS)  # one row per GPU type
    for row in shown[shown["meets_sla"]].itertuples():
        ok = full[(full["gpu"] == row.gpu) & full["meets_sla"]]
        assert row.energy_per_1k_tokens_j == ok["energy_per_1k_tokens_j"].min()
    t4 = shown.set_index("gpu").loc["T4"]  # one T4 cannot hold the model; several can
    assert t4["num_gpus"] > 1 and t4["meets_sla"]
    assert list(shown["rank"].dropna()) == list(range(1, int(shown["meets_sla"].sum()) + 1))


def test_a_fixed_gpu_count_and_the_token_counts_reach_the_ranking():
    two = explorer_ranking(_with(HYBRID, gpus_per_replica=2))
    assert set(two["num_gpus"]) == {2}
    short, long_ = (explorer_ranking(_with(HYBRID, gpus=("A30",), gpus_per_replica=1, t_out=n))
                    for n in (100, 400))  # fmt: skip
    assert (short["t_out"].iloc[0], long_["t_out"].iloc[0]) == (100, 400)
    # at a fixed rate the energy per token is P / (λ · T_out): more tokens, less per token
    assert long_["energy_per_1k_tokens_j"][0] < short["energy_per_1k_tokens_j"][0]


def test_mixture_of_experts_models_rest_on_physics_alone():
    view = explorer_view(_with(HYBRID, llm=GPT_OSS, itl_sla_ms=50))
    assert view.message.startswith("Pick: ")
    fits = view.table["fits"]
    assert set(view.display.loc[fits, "interval from"]) == {"physics alone"}


@pytest.mark.parametrize(
    ("change", "text"),
    [({"itl_sla_ms": 0}, "itl_sla_ms"), ({"gpus": ("T4",)}, "fits no candidate"),
     ({"llm": "no-such-model"}, "unknown LLM"), ({"load": "custom rate", "rate_qps": 0}, "rate"),
     ({"gpus_per_replica": 2}, "one GPU")],
)  # fmt: skip
def test_bad_controls_become_a_message(change, text):
    view = explorer_view(_with(MEASURED, **change))
    assert view.table.empty and view.message.startswith("error: ") and text in view.message


def test_summary_without_a_feasible_gpu():
    view = explorer_view(_with(MEASURED, itl_sla_ms=1))
    assert summary(view.table, 1) == "No GPU meets 1 ms (3 of 4 GPUs hold the model)."


def test_plan_labels_name_the_count_and_the_replicas():
    table = wl.rank_gpus(GPT_OSS, rate_qps=20, itl_sla_ms=50, t_in=1024, t_out=1024,
                         candidates=["H100 SXM"], gpu_counts=(1, 2))  # fmt: skip
    labels = dict(zip(table["layout"], plan_labels(table), strict=True))
    reps = table.set_index("layout")["replicas"].rename({"TP2": 2, "TP1": 1})
    assert labels["TP2"] == "H100 SXM ×2" + (f", {int(reps[2])} replicas" if reps[2] > 1 else "")
    assert labels["TP1"].startswith("H100 SXM,") or labels["TP1"] == "H100 SXM"
    assert labels["DP2·EP2"].startswith("H100 SXM ×2 DP2·EP2")


def test_rate_box_and_slider_follow_the_load():
    assert rate_enabled("custom rate") and not rate_enabled("server_low")
    assert sla_slider_range("offline", "measured")[1] <= 2.0  # the runs' ITL is 1/throughput
    assert sla_slider_range("offline")[3] == 30.0  # the hybrid's offline ITL is per request
    assert sla_slider_range("server_high", "measured")[3] == 30.0


def test_widget_redraws_on_change():
    from wattgpu_lite.face.widgets import gpu_explorer

    box = gpu_explorer(candidates=("A30", "L4", "T4"), source="measured")
    c, message, table, chart = box.controls, box.children[1], box.children[2], box.children[3]
    assert "Pick: A30" in message.value and "ITL 59.5 ms &gt; SLA 30 ms" in table.value
    assert c["rate_qps"].disabled and len(chart.value) > 1000  # a PNG was drawn
    assert "&lt;NA&gt;" not in table.value and DASH in table.value
    c["itl_sla_ms"].value = 100.0
    assert "Pick: L4" in message.value and "&gt; SLA" not in table.value
    c["load"].value = "offline"  # the runs' offline ITL is sub-millisecond: the slider follows
    assert c["itl_sla_ms"].max == 2.0 and c["itl_sla_ms"].value == 0.5
    assert "meet 0.5 ms" in message.value and c["rate_qps"].disabled
    c["load"].value = "custom rate"  # and back; the rate box comes alive
    assert c["itl_sla_ms"].max == 200.0 and not c["rate_qps"].disabled
    c["rate_qps"].value = 0.017
    assert "Pick: A30" in message.value
