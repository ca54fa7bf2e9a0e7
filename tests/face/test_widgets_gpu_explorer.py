"""The GPU explorer: its pure controls -> view function, and the widget redrawing on change."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.face.explorer import (
    CUSTOM_GRID,
    DASH,
    ExplorerControls,
    explorer_ranking,
    explorer_view,
    grid_enabled,
    plan_labels,
    rate_enabled,
    region_intensity,
    region_options,
    sla_slider_range,
    summary,
)
from wattgpu_lite.face.prose import sig
from wattgpu_lite.runs.measurements import MEASURED_GPUS
from wattgpu_lite.selection.verdict import verdict_rank

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"
GPT_OSS = "openai/gpt-oss-120b"
MEASURED = ExplorerControls(llm=LLAMA8, source="measured", gpus=("A30", "L4", "T4", "H100 NVL"))
HYBRID = ExplorerControls(llm=LLAMA8, gpus=tuple(MEASURED_GPUS))


def _with(c: ExplorerControls, **change) -> ExplorerControls:
    return ExplorerControls(**{**c.__dict__, **change})


def test_view_measured_server_low_30ms():
    view = explorer_view(MEASURED)
    assert list(view.table["gpu"]) == ["A30", "H100 NVL", "L4", "T4"]
    # the measured runs have no interval: the estimate decides (meets or misses)
    assert list(view.display["verdict"]) == ["meets", "meets", "misses", "does not fit"]
    assert list(view.display["rank"]) == ["1", "2", DASH, DASH]  # never <NA>
    assert view.message == (
        "Pick: A30 (9,310 J per 1,000 tokens), which meets 30 ms; 2 of 4 GPUs meet 30 ms."
    )
    assert view.verdicts.startswith("Verdicts at the estimate: the measured source gives no ITL")
    assert view.display["why not"][2] == "ITL 59.5 ms > SLA 30 ms"


def test_display_headers_carry_units_and_no_missing_markers():
    view = explorer_view(HYBRID)
    headers = list(view.display.columns)
    assert "ITL (ms), 80 % interval" in headers and "power (W)" in headers
    assert "energy per 1,000 tokens (J), 80 % interval" in headers
    assert "g CO₂e per 1,000 tokens (wall)" in headers and "interval from" in headers
    assert "g CO₂e per request (wall)" in headers and "wall energy per 1,000 tokens (J)" in headers
    assert "electricity per million tokens (USD, wall)" in headers
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
    clean = explorer_view(_with(MEASURED, region=CUSTOM_GRID, grid_gco2_per_kwh=0)).table
    assert (clean["kg_co2e_per_mtok"].dropna() == 0).all()
    assert (clean["g_co2e_per_1k_tokens"].dropna() == 0).all()
    assert clean["energy_per_1k_tokens_j"].notna().sum() == 3
    # the number counts only for a custom grid: a region's row decides otherwise
    world = explorer_view(_with(MEASURED, grid_gco2_per_kwh=0)).table
    assert (world["grid_gco2_per_kwh"] == 458).all() and (world["g_co2e_per_1k_tokens"] > 0).any()


def test_the_wall_columns_are_rank_gpus_own_at_the_region_and_pue():
    controls = _with(MEASURED, region="FR", pue=1.25)
    view = explorer_view(controls)
    kw = {"itl_sla_ms": 30, "candidates": list(MEASURED.gpus), "gpu_counts": (1, 2, 4, 8),
          "source": "measured"}  # fmt: skip
    ranked = wl.rank_gpus(LLAMA8, scenario="server_low", region="FR", pue=1.25, **kw)
    for column in ("wall_energy_per_1k_tokens_j", "g_co2e_per_request", "g_co2e_per_1k_tokens",
                   "wall_cost_per_mtok"):  # fmt: skip
        pd.testing.assert_series_equal(view.table[column], ranked[column])
    a30 = view.table.iloc[0]  # by hand: E × PUE; / 3.6e6 J/kWh × 56 gCO2e/kWh (France)
    assert a30["wall_energy_per_1k_tokens_j"] == pytest.approx(1.25 * a30["energy_per_1k_tokens_j"])
    assert a30["g_co2e_per_request"] == pytest.approx(
        1.25 * a30["energy_per_request_j"] / 3.6e6 * 56
    )
    shown = view.display.iloc[0]
    assert shown["g CO₂e per 1,000 tokens (wall)"] == sig(a30["g_co2e_per_1k_tokens"])
    assert shown["wall energy per 1,000 tokens (J)"] == sig(a30["wall_energy_per_1k_tokens_j"])
    assert view.wall.startswith("At the wall: PUE 1.25, grid 56 gCO₂e/kWh (France (FR), 2023), "
                                "electricity 0.0895 USD/kWh, priced at the default")  # fmt: skip
    assert "no electricity price for France (FR)" in view.wall  # France has no price of its own


def test_the_region_choices_are_the_grid_table_and_a_custom_number():
    options = region_options()
    assert options[0] == ("World (WORLD), 2025: 458 gCO₂e/kWh", "WORLD")
    assert (
        options[-1] == (CUSTOM_GRID, CUSTOM_GRID)
        and ("France (FR), 2023: 56 gCO₂e/kWh", "FR") in options
    )
    assert region_intensity("SE") == 41 and region_intensity(CUSTOM_GRID) is None
    assert grid_enabled(CUSTOM_GRID) and not grid_enabled("WORLD")


def test_a_bad_pue_or_grid_becomes_a_message():
    for change, text in (({"pue": 0.5}, "pue"), ({"region": CUSTOM_GRID, "grid_gco2_per_kwh": -1},
                                                  "grid_gco2_per_kwh")):  # fmt: skip
        view = explorer_view(_with(MEASURED, **change))
        assert view.table.empty and view.message.startswith("error: ") and text in view.message
        assert view.wall == ""


def test_best_shows_each_gpu_types_least_energy_plan():
    full = wl.rank_gpus(
        LLAMA8, scenario="server_low", itl_sla_ms=30, candidates=list(MEASURED_GPUS)
    )
    shown = explorer_ranking(HYBRID)
    assert sorted(shown["gpu"]) == sorted(MEASURED_GPUS)  # one row per GPU type
    for row in shown[shown["meets_sla"]].itertuples():
        ok = full[(full["gpu"] == row.gpu) & full["meets_sla"]]
        # a plan that meets the SLA at its ITL bound comes before a cheaper one that may meet it
        surest = ok[verdict_rank(ok["verdict"]) == verdict_rank(ok["verdict"]).min()]
        assert row.energy_per_1k_tokens_j == surest["energy_per_1k_tokens_j"].min()
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


def test_mixture_of_experts_models_rest_on_physics_alone_with_itl_intervals_from_other_harnesses():
    view = explorer_view(_with(HYBRID, llm=GPT_OSS, itl_sla_ms=50))
    assert view.message.startswith("Pick: ")
    fits = view.table["fits"]
    # the runs hold no mixture of experts: the prediction is physics alone, and its ITL interval
    # is the spread of other harnesses' errors (a cross-source cell), which the column says
    shown = {"ITL: other harnesses; power: physics alone"}
    assert set(view.display.loc[fits, "interval from"]) == shown
    assert set(view.table.loc[fits, "itl_interval_from"]) == {"other harnesses"}
    assert view.table.loc[~fits, "itl_interval_from"].isna().all()  # no interval, no source
    assert set(view.display.loc[~fits, "interval from"]) <= {DASH}
    # a dense 16-bit model on the runs' GPUs: the runs' own errors, the learned basis's words
    dense = explorer_view(_with(HYBRID, gpus=("A30", "H100 PCIe"), gpus_per_replica=1))
    assert set(dense.table["itl_interval_from"].dropna()) == {"the runs"}
    assert "ITL: other harnesses" not in " ".join(dense.display["interval from"])


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


def test_widget_region_and_pue_reach_the_table():
    from wattgpu_lite.face.widgets import gpu_explorer

    box = gpu_explorer(candidates=("A30", "L4"), source="measured")
    c, table = box.controls, box.children[2]
    wall = table  # the wall's inputs are the caption under the table
    grid = c["grid_gco2_per_kwh"]
    assert grid.disabled and grid.value == 458 and "(World (WORLD), 2025)" in wall.value
    c["region"].value = "FR"  # the grid box shows France's number, greyed out
    assert (grid.value, grid.disabled) == (56, True) and "grid 56 gCO₂e/kWh (France" in wall.value
    c["region"].value = CUSTOM_GRID  # alive, at the last region's number
    assert not grid.disabled and "grid 56 gCO₂e/kWh (given)" in wall.value
    grid.value = 300.0
    assert "grid 300 gCO₂e/kWh (given)" in wall.value
    before = table.value
    c["pue"].value = 1.2
    assert "PUE 1.2," in wall.value and table.value != before
    expect = explorer_view(_with(MEASURED, gpus=("A30", "L4"), region=CUSTOM_GRID,
                                 grid_gco2_per_kwh=300.0, pue=1.2))  # fmt: skip
    assert expect.display.to_html(index=False, classes="wl-ranking-table") in table.value


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("measured", "own prompt and output tokens"),
        ("paper", "own prompt tokens"),
        ("hybrid", None),
    ],
)
def test_the_view_says_which_token_boxes_a_source_does_not_take(source, said):
    """The token boxes serve every source; a Watt Counts source answers at the runs' own counts
    (the ones it is not passed), and the view says so rather than ignoring the boxes silently."""
    view = explorer_view(_with(MEASURED, source=source, t_in=4000, t_out=700))
    assert view.message.startswith("Pick:")
    if said is None:
        assert "Watt Counts runs' own" not in view.verdicts
    else:
        assert f"The {source} source answers at the Watt Counts runs' {said}" in view.verdicts
