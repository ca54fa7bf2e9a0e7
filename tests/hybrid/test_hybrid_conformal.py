"""Group-level conformal half-widths: each held-out group weighs the same, none falls below 60 %."""

from __future__ import annotations

import numpy as np
import pytest

from wattgpu_lite.hybrid.fit import conformal as C
from wattgpu_lite.hybrid.fit.conformal import group_quantile, weighted_quantile
from wattgpu_lite.hybrid.predict import intervals as K


def test_weighted_quantile_by_hand():
    scores = np.array([0.1, 0.2, 0.3, 0.4])
    assert weighted_quantile(scores, np.ones(4), 0.5) == 0.2
    assert weighted_quantile(scores, np.ones(4), 0.75) == 0.3
    # the last score weighs as much as the other three: half the mass sits at 0.4
    assert weighted_quantile(scores, np.array([1, 1, 1, 3.0]), 0.6) == 0.4


def test_a_group_with_many_rows_does_not_outvote_the_others():
    """Group a: 900 rows at 0.05; groups b-e: 25 rows at 0.5. Row-weighted, the 80 % quantile
    is 0.05 (a covers 90 % of rows) and groups b-e would get 0 % coverage; group-weighted it is
    0.5."""
    scores = np.r_[np.full(900, 0.05), np.full(100, 0.5)]
    groups = np.r_[np.full(900, "a"), np.repeat(list("bcde"), 25)]
    assert weighted_quantile(scores, np.ones(1000), 0.8) == 0.05
    assert group_quantile(scores, groups, 0.8) == 0.5


def test_the_floor_covers_every_group_at_least_sixty_percent():
    rng = np.random.default_rng(0)
    groups = np.repeat(np.arange(8), 100)
    scale = np.where(groups == 7, 2.0, 0.1)  # one GPU far worse than the rest
    scores = np.abs(rng.normal(0, 1, 800)) * scale
    q = group_quantile(scores, groups, 0.8)
    per_group = [np.mean(scores[groups == g] <= q) for g in range(8)]
    assert min(per_group) >= 0.6
    assert q >= np.quantile(scores[groups == 7], 0.6)


def test_q_grows_with_the_level_and_interpolates():
    rng = np.random.default_rng(1)
    scores = np.abs(rng.normal(0, 0.2, 400))
    tables = {
        "new gpu": {"power": C.table(scores, np.repeat(np.arange(8), 50), np.full(400, "server"))}
    }
    q = [
        K.q_at(tables, "new gpu", "power", "server", level=lv)
        for lv in (0.6, 0.8, 0.805, 0.81, 0.95)
    ]
    assert np.all(np.diff(q) >= 0)
    assert q[2] == pytest.approx((q[1] + q[3]) / 2)


def test_q_at_reads_the_two_grid_levels_around_the_level_to_the_last_bit():
    """q_at interpolates on the pair of grid levels np.interp over the whole grid reads: the
    same bits at every grid level, between them and beyond both ends, for every shipped table."""
    from wattgpu_lite.hybrid.predict.model import HybridState

    tables = HybridState.pretrained().tables
    grid = np.array(K.LEVEL_GRID)
    levels = [
        *grid,
        *(grid[:-1] + np.diff(grid) * 0.37),
        0.8,
        0.2,
        0.9995,
        1.5,
        np.nextafter(0.5, 0),
    ]
    for basis, by_target in tables.items():
        for target, by_regime in by_target.items():
            for regime, row in by_regime.items():
                q = np.array([row[f"{lv:g}"] for lv in K.LEVEL_GRID])
                got = [K.q_at(tables, basis, target, regime, level=lv) for lv in levels]
                assert np.array_equal(got, [np.interp(lv, grid, q) for lv in levels])


def test_excess_efolds_adds_the_inputs_in_their_order_to_the_last_bit():
    """excess_efolds, one (inputs, rows) expression, is the sum input by input in WATCHED's
    order of each input's e-folds below and above its range (0 in range), bit for bit."""
    from wattgpu_lite.hybrid.predict.model import HybridState

    model, rng = HybridState.pretrained(), np.random.default_rng(3)
    for n in (1, 7, 1000):
        values = {}
        for name in K.WATCHED:
            lo, hi = model.ranges[name]
            values[name] = np.exp(rng.uniform(np.log(lo) - 3, np.log(hi) + 3, n))
        values["in_flight"][: n // 2] = 0.0  # below the 1e-12 guard
        total = np.zeros(n)
        for name in K.WATCHED:
            lo, hi = model.ranges[name]
            v = np.maximum(values[name], 1e-12)
            total += np.maximum(np.log(v / hi), 0.0) + np.maximum(np.log(lo / v), 0.0)
        assert np.array_equal(K.excess_efolds(model, values), total) and total.any()


def test_basis_follows_what_the_runs_contain():
    seen_llm = np.array([True, True, False, False, True])
    seen_gpu = np.array([True, False, True, False, True])
    odd = np.array([False, False, False, False, True])
    assert [K.BASES[k] for k in K.basis_code_of(seen_llm, seen_gpu, odd)] == [
        "cv",
        "new gpu",
        "new llm",
        "new gpu and llm",
        "physics",
    ]
