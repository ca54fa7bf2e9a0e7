"""Predictions are finite and positive for every catalog pair (every LLM × every GPU × every
scenario), for the paper's model and for the default hybrid with its intervals — the whole grid in
one vectorised call each."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.hybrid.load import scenario_load
from wattgpu_lite.hybrid.model import HybridModel
from wattgpu_lite.wattgpu.features import feature_frame


@pytest.fixture(scope="module")
def grid():
    frame = feature_frame(
        wl.llms()["name"], wl.gpus()["name"], ("offline", "server_low", "server_high")
    )
    loads = np.array([scenario_load(s) for s in frame["scenario"]])
    return frame.assign(rate_qps=loads[:, 0], batch=loads[:, 1])


def test_paper_model_is_finite_for_every_catalog_pair(grid):
    out = wl.WattGPU.pretrained().predict_frame(grid)
    assert len(out) == len(wl.llms()) * len(wl.gpus()) * 3
    for col in ("power_w", "itl_s", "energy_per_token_j"):
        assert np.isfinite(out[col]).all() and (out[col] > 0).all()


def test_hybrid_is_finite_and_bracketed_for_every_catalog_pair(grid):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # AMD and Blackwell parts extrapolate, by design
        out = HybridModel.pretrained().predict_frame(grid, level=0.9)
    for col in ("power_w", "itl_s", "time_per_token_s"):
        lo, mid, hi = out[f"{col}_lo"], out[col], out[f"{col}_hi"]
        assert np.isfinite([lo, mid, hi]).all()
        assert ((lo > 0) & (lo <= mid) & (mid <= hi)).all()
