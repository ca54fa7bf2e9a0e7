"""Validation against the Watt Counts runs: EcoLogits formula, calibrated defaults, MdAPE table."""

import numpy as np
import pandas as pd
import pytest

from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy import validation as V


@pytest.fixture(scope="module")
def runs():
    return V.runs_frame()


def test_ecologits_formula_by_hand(runs):
    row = runs.iloc[[0]]
    row.attrs = {k: v[:1] for k, v in runs.attrs.items()}
    n_b = row.attrs["llms"][0].params_b
    wh = 1.1665e-6 * np.exp(-0.011206 * 64) * n_b + 4.0529e-5
    assert V.ecologits_j_per_token(row)[0] == pytest.approx(wh * 3600)


def test_offline_slots_are_vllm_capacity_and_batch_the_continuous_batching_mean(runs):
    off = runs[runs["scenario"] == "offline"]
    assert off["slots"].between(1, 256).all() and off["slots"].median() == 256
    assert (off["batch"] <= off["slots"]).all() and (off["batch"] <= off["n_requests"]).all()
    full = off[(off["n_requests"] == 1000) & (off["slots"] == 256)]
    assert len(full) > 100 and np.allclose(full["batch"], 1000 * 256 / 1256)  # 203.8, not 250
    assert (runs.loc[runs["scenario"] == "server_low", "batch"] == 1).all()
    assert (runs.loc[runs["scenario"] == "server_low", "wall_s"] > 10).all()


def test_library_defaults_are_the_all_gpu_calibration(runs):
    assert V.calibrate(runs) == pytest.approx(P.defaults(P.PHYSICAL_BASIS))
    assert V.calibrate(runs, "antepara") == pytest.approx(P.defaults("antepara"))
    assert D.value("kappa", "physical") > 1  # real kernels spend more than microbenchmarks
    assert D.value("kappa", "physical:spec") > 1  # ... and than TDP / peak FLOP/s


def test_mdape_table_shape_and_physical_beats_published_methods(runs):
    tab = V.mdape_table(V.predictions(runs))
    assert set(tab.columns) == {"gpu", "scenario", "method", "mdape_pct", "n_runs"}
    assert len(tab) == 8 * 2 * len(V.METHODS)
    wide = tab.pivot_table(index=["scenario", "gpu"], columns="method", values="mdape_pct")
    low, off = wide.loc["server_low"], wide.loc["offline"]
    assert (low["physical"] < low["paper"]).all() and (low["physical"] < low["ecologits"]).all()
    assert (off["physical"] < off["ecologits"]).all()
    # offline, leave-one-GPU-out: beats the paper's equations on 7 of 8 GPUs; the H200 row (an
    # SXM board under the NVL's 835 TFLOPS, data/scripts/h200_note.md) is the one it loses
    assert list(off.index[off["physical"] >= off["paper"]]) == ["H200 NVL"]
    assert (off["physical"] <= 30).sum() >= 5 and off["physical"].median() < 25
    assert isinstance(tab, pd.DataFrame)
