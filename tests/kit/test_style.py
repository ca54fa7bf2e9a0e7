"""The one figure style (wattgpu_lite.face.style): colours, labels, ticks, fonts."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")
import matplotlib.colors as mc  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import wattgpu_lite as wl  # noqa: E402
from wattgpu_lite.face import style  # noqa: E402


def test_every_catalog_gpu_has_its_own_colour():
    names = wl.gpus()["name"].tolist()
    missing = [n for n in names if n not in style.GPU_PALETTE]
    assert not missing, f"add a colour for {missing} to GPU_PALETTE in face/style.py"
    colours = [style.GPU_PALETTE[n] for n in names]
    assert len(set(colours)) == len(colours)


def test_colours_are_told_apart():
    rgb = {n: np.array(mc.to_rgb(c)) for n, c in style.GPU_PALETTE.items()}
    gap = min(np.linalg.norm(rgb[a] - rgb[b]) for a, b in itertools.combinations(rgb, 2))
    measured = style.MEASURED_ORDER
    gap8 = min(np.linalg.norm(rgb[a] - rgb[b]) for a, b in itertools.combinations(measured, 2))
    assert gap > 0.08 and gap8 > 0.25


def test_measured_order_is_the_measured_catalog_rows():
    gpus = wl.gpus()
    assert set(style.MEASURED_ORDER) == set(gpus.loc[gpus["measured"], "name"])


def test_aliases_get_their_rows_colour_and_unknown_names_grey():
    assert style.gpu_color("NVIDIA H100 NVL") == style.GPU_PALETTE["H100 NVL"]
    assert style.gpu_color("H100 NVL @300W") == style.UNKNOWN_GPU_COLOR
    pal = style.gpu_palette(["L4", "T4", "L4"])
    assert list(pal) == ["L4", "T4"] and pal["T4"] == style.GPU_PALETTE["T4"]


def test_gpu_order_follows_the_palette_then_alphabet():
    assert style.gpu_order(["H200 NVL", "zeta", "T4", "alpha"]) == [
        "T4",
        "H200 NVL",
        "alpha",
        "zeta",
    ]


@pytest.mark.parametrize(
    ("raw", "readable"),
    [
        ("mdape_pct", "MdAPE (%)"),
        ("power_w", "power (W)"),
        ("itl_s", "ITL (s)"),
        ("energy_per_token_j", "energy per token (J)"),
        ("paper_mdape_pct", "paper MdAPE (%)"),
        ("paper_gpu_tau", "paper GPU-ranking τ"),
        ("pearson_r", "Pearson r"),
        ("median_abs_error_w", "median absolute error (W)"),
        ("bandwidth_gbs", "bandwidth (GB/s)"),
        ("power_over_tdp", "power / TDP"),
        ("scenario", "scenario"),
        ("mdape_kfold_pct", "MdAPE plain KFold (%)"),
        ("gap_points", "gap (points)"),
        ("paper_7gpu", "ours, paper's 7 GPUs"),
        ("already readable", "already readable"),
    ],
)
def test_label(raw, readable):
    assert style.label(raw) == readable


def test_readable_columns_renames_columns_and_index_but_not_data():
    table = pd.DataFrame({"mdape_pct": [1.5], "n_runs": [3]}, index=pd.Index(["x"], name="gpu"))
    out = style.readable_columns(table)
    assert list(out.columns) == ["MdAPE (%)", "runs"] and out.index.name == "GPU"
    assert list(table.columns) == ["mdape_pct", "n_runs"] and out.iloc[0, 0] == 1.5


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.001, "0.001"), (0.02, "0.02"), (300.0, "300"), (20000.0, "20,000"),
     (1e-6, "$10^{-6}$"), (2e7, "$2\\times10^{7}$")],
)  # fmt: skip
def test_log_tick_labels_are_plain_numbers(value, text):
    assert style._plain_number(value) == text


def _tick_labels(ax, axis="x"):
    ax.figure.canvas.draw()
    ticks = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    lo, hi = ax.get_xlim() if axis == "x" else ax.get_ylim()
    pos = ax.get_xticks() if axis == "x" else ax.get_yticks()
    return [t.get_text() for t, p in zip(ticks, pos, strict=True) if lo <= p <= hi and t.get_text()]


def _log_x_axis(lo: float, hi: float):
    """An axis spanning [lo, hi] on a log x scale, its ticks set by style.log_ticks."""
    style.use_style()
    ax = plt.subplots()[1]
    ax.plot([lo, hi], [1, 2])
    ax.set_xscale("log")
    style.log_ticks(ax, "x")
    return ax


def test_log_ticks_label_a_short_axis_without_minor_clutter():
    ax = _log_x_axis(0.012, 0.09)
    assert _tick_labels(ax) == ["0.02", "0.05"]
    plt.close("all")


def test_log_ticks_keep_decades_only_on_a_long_axis():
    ax = _log_x_axis(1e-4, 1.0)
    assert _tick_labels(ax) == ["0.0001", "0.001", "0.01", "0.1", "1"]
    plt.close("all")


def test_log_ticks_do_not_mix_plain_numbers_and_powers_on_one_axis():
    ax = _log_x_axis(1e-7, 10.0)
    labels = _tick_labels(ax)
    assert labels and all(t.startswith("$") for t in labels), labels
    plt.close("all")


def test_use_style_sets_no_font_below_the_minimum():
    style.use_style()
    sizes = {k: matplotlib.rcParams[k] for k in matplotlib.rcParams if k.endswith("size")}
    numeric = {k: v for k, v in sizes.items() if isinstance(v, int | float)}
    font_keys = [k for k in numeric if "font" in k or "labelsize" in k or "titlesize" in k]
    assert font_keys and min(numeric[k] for k in font_keys) >= style.MIN_FONT_PT


def test_legend_outside_moves_the_legend_off_the_axes():
    style.use_style()
    ax = plt.subplots()[1]
    ax.plot([0, 1], [0, 1], label="a")
    ax.legend()
    style.legend_outside(ax)
    fig = ax.figure
    fig.canvas.draw()
    box = ax.get_legend().get_window_extent()
    assert box.x0 >= ax.get_window_extent().x1
    plt.close("all")


def test_wl_plots_exposes_the_style():
    assert wl.plots.use_style is style.use_style and wl.plots.gpu_color is style.gpu_color
