"""The power floor is a true lower bound: below every measured run, below the fitted idle estimate
on every catalog GPU, taken from a GPU's own spec where it gives an idle power, and it is what the
power intervals stop at (the estimate stops at the idle estimate above it)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.energy.backbone import training_runs as T
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.report import external

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _rows(gpus, num_gpus=1):
    return R.build([wl.llm(LLAMA)] * len(gpus), gpus, 15, 180, num_gpus=num_gpus)[0]


def test_no_training_run_lies_below_the_floor():
    """Every run (one GPU each: G = 1, as the training rows are built) against the floor of its
    catalog row and of the board the hybrid fits it with (the 'H200 NVL' runs are an H200 SXM:
    700 W, floor 87.5 W, not the NVL's 75 W)."""
    runs = wl.measurements()
    names = sorted(runs["gpu"].unique())
    catalog = S.power_floor_w(_rows([wl.gpu(n) for n in names]))
    boards = S.power_floor_w(_rows([T.board(n) for n in names]))
    assert boards[names.index("H200 NVL")] == 0.125 * 700.0
    floor = dict(zip(names, np.maximum(catalog, boards), strict=True))
    below = runs[runs["power_w"] < runs["gpu"].map(floor)]
    assert len(runs) == 4748 and below.empty, below[["llm", "gpu", "scenario", "power_w"]]


def test_no_external_power_lies_below_the_floor_of_the_gpus_it_covers():
    """Each published power against the floor of the GPUs its scope covers (external_scope): one
    GPU for ``gpu0``; every GPU measured for ``all_gpus``; at least those for ``node`` (wall power)."""
    ext = external.table()
    ext = ext[ext["power_w"].notna()]
    assert set(ext["power_scope"]) == {"gpu0", "all_gpus", "node"}
    names = [external.FORM_FACTOR_UNSTATED.get(n, n) for n in ext["gpu"]]
    one = S.power_floor_w(_rows([wl.gpu(n) for n in names]))
    gpus = np.where(ext["power_scope"] == "gpu0", 1.0, ext["num_gpus"].to_numpy(dtype=float))
    below = ext[ext["power_w"].to_numpy() < gpus * one]
    assert len(ext) >= 61 and below.empty, below[["gpu", "num_gpus", "power_scope", "power_w"]]


def test_the_floor_share_is_the_lowest_cited_share_rounded_down():
    runs = wl.measurements()
    tdp = runs["gpu"].map(wl.gpus().set_index("name")["tdp_w"])
    measured = float((runs["power_w"] / tdp).min())
    antepara = min(54.0 / 400.0, 88.0 / 700.0)  # constant power of A100 and Hopper (SC'25)
    share = D.value("power_floor_tdp_share", "physical")
    assert measured == pytest.approx(0.1528, abs=1e-4)
    assert share == np.floor(min(measured, antepara) * 1000) / 1000 == 0.125


def test_the_fitted_idle_is_an_estimate_above_the_floor_on_every_catalog_gpu():
    gpus = [wl.gpu(n) for n in wl.gpus()["name"]]
    rows = _rows(gpus)
    idle = S.idle_power_w(rows, HybridState.pretrained().constants)
    assert np.all(idle > S.power_floor_w(rows))


def test_a_spec_idle_power_is_the_floor_and_scales_with_the_replica():
    spec = dataclasses.replace(wl.gpu("H100 SXM"), name="H100 with its idle", idle_power_w=70.0)
    rows = _rows([spec, wl.gpu("H100 SXM")], num_gpus=2)
    assert list(S.power_floor_w(rows)) == [140.0, 2 * 0.125 * 700.0]


def test_power_intervals_stop_at_the_floor_and_the_estimate_at_the_idle_estimate():
    p = wl.predict(LLAMA, "A30", rate_qps=0.017)
    floor = 0.125 * wl.gpu("A30").tdp_w
    assert p.power_w >= p.idle_power_w > floor
    assert (
        floor <= p.power_w_interval.lo < p.idle_power_w
    )  # the interval reaches below the estimate


def test_the_a30_interval_now_covers_its_lowest_server_low_run():
    runs = wl.measurements()
    low = runs[(runs["gpu"] == "A30") & (runs["llm"] == LLAMA) & (runs["scenario"] == "server_low")]
    assert isinstance(low, pd.DataFrame) and not low.empty
    p = wl.predict(LLAMA, "A30", rate_qps=float(low["lambda_qps"].iloc[0]))
    assert p.power_w_interval.lo <= low["power_w"].min() < p.idle_power_w


def test_the_readme_states_the_floor_it_ships():
    from pathlib import Path

    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    share = D.value("power_floor_tdp_share", "physical")
    assert f"else {share:.3f} × TDP per GPU" in readme
    assert f"below every one of the {len(wl.measurements()):,} runs" in readme
