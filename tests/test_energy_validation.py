"""Validation against the Watt Counts runs: EcoLogits formula, calibrated defaults, MdAPE table."""

import numpy as np
import pandas as pd
import pytest

from wattgpu_lite import energy_data as D
from wattgpu_lite import energy_physical as P
from wattgpu_lite import energy_validation as V


@pytest.fixture(scope="module")
def runs():
    return V.runs_frame()


def test_ecologits_formula_by_hand(runs):
    row = runs.iloc[[0]]
    row.attrs = {k: v[:1] for k, v in runs.attrs.items()}
    n_b = row.attrs["llms"][0].params_b
    wh = 1.1665e-6 * np.exp(-0.011206 * 64) * n_b + 4.0529e-5
    assert V.ecologits_j_per_token(row)[0] == pytest.approx(wh * 3600)


def test_offline_batch_is_vllm_capacity(runs):
    off = runs[runs["scenario"] == "offline"]
    assert off["batch"].between(1, 256).all() and off["batch"].median() == 256
    assert (runs.loc[runs["scenario"] == "server_low", "batch"] == 1).all()
    assert (runs.loc[runs["scenario"] == "server_low", "wall_s"] > 10).all()


def test_library_defaults_are_the_all_gpu_calibration(runs):
    assert V.calibrate(runs) == pytest.approx(P.defaults())
    assert D.value("kappa", "physical") > 1  # real kernels spend more than microbenchmarks


def test_mdape_table_shape_and_physical_beats_published_methods_server_low(runs):
    tab = V.mdape_table(V.predictions(runs))
    assert set(tab.columns) == {"gpu", "scenario", "method", "mdape_pct", "n_runs"}
    assert len(tab) == 8 * 2 * 4
    wide = tab.pivot_table(index=["scenario", "gpu"], columns="method", values="mdape_pct")
    low = wide.loc["server_low"]
    assert (low["physical"] < low["paper"]).all() and (low["physical"] < low["ecologits"]).all()
    off = wide.loc["offline"]
    assert (off["physical"] < off["ecologits"]).all()
    assert isinstance(tab, pd.DataFrame)
