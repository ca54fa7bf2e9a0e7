"""Intervals from cross-source residuals (hybrid.report.external_intervals): the held-out source
never informs its own interval, the bands are the other sources' residual quantiles, and no bound
leaves what physics allows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wattgpu_lite.hybrid.report import external_intervals as XI


@pytest.fixture(scope="module")
def crossed():
    return XI.loso_intervals()


def _toy(source_ratios: dict[str, list[float]]) -> pd.DataFrame:
    """Rows of one quantity and one regime: measured = ratio × predicted (predicted 1)."""
    rows = [(s, r) for s, ratios in source_ratios.items() for r in ratios]
    return pd.DataFrame({
        "source_title": [s for s, _ in rows], "measured": [r for _, r in rows], "predicted": 1.0,
        "quantity": "itl_s", "gpu_seen": False, "replica": "one GPU", "batch_band": "≤ 16",
        "context_band": "≤ 1024",
    })  # fmt: skip


def test_bands_are_the_other_sources_quantiles_only():
    toy = _toy({"a": [2.0] * 25, "b": list(np.linspace(1.0, 3.0, 21)), "c": [100.0] * 3})
    bands = XI.held_out_bands(toy, "c", 0.8, 20)
    z = np.log(toy.loc[toy["source_title"] != "c", "measured"])
    assert np.allclose(bands["z_lo"], np.quantile(z, 0.1))
    assert np.allclose(bands["z_hi"], np.quantile(z, 0.9))
    assert (bands["regime_depth"] == 0).all()
    # the held-out source's own values never move its band
    moved = toy.assign(measured=np.where(toy["source_title"] == "c", 1e-3, toy["measured"]))
    pd.testing.assert_frame_equal(XI.held_out_bands(moved, "c", 0.8, 20), bands)


def test_a_thin_cell_falls_back_to_a_coarser_key():
    toy = _toy({"a": [2.0] * 25, "b": [0.5] * 5})
    toy.loc[toy["source_title"] == "a", "context_band"] = "> 1024"  # a shares b's coarser key only
    bands = XI.held_out_bands(toy, "b", 0.8, 20)
    assert (bands["regime_depth"] == 1).all()
    assert np.allclose(bands[["z_lo", "z_hi"]], np.log(2.0))
    assert XI.held_out_bands(toy, "b", 0.8, 26)["z_lo"].isna().all()  # nowhere 26 residuals


def test_no_bound_leaves_physics_and_the_prediction_is_inside(crossed):
    lo, hi, p = crossed["lo_x"], crossed["hi_x"], crossed["predicted"]
    assert (lo <= p).all() and (p <= hi).all()
    assert (lo >= crossed["limit_lo"] * (1 - 1e-12)).all()
    assert (hi <= crossed["limit_hi"] * (1 + 1e-12)).all()
    itl = crossed["quantity"] == "itl_s"
    assert (crossed.loc[itl, "limit_lo"] > 0).all()  # the ITL floor is bytes / bandwidth, > 0


def test_without_enough_residuals_a_row_keeps_the_kits_interval(crossed):
    kit = crossed[crossed["regime_depth"] == len(XI.REGIME_KEYS)]
    assert len(kit) > 0  # the 30 energy rows: a held-out source leaves fewer than 20
    assert np.array_equal(kit["lo_x"], kit["lo"]) and np.array_equal(kit["hi_x"], kit["hi"])
    assert set(kit["quantity"]) == {"energy_per_token_j"}


def test_held_out_source_is_scored_on_every_row_once(crossed):
    table = XI.per_source()
    assert table["rows"].sum() == len(crossed)
    overall = XI.per_quantity(crossed).set_index("quantity")
    by_quantity = table.groupby("quantity")["rows"].sum()
    assert overall["rows"].to_dict() == by_quantity.to_dict()
    # coverage over all sources is the row-weighted mean of the sources' coverages
    weighted = (table["coverage_x"] * table["rows"]).groupby(table["quantity"]).sum() / by_quantity
    assert np.allclose(overall["coverage_x"], weighted.reindex(overall.index))
    assert table[["coverage_x"]].stack().between(0, 1).all()
    # a narrower interval is not claimed where it does not cover: the report carries both
    assert {"coverage_kit", "width_kit", "coverage_x", "width_x"} <= set(table.columns)


def test_each_regime_dimension_splits_every_row_once(crossed):
    table = XI.per_regime()
    per_quantity = crossed.groupby("quantity").size()
    sums = table.groupby(["quantity", "regime"])["rows"].sum()
    for (quantity, _), rows in sums.items():
        assert rows == per_quantity[quantity]
    assert set(table["regime"]) == {"gpu_seen", "replica", "batch_band", "context_band"}
    assert (table["ratio"] > 0).all() and (table["mdape_pct"] >= 0).all()
