"""Figures of notebooks 03 and 04 in the kit's style: no text below 9 pt, legends off the data,
one colour per GPU, panels on their own axes, readable log ticks."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import wattgpu_lite as wl  # noqa: E402
from wattgpu_lite.face import plots, style  # noqa: E402
from wattgpu_lite.wattgpu import features, studies  # noqa: E402


@pytest.fixture(scope="module")
def frame():
    style.use_style()
    return features.run_features(wl.measurements(dense_only=True))


def _figure(obj):
    fig = getattr(obj, "figure", obj)
    return getattr(fig, "figure", fig)


def _smallest_text_pt(fig) -> float:
    fig.canvas.draw()
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(t.get_fontsize() for t in texts)


def _pred(gpus=("L4", "H200 NVL")):
    rng = np.random.default_rng(0)
    rows = [(g, s, t) for g in gpus for s in ("offline", "server_low")
            for t in ((30, 70) if g == "L4" else (120, 680))]  # fmt: skip
    f = pd.DataFrame(rows, columns=["gpu", "scenario", "y_true"])
    return f.assign(llm="m", y_pred=f["y_true"] * rng.uniform(0.9, 1.1, len(f)))


def _figures(frame):
    runs = frame
    mats = {s: studies.split_matrix("power", s) for s in ("kfold", "logo")}
    readings = pd.DataFrame({
        "model": ["xgb", "tdp"], "strategy": ["logo", "none"], "scenario": ["server"] * 2,
        "metric": ["mdape_pct"] * 2, "all": [15.2, 207], "paper_7gpu": [14.6, 186], "paper": [13.5, 190],
    })  # fmt: skip
    return {
        "coverage_heatmap": plots.coverage_heatmap(runs),
        "power_scale_invariance": plots.power_scale_invariance(frame),
        "power_vs_load": plots.power_vs_load(frame),
        "itl_vs_bandwidth_latency": plots.itl_vs_bandwidth_latency(frame),
        "fold_maps": plots.fold_maps(mats),
        "readings_bars": plots.readings_bars(readings),
        "importance_bars": plots.importance_bars(
            pd.DataFrame(
                {
                    "feature": ["scenario", "bandwidth_gbs"],
                    "gain_mean": [0.6, 0.3],
                    "gain_std": [0.1, 0.05],
                }
            ),
            "the scenario dominates",
        ),  # fmt: skip
        "predicted_vs_measured": plots.predicted_vs_measured(_pred(), "W"),
        "runs_power_vs_itl": plots.runs_power_vs_itl(frame),
    }


def test_no_text_below_the_minimum_font(frame):
    for name, obj in _figures(frame).items():
        assert _smallest_text_pt(_figure(obj)) >= style.MIN_FONT_PT, name
    plt.close("all")


def test_panels_of_small_and_large_gpus_get_their_own_axes(frame):
    grid = plots.predicted_vs_measured(_pred(), "W")
    l4, h200 = grid.axes_dict["L4"], grid.axes_dict["H200 NVL"]
    assert l4.get_xlim()[1] < 100 and h200.get_xlim()[1] > 600
    plt.close("all")


def test_scenario_legend_of_the_held_out_panels_clears_every_panel():
    gpus = ("V100 SXM2 32GB", "T4", "A100 SXM4 40GB", "A30", "L40S", "L4")
    grid = plots.predicted_vs_measured(_pred(gpus), "W")
    grid.figure.canvas.draw()
    legend = grid.legend.get_window_extent()
    right = max(ax.get_tightbbox().x1 for ax in grid.axes.flat)  # tick labels included
    assert legend.x0 >= right
    assert "server, low load (0.017 req/s)" in [t.get_text() for t in grid.legend.texts]
    plt.close("all")


def test_the_memory_bound_line_is_in_the_legend(frame):
    ax = plots.itl_vs_bandwidth_latency(frame)
    assert any("2N / BW" in t.get_text() for t in ax.get_legend().texts)
    plt.close("all")


def test_gpu_lines_use_the_fixed_palette_and_the_legend_sits_outside(frame):
    ax = plots.power_vs_load(frame)
    legend = ax.get_legend()
    colours = {
        t.get_text(): h.get_color()
        for t, h in zip(legend.texts, legend.legend_handles, strict=True)
    }
    assert matplotlib.colors.to_hex(colours["T4"]) == style.GPU_PALETTE["T4"]
    ax.figure.canvas.draw()
    assert legend.get_window_extent().x0 >= ax.get_window_extent().x1
    plt.close("all")


def test_heatmap_annotations_are_readable(frame):
    fig = plots.coverage_heatmap(frame)
    numbers = [t for t in fig.axes[0].texts if t.get_text().isdigit()]
    assert numbers and min(t.get_fontsize() for t in numbers) >= style.MIN_FONT_PT
    plt.close("all")


def test_readings_bars_name_cells_readably():
    table = pd.DataFrame({"model": ["load_scaled_tdp"], "strategy": ["none"], "scenario": ["server"],
                          "metric": ["mdape_pct"], "all": [23.9], "paper": [26.0]})  # fmt: skip
    ax = plots.readings_bars(table)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["load scaled TDP · server"]
    plt.close("all")
