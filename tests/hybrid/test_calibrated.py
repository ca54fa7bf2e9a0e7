"""The calibrated backbone's nested intervals (hybrid.report.calibrated_folds, calibrated): the
held-out source never reaches a fit nor its own residual pool, the shipped table agrees with the
leave-one-source-out table and with physics, and the scores are what their definitions say."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.report import calibrated as R
from wattgpu_lite.hybrid.report import calibrated_folds as F
from wattgpu_lite.hybrid.report import calibration as C
from wattgpu_lite.hybrid.report import interval_methods


@pytest.fixture(scope="module")
def table():
    return R.shipped()


def _shipped_fit(name, ts, a):
    return HybridState.pretrained().constants


def test_the_held_out_source_reaches_no_fit_and_not_its_own_pool():
    a, ts = F.asked_rows(), None
    source = C.scored_sources(a)[0]
    held = a.sources == source
    seen: list[set[str]] = []

    def recording_fit(name, ts, train):
        seen.append(set(train.sources))
        return _shipped_fit(name, ts, train)

    pool = F.residual_pool(ts, a.take(~held), "pooled_collectives", recording_fit)
    assert len(seen) == C.INNER_FOLDS and all(source not in s for s in seen)
    assert source not in set(pool["source_title"])
    # every training row is predicted out of sample, once: by the fit that did not see its group
    for fitted, group in zip(seen, C.inner_groups(sorted(set(a.sources[~held]))), strict=True):
        assert not fitted & set(group)
    assert not pool.duplicated(["row", "quantity"]).any()
    assert set(pool["row"]) <= set(a.rows.loc[~held, "row"])
    outer = F.scored_rows(a.take(held), _shipped_fit("", ts, a))
    with pytest.raises(ValueError, match="its own rows"):
        F.fold_intervals(pd.concat([pool, outer]), outer, source)


def test_the_fold_interval_holds_its_prediction_inside_physics():
    a = F.asked_rows()
    for source in C.scored_sources(a)[:4]:
        held = a.sources == source
        pool = F.residual_pool(None, a.take(~held), "watt_counts", _shipped_fit)
        x = F.fold_intervals(pool, F.scored_rows(a.take(held), _shipped_fit("", None, a)), source)
        assert (x["lo_x"] <= x["predicted"]).all() and (x["predicted"] <= x["hi_x"]).all()
        assert (x["lo_x"] >= x["limit_lo"] * (1 - 1e-12)).all()
        assert (x["hi_x"] <= x["limit_hi"] * (1 + 1e-12)).all()


def test_the_shipped_intervals_hold_their_predictions_above_the_physics_floor(table):
    lo, hi, p = table["lo"], table["hi"], table["predicted_calibrated"]
    assert (lo <= p * (1 + 1e-5)).all() and (p <= hi * (1 + 1e-5)).all()
    # the floors are physics (bytes / bandwidth, the hard power floor), not fitted constants
    limits = F.scored_rows(F.asked_rows(), HybridState.pretrained().constants)
    floor = limits.set_index(["row", "quantity"])["limit_lo"]
    at = floor.reindex(pd.MultiIndex.from_frame(table[["row", "quantity"]])).to_numpy()
    assert np.isfinite(at).all() and (lo >= at * (1 - 1e-5)).all()


def test_the_table_holds_every_scored_source_with_the_chosen_candidate(table):
    chosen = F.chosen_candidates()
    # every scored source is answered at its fold's calibrated constants (the LOSO table's
    # "chosen" rows; until dstack's Poisson runs that fell behind their arrivals were left out,
    # its 8xH100 sweep was answered at none)
    loso = C.shipped()
    answered = sorted(loso.loc[loso["basis"] == "chosen", "source"].unique())
    assert sorted(table["source"].unique()) == answered == C.scored_sources(C.asked())
    assert (table["chosen"] == table["source"].map(chosen)).all()
    # one interval method a fold, chosen on its pool (hybrid.report.interval_methods)
    assert table.groupby("source")["interval"].nunique().eq(1).all()
    assert set(table["interval"]) <= set(interval_methods.CANDIDATES)
    assert not table.duplicated(["source", "row", "quantity"]).any()
    assert set(table["quantity"]) == {
        "itl_s", "power_w", "throughput_tokens_per_s", "energy_per_token_j"
    }  # fmt: skip


def test_the_per_row_predictions_give_the_loso_tables_scores(table):
    """The outer fits are the LOSO builder's: its MdAPE and median ratio per source and quantity,
    at the chosen and at the shipped constants, from the rows (the CSVs keep six figures)."""
    rows = R.with_errors(table)
    loso = C.shipped().set_index(["source", "quantity", "basis"])
    for basis, tag in (("chosen", "after"), ("watt_counts", "before")):
        mine = rows.dropna(subset=[f"ape_{tag}"]).groupby(["source", "quantity"])
        theirs = loso.xs(basis, level="basis")
        # rows the calibrated constants do not answer are not in the table: one (source,
        # quantity) of the shipped basis (2 ITL values of dstack's H100 vs MI300X comparison)
        theirs = theirs[theirs.index.isin(mine.size().index)]
        assert len(theirs) >= len(loso.xs(basis, level="basis")) - 3
        got = mine[f"ape_{tag}"].median().reindex(theirs.index)
        assert np.allclose(got, theirs["mdape_pct"], rtol=1e-4, atol=1e-4)
        ratio = mine[f"ratio_{tag}"].median().reindex(theirs.index)
        assert np.allclose(ratio, theirs["ratio"], rtol=1e-4)


def _hand_made() -> pd.DataFrame:
    return pd.DataFrame({
        "source": ["a"] * 4 + ["b"] * 2, "row": range(6), "quantity": "itl_s",
        "measured": [1.0, 2.0, 4.0, 1.0, 1.0, 1.0],
        "predicted_watt_counts": [2.0, 2.0, 2.0, 2.0, 1.5, 1.0],
        "predicted_calibrated": [1.0, 1.0, 1.0, 1.0, 1.0, 1.1],
        "lo": [0.5, 0.5, 0.5, 0.9, 0.8, 1.05], "hi": [2.0, 2.0, 2.0, 1.8, 1.6, 1.2],
        "replica": "one GPU", "batch_band": ["≤ 16"] * 3 + ["> 16"] * 3, "context_band": "≤ 1024",
    })  # fmt: skip


def test_coverage_width_and_errors_on_a_hand_made_table():
    s = R.scores(R.with_errors(_hand_made()), ["source"]).set_index("source")
    assert s.loc["a", "rows"] == 4 and s.loc["b", "rows"] == 2
    assert s.loc["a", "coverage80"] == pytest.approx(3 / 4)  # 4.0 lies above hi = 2
    assert s.loc["b", "coverage80"] == pytest.approx(1 / 2)  # 1.0 lies below lo = 1.05
    assert s.loc["a", "width"] == pytest.approx(4.0)  # widths 4, 4, 4, 2
    assert s.loc["b", "width"] == pytest.approx((2.0 + 1.2 / 1.05) / 2)
    assert s.loc["a", "mdape_before"] == pytest.approx(75.0)  # |2/m − 1|: 100, 0, 50, 100
    assert s.loc["a", "mdape_after"] == pytest.approx(25.0)  # 0, 50, 75, 0
    assert s.loc["a", "ratio_before"] == pytest.approx(1.5)
    r = R.per_regime(_hand_made()).set_index(["regime", "band"])
    assert r.loc[("batch_band", "> 16"), "rows"] == 3
    assert r.loc[("batch_band", "> 16"), "coverage80"] == pytest.approx(2 / 3)


def test_goals_count_the_cells_that_meet_them():
    cells = pd.DataFrame({
        "quantity": ["itl_s"] * 3 + ["power_w"] + ["throughput_tokens_per_s"],
        "rows": [25, 30, 5, 40, 20], "coverage80": [0.8, 0.95, 0.8, 0.76, 0.8],
        "width": [1.9, 2.5, 1.0, 1.6, 9.0], "mdape_after": [10.0, 30.0, 5.0, 9.0, 20.0],
        "ratio_after": [1.0, 1.2, 1.0, 0.9, 1.0],
    })  # fmt: skip
    g = R.goals(cells).set_index("quantity")
    assert g.loc["itl_s"].to_dict() == {
        "cells": 2, "coverage_ok": 1, "width_ok": 1, "mdape_ok": 1, "ratio_ok": 1
    }  # fmt: skip
    assert g.loc["power_w", "width_ok"] == 0 and g.loc["power_w", "mdape_ok"] == 1
    # throughput has no width goal: neither met nor missed
    assert np.isnan(g.loc["throughput_tokens_per_s", "width_ok"])
    assert g.loc["throughput_tokens_per_s", "mdape_ok"] == 1


def test_the_configurations_the_runs_never_cover_are_moe_low_bits_or_several_gpus(table):
    """Splitwise's Llama-2-70B on 8 GPUs, every FP8 row and every MoE row are configurations the
    runs never cover; a covered row is a dense model on one GPU (some of our H200 decode steps);
    the per-configuration table splits every held-out value between the two."""
    label = pd.Series(R.configurations(table), index=table.index)
    ext = pd.read_csv(R.data_dir() / "external_measurements.csv").loc[table["row"]]
    ext.index = table.index
    never = label == "the runs never cover it"
    assert never[table["source"].str.startswith("Splitwise")].all()
    assert never[ext["precision"].str.startswith("FP8") | (ext["row_class"] != "dense")].all()
    covered = ~never
    assert covered[table["source"].str.startswith("wattgpu_lite H200 decode steps")].any()
    assert (ext.loc[covered, "num_gpus"] == ext.loc[covered, "replicas"]).all()
    split = R.per_configuration(table).groupby("quantity")["rows"].sum()
    pooled = R.pooled(table).set_index("quantity")["rows"]
    pd.testing.assert_series_equal(split.sort_index(), pooled.sort_index(), check_names=False)
