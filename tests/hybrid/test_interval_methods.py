"""The interval candidates of a fold's residual pool (hybrid.report.interval_methods): their
bands on a synthetic pool of known source offsets, derived by hand; the inner choice; and the
held-out source never reaches its own interval's pool nor the choice."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.report import calibrated_folds, calibration, interval_methods

#: source -> (offset z = ln(measured / predicted), rows); no spread within a source
OFFSETS = {"a": (-0.2, 100), "b": (-0.1, 5), "c": (0.0, 5), "d": (0.1, 5), "e": (0.2, 5)}


def _rows(source: str, z: float, n: int) -> pd.DataFrame:
    return pd.DataFrame({
        "source_title": source, "quantity": "itl_s", "gpu_seen": True, "replica": "one GPU",
        "batch_band": "≤ 16", "context_band": "≤ 1024", "predicted": 2.0,
        "measured": 2.0 * np.exp(np.full(n, z)), "limit_lo": 0.0, "limit_hi": np.inf,
        "lo": 1.0, "hi": 4.0,
    })  # fmt: skip


def _pool() -> pd.DataFrame:
    return pd.concat([_rows(s, z, n) for s, (z, n) in OFFSETS.items()], ignore_index=True)


def test_weighted_quantiles_interpolate_at_the_midpoints_of_the_cumulative_weights():
    v = np.array([3.0, 1.0, 2.0, 5.0, 4.0])
    assert interval_methods.weighted_quantiles(v, np.ones(5), [0.1, 0.5, 0.9]) == pytest.approx(
        [1, 3, 5]
    )
    # weights 3:1 on 0 and 1: midpoints 0.375 and 0.875, so Q(0.5) = 0.25; clamped outside
    q = interval_methods.weighted_quantiles(
        np.array([0.0, 1.0]), np.array([3.0, 1.0]), [0.1, 0.5, 0.95]
    )
    assert q == pytest.approx([0.0, 0.25, 1.0])


def test_each_candidate_on_known_offsets():
    """120 residuals: source a's 100 at −0.2, then 5 each at −0.1, 0, 0.1, 0.2."""
    mine = _rows("new", 0.1, 10)
    got = {
        m: interval_methods.bands(_pool(), mine, m).iloc[0].to_numpy()
        for m in interval_methods.CANDIDATES
    }
    # np.quantile over the rows: position 11.9 is a's −0.2, position 107.1 is c's 0
    assert got["pooled"] == pytest.approx([-0.2, 0.0, 0])
    # every source alike (Hazen midpoints 0.1 … 0.9), or the five offsets with no spread within
    assert got["source_weighted"] == pytest.approx([-0.2, 0.2, 0])
    assert got["two_level"] == pytest.approx([-0.2, 0.2, 0])
    # one quantity: the shrunk spread is the offsets' own, var = 0.025 (n − 1), mean 0
    half = np.sqrt(0.025) * norm.ppf(0.9)  # the 25 nodes put Q(0.1) on the node at 2.5 / 25
    assert got["two_level_shrunk"] == pytest.approx([-half, half, 0])


def test_the_chosen_candidate_covers_and_is_as_wide_as_derived():
    method, scores = interval_methods.choose(_pool())
    assert scores[method] == min(scores.values()) and method != "pooled"
    width = {"source_weighted": np.exp(0.4), "two_level": np.exp(0.4)}
    width["two_level_shrunk"] = np.exp(2 * np.sqrt(0.025) * norm.ppf(0.9))
    inside = interval_methods.intervals(_pool(), _rows("new", 0.1, 10), method)
    outside = interval_methods.intervals(_pool(), _rows("new", 0.3, 10), method)
    assert inside["covered_x"].all() and not outside["covered_x"].any()
    assert inside["width_x"].to_numpy() == pytest.approx(width[method])
    # the pooled band misses a source at 0.1: a's 100 rows pull it to [−0.2, 0]
    assert not interval_methods.intervals(_pool(), _rows("new", 0.1, 10), "pooled")[
        "covered_x"
    ].any()


def test_the_inner_score_judges_each_pool_source_by_the_rest():
    """Log interval score: width + 10 × the miss (α = 0.2). Without source e, the pooled band of
    the 115 others is [−0.2, −0.1] (positions 11.4 and 102.6: a's, then b's): e at 0.2 is missed
    by 0.3 were the prediction not kept inside: [−0.2, 0], missed by 0.2."""
    x = interval_methods.intervals(
        _pool()[_pool()["source_title"] != "e"], _rows("e", 0.2, 5), "pooled"
    )
    assert interval_methods.interval_score(x) == pytest.approx(np.full(5, 0.2 + 10 * 0.2))
    with pytest.raises(ValueError, match="unknown interval method"):
        interval_methods.bands(_pool(), _rows("new", 0.0, 1), "widest")


def test_the_held_out_source_reaches_neither_its_pool_nor_the_choice(monkeypatch):
    a = calibrated_folds.asked_rows()
    source = calibration.scored_sources(a)[0]
    held = a.sources == source
    constants = HybridState.pretrained().constants
    pool = calibrated_folds.residual_pool(None, a.take(~held), "watt_counts", lambda *_: constants)
    outer = calibrated_folds.scored_rows(a.take(held), constants)
    seen: list[set[str]] = []
    bands = interval_methods.bands

    def recording(others, mine, method, *args):
        seen.append(set(others["source_title"]))
        return bands(others, mine, method, *args)

    monkeypatch.setattr(interval_methods, "bands", recording)
    monkeypatch.setattr(calibration, "watt_counts_constants", lambda: constants)
    table = calibrated_folds.fold_table(source, "watt_counts", outer, pool)
    assert len(table) == len(outer) and table["interval"].iloc[0] in interval_methods.CANDIDATES
    # the choice judges every pool source by the rest, then the outer rows by the whole pool
    assert len(seen) == len(interval_methods.CANDIDATES) * pool["source_title"].nunique() + 1
    assert all(source not in s for s in seen) and seen[-1] == set(pool["source_title"])
