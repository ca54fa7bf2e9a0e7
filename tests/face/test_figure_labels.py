"""Figures speak the reader's words: no raw column name (``server_high``, ``e_out_mj_ours``,
``mdape_ci90_lo``) in a title, legend, axis or tick label, and the plan figure
of notebook 05 is readable when the intervals span decades.

The notebooks' own figures are checked the same way while nbval executes them (conftest.py
records every figure the inline backend draws); here, the library's figure functions on real data.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import wattgpu_lite as wl  # noqa: E402
from wattgpu_lite.face import labels, plots, style  # noqa: E402
from wattgpu_lite.face.plots_folds import MAX_PANEL_ROWS, READING_COLORS, ROLE_COLORS  # noqa: E402
from wattgpu_lite.wattgpu import features, studies  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    style.use_style()
    yield
    plt.close("all")


@pytest.mark.parametrize(
    ("text", "raw"),
    [("server_high", ["server_high"]), ("e_out_mj_ours vs paper", ["e_out_mj_ours"]),
     ("MdAPE (%), mdape_ci90_lo", ["mdape_ci90_lo"]), ("server, high load (0.33 req/s)", []),
     ("meta-llama/my_model on H100", []), ("ITL (ms)", []), ("a_b", ["a_b"])],
)  # fmt: skip
def test_raw_names_finds_snake_case_identifiers_only(text, raw):
    assert labels.raw_names([text]) == raw


@pytest.mark.parametrize("name", ["server_high", "server_low", "e_out_mj_ours", "e_in_mj_paper", "coverage80", "mdape_ci90_lo",
                                  "mdape_ci90_hi", "offline", "energy_per_1k_tokens_j"])  # fmt: skip
def test_every_name_the_notebooks_plot_has_a_readable_label(name):
    assert labels.raw_names([labels.label(name)]) == []


@pytest.mark.parametrize("name", ["coverage80_unpaired", "width80_hi_lo", "width80_unpaired_hi_lo", "width_hi_lo",
                                  "throughput_tokens_per_s", "mdape_backbone", "mdape_hybrid", "width_backbone",
                                  "width_hybrid", "ecologits_mdape_pct"])  # fmt: skip
def test_the_interval_and_external_columns_read_as_words_not_as_the_raw_name_spaced(name):
    # the tables of notebooks 06 and A2: "width80 hi lo" has no underscore left, yet is no reading
    assert labels.label(name) != name.replace("_", " ")
    assert not any(
        w in str(labels.label(name)).split() for w in ("width80", "coverage80", "hi", "lo", "per")
    )


def test_runs_power_vs_itl_titles_its_panels_in_words():
    grid = plots.runs_power_vs_itl(wl.measurements(dense_only=True))
    titles = [ax.get_title(loc="left") for ax in grid.axes.flat]
    assert titles[-1] == "server, low load (0.017 req/s)"
    assert style.raw_names_in(grid.figure) == []


@pytest.mark.parametrize(
    "draw", [plots.power_scale_invariance, plots.power_vs_load, plots.itl_vs_bandwidth_latency]
)
def test_notebook_03_figures_name_the_loads_in_words(draw):
    frame = features.run_features(wl.measurements(dense_only=True))
    obj = draw(frame)
    fig = getattr(obj, "figure", obj)
    texts = style.figure_texts(fig)
    assert style.raw_names(texts) == [] and any("server, high load" in t for t in texts)


def test_the_figure_check_sees_a_raw_title():
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2], label="e_out_mj_ours")
    ax.legend()
    ax.set_title("server_high")
    assert sorted(style.raw_names_in(fig)) == ["e_out_mj_ours", "server_high"]


def test_readings_bars_colours_are_no_gpu_colour():
    assert not set(READING_COLORS.values()) & set(style.GPU_PALETTE.values())


def test_fold_maps_roles_are_no_gpu_colour_and_lolo_is_not_the_tallest_panel():
    assert not set(ROLE_COLORS.values()) & set(style.GPU_PALETTE.values())
    names = {"cv": "CV", "lolo": "LOLO"}
    fig = plots.fold_maps({s: studies.split_matrix("power", s) for s in names}, titles=names)
    heights = [ax.get_position().height for ax in fig.axes[:2]]
    assert studies.split_matrix("power", "lolo")["fold"].nunique() > MAX_PANEL_ROWS
    assert heights[1] <= heights[0] * (MAX_PANEL_ROWS + 2) / 7 + 1e-9
    assert style.raw_names_in(fig) == []


def test_plan_bars_go_log_when_the_intervals_span_decades_and_fill_by_verdict():
    table = pd.DataFrame({"gpu": ["B200", "L40S", "L4"], "num_gpus": [2, 1, 1],
                          "replicas": [1, 2, 3], "meets_sla": [True, True, False],
                          "itl_ms": [8.9, 34.5, 80.0], "itl_ms_lo": [2.35, 9.11, 20.0],
                          "itl_ms_hi": [33.7, 130.0, 300.0],
                          "energy_per_1k_tokens_j": [70.6, 80.1, 90.0],
                          "energy_per_1k_tokens_j_lo": [17.6, 20.0, 22.0],
                          "energy_per_1k_tokens_j_hi": [283.0, 321.0, 1540.0]})  # fmt: skip
    fig = plots.plan_bars(table, 50.0, title="plans")
    left, right = fig.axes[:2]
    assert right.get_xscale() == "log" and left.get_xscale() == "log"
    dots = [ln for ln in left.get_lines() if ln.get_marker() == "o"]
    assert [d.get_fillstyle() for d in dots] == ["full", "left", "full"]
    assert matplotlib.colors.same_color(dots[2].get_markerfacecolor(), "white")
    legend = [t.get_text() for t in right.get_legend().get_texts()]
    assert legend == ["meets (at the upper bound)", "may meet (at the estimate)", "misses"]


def test_measured_vs_estimated_titles_its_scenarios_in_words():
    pred = pd.DataFrame({"gpu": "L4", "scenario": ["offline", "server_low"] * 2,
                         "energy_per_token_j": [0.1, 1.0, 0.2, 2.0], "physical": [0.1, 1.1, 0.2, 2.1],
                         "paper": [0.05, 0.1, 0.1, 0.2]})  # fmt: skip
    fig = plots.measured_vs_estimated(pred, ["physical", "paper"])
    assert style.raw_names_in(fig) == []
    legend = [t.get_text() for t in fig.legends[0].texts]
    assert legend == [labels.ESTIMATE_METHODS["physical"], labels.ESTIMATE_METHODS["paper"]]
    assert all(ax.get_ylabel() for ax in fig.axes if ax.has_data())


def test_every_estimate_method_of_notebook_01b_has_a_readable_name():
    for method in ("physical", "paper", "ecologits"):
        assert method in labels.ESTIMATE_METHODS
        assert labels.ESTIMATE_METHODS[method] != method


def test_sla_choice_curve_names_its_sla_line():
    sweep = pd.DataFrame({"itl_sla_ms": [5.0, 10.0, 20.0, 40.0], "pick": ["H200 NVL", "H200 NVL", "A30", "A30"],
                          "energy_per_1k_tokens_j": [29000.0, 29000.0, 9300.0, 9300.0]})  # fmt: skip
    ax = plots.sla_choice_curve(sweep, itl_sla_ms=30.0)
    assert "SLA 30 ms" in [t.get_text() for t in ax.texts]
