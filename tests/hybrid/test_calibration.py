"""Calibration across sources, leave-one-source-out: the held-out source never reaches a fit, the
folds are what the protocol says, and the shipped table is current with the data and physics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wattgpu_lite.energy.backbone import training_runs
from wattgpu_lite.energy.backbone.constants_fit import LOWER, UPPER
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.report import calibrated_folds as F
from wattgpu_lite.hybrid.report import calibration as C


@pytest.fixture(scope="module")
def table():
    return C.shipped()


def test_inner_groups_deal_every_training_source_once():
    sources = [f"s{k:02d}" for k in range(8)]
    groups = C.inner_groups(sources[::-1])
    assert groups == [["s00", "s03", "s06"], ["s01", "s04", "s07"], ["s02", "s05"]]
    assert sorted(sum(groups, [])) == sources


def test_the_held_out_source_never_reaches_a_fit(monkeypatch):
    seen: list[set[str]] = []

    def recording_fit(ts, a, names=None):  # stands in for the least-squares fit: records its rows
        seen.append(set(a.sources))
        return HybridState.pretrained().constants

    monkeypatch.setattr(C, "fit_pooled", recording_fit)
    counts = C.values_per_source(C.asked())
    held = sorted(counts[counts >= C.MIN_ROWS].index)[0]
    out = C.leave_one_source_out(only=[held])
    assert set(out["source"]) == {held}
    assert len(seen) >= C.INNER_FOLDS and all(held not in s for s in seen)
    # each inner fit leaves one group out: no fit sees every training source
    everything = set(counts.index) - {held}
    assert sum(s == everything for s in seen) <= 1  # only the outer refit


def test_every_source_with_enough_values_is_held_out_once(table):
    counts = C.values_per_source(C.asked())
    assert set(table["source"]) == set(counts[counts >= C.MIN_ROWS].index)
    assert set(table["chosen"]) <= set(C.CANDIDATES)
    assert (table.groupby("source")["chosen"].nunique() == 1).all()
    assert set(table["basis"]) == {"chosen", "watt_counts"}
    # the host time per sequence, the FP8 share, the collectives' ratio and ROCm's share are
    # fitted only by the candidates that free them, within their bounds; FP4's is never freed
    host = table["chosen"].isin(
        ["pooled_host", "pooled_formats", "pooled_collectives", "pooled_stack"]
    )
    assert (table.loc[~host, "chosen_seq_us"] == 0).all()
    assert table["chosen_seq_us"].between(0, 1e6 * UPPER["seq_s"]).all()
    # t_grp: every pooled candidate fits it in its fold (0 on the runs alone, which are dense)
    pooled = table["chosen"] != "watt_counts"
    assert (table.loc[~pooled, "chosen_group_us"] == 0).all()
    assert table.loc[pooled, "chosen_group_us"].between(0, 1e6 * UPPER["expert_group_s"]).all()
    assert table.loc[pooled, "chosen_group_us"].nunique() > 1  # refitted per fold, not one value
    for names, column in (
        (["pooled_formats"], "fp8_ratio"),
        (["pooled_collectives", "pooled_stack"], "collective_ratio"),
        (["pooled_stack"], "rocm_ratio"),
    ):
        freed = table["chosen"].isin(names)
        assert (table.loc[~freed, f"chosen_{column}"] == 1).all()
        assert table[f"chosen_{column}"].between(LOWER[column], UPPER[column]).all()
    assert (table["chosen_fp4_ratio"] == 1).all()


def test_the_watt_counts_constants_rows_are_current(table):
    """A fresh evaluation of the Watt Counts constants on each held-out source (one fit on the
    runs alone: a change of the external table or of the physics that was not rebuilt fails)."""
    a, before = C.asked(), C.watt_counts_constants()
    for source, part in table[table["basis"] == "watt_counts"].groupby("source"):
        fresh = C.held_out_table(a.take(a.sources == source), before, before)
        fresh = fresh[fresh["basis"] == "watt_counts"].set_index("quantity")
        part = part.set_index("quantity")
        assert list(part.index) == list(fresh.index), source
        np.testing.assert_array_equal(part["values"], fresh["values"])
        np.testing.assert_allclose(part["ratio"], fresh["ratio"], rtol=1e-5)
        np.testing.assert_allclose(part["mdape_pct"], fresh["mdape_pct"], rtol=1e-4, atol=1e-4)


def test_no_fitted_constants_escape_a_value_by_leaving_it_unanswered(table):
    """The pooled loss counts a value the constants leave unanswered (a rate they call saturated)
    as 0: each fold's chosen constants and the shipped ones answer every value the runs-alone
    constants answer (until 2026-12-08 a source of Poisson runs that fell behind their arrivals
    was asked at rates no constants could carry, and its fold answered none of its values)."""
    per_basis = table.pivot_table("values", ["source", "quantity"], "basis")
    np.testing.assert_array_equal(per_basis["chosen"], per_basis["watt_counts"])
    a = C.asked()
    base = np.isfinite(C.log_ratios(a, C.watt_counts_constants()))
    shipped = np.isfinite(C.log_ratios(a, HybridState.pretrained().constants))
    np.testing.assert_array_equal(shipped, base)


def test_the_folds_in_separate_processes_give_the_same_table(monkeypatch):
    """The outer folds are independent: run in two processes they give the one-process table
    (a stand-in for the least-squares fit keeps it fast; the processes are forked with it)."""

    def shipped_fit(ts, a, names=None):
        return HybridState.pretrained().constants

    monkeypatch.setattr(C, "fit_pooled", shipped_fit)
    two = C.scored_sources(C.asked())[:2]
    serial = C.leave_one_source_out(only=two)
    parallel = C.leave_one_source_out(only=two, workers=2)
    assert list(serial["source"].unique()) == two
    pd.testing.assert_frame_equal(serial, parallel)


def test_known_inner_scores_are_not_refitted(monkeypatch):
    def no_fit(ts, a, names=None):
        raise AssertionError("a candidate with a known inner score was fitted")

    monkeypatch.setattr(C, "fit_pooled", no_fit)
    known = {name: 0.5 for name in C.CANDIDATES} | {"pooled_host": 0.25}
    name, means = C.choose(None, None, known)
    assert name == "pooled_host" and list(means) == list(C.CANDIDATES)


def test_a_stored_fold_whose_candidate_still_wins_stands_and_only_the_added_one_is_fitted(
    monkeypatch, table
):
    """A table as built before the fifth candidate (the added ones' columns and scores dropped),
    whose fold chose ``watt_counts`` at an inner score no fit can beat: the added candidates alone
    are fitted on the inner folds, never refitted, and the fold keeps its stored rows."""
    fitted: list[tuple[str, ...]] = []

    def recording_fit(ts, a, names=None):
        fitted.append(names)
        return HybridState.pretrained().constants

    monkeypatch.setattr(C, "fit_pooled", recording_fit)
    source = sorted(table["source"].unique())[0]
    added = ["chosen_collective_ratio", "chosen_rocm_ratio", "inner_pooled_collectives"]
    old = table.drop(columns=[*added, "inner_pooled_stack"]).assign(
        chosen="watt_counts", chosen_seq_us=0.0, chosen_fp8_ratio=1.0, inner_watt_counts=0.0
    )
    out = C.held_out_source(source, stored=old)
    pair = [C.FREED["pooled_collectives"], C.FREED["pooled_stack"]]
    assert fitted == pair * C.INNER_FOLDS  # no refit
    before = old[old["source"] == source].reset_index(drop=True)
    pd.testing.assert_frame_equal(out[before.columns], before)
    assert (out["chosen_collective_ratio"] == 1.0).all() and (out["chosen_rocm_ratio"] == 1.0).all()
    assert (out[["inner_pooled_collectives", "inner_pooled_stack"]] > 0).all().all()
    assert list(out.columns) == list(table.columns)


def test_a_stored_fold_keeps_the_constants_its_candidate_fitted(monkeypatch, table):
    """A fold that chose ``pooled_collectives`` before ``pooled_stack`` was written down, and still
    wins: its fitted collectives' ratio stands (not reset to the default) and ROCm's share, which
    it did not free, reads 1."""
    monkeypatch.setattr(C, "fit_pooled", lambda ts, a, names=None: C.watt_counts_constants())
    kept = table[table["chosen"] == "pooled_collectives"]
    source = sorted(kept["source"].unique())[0]
    old = table.drop(columns=["chosen_rocm_ratio", "inner_pooled_stack"])
    old.loc[old["source"] == source, "inner_pooled_collectives"] = 0.0  # no fit can beat it
    out = C.held_out_source(source, stored=old)
    fitted = kept.loc[kept["source"] == source, "chosen_collective_ratio"].to_numpy()
    assert out["chosen_collective_ratio"].tolist() == fitted.tolist() and fitted[0] > 1
    assert (out["chosen_rocm_ratio"] == 1.0).all() and list(out.columns) == list(table.columns)


@pytest.mark.parametrize(
    ("column", "name"),
    [("gpu", "A100 SXM4 40GB"), ("llm", "mistralai/Mistral-7B-Instruct-v0.3")],
)
def test_a_fold_without_a_gpu_or_llm_fits_none_of_its_external_rows(column, name):
    """The shipped model's constants see the other harnesses' rows; a fold that holds a Watt
    Counts GPU or LLM out must hold out its external rows too, and only those."""
    a, ts = C.asked(), training_runs.watt_counts()
    assert F.rows_without(ts, a).all()
    on_it = (a.frame[column] == name).to_numpy()
    assert on_it.sum() >= 5  # both tables hold it
    kept = F.rows_without(ts.take(ts.frame[column].to_numpy() != name), a)
    np.testing.assert_array_equal(kept, ~on_it)
