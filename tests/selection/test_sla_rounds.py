"""The SLA search's rounds: a bracket closes where the ITL is one line or jumps at a feature's
level, the answer is the crossing to LOAD_RTOL, and the levels are where the forest's rounded
feature reaches each split."""

from __future__ import annotations

import numpy as np
import pytest

from wattgpu_lite.hybrid.predict import sla_rounds
from wattgpu_lite.hybrid.predict.correction import TREE_DECIMALS
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.trees import Forest

SLA_S = 0.05


def search(itl_of, lo, hi, levels=None):
    """(largest good load's rate, rounds) of ``itl_of(load)`` on brackets [lo, hi]; the rate is
    the load itself and the bytes per FLOP a constant."""
    rounds = []

    def itl_at(rows, loads):
        rounds.append(len(rows))
        return itl_of(loads), loads, np.ones_like(loads)

    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    ends = (lo, hi, lo.copy(), itl_of(lo), itl_of(hi), np.ones_like(lo), np.ones_like(hi))
    return sla_rounds.largest_good_rate(itl_at, ends, sla_s=SLA_S, levels=levels or {}), rounds


def test_a_bracket_on_one_line_closes_in_one_round_at_the_crossing():
    slope, at_zero = np.array([5e-4, 7.5e-3, 1e-6]), np.array([0.01, 0.0, 0.02])
    lo, hi = np.array([0.5, 3.0, 10.0]), np.array([100.0, 7.0, 5e4])
    rate, rounds = search(lambda load: at_zero[:, None] + slope[:, None] * load, lo, hi)
    root = (SLA_S - at_zero) / slope
    assert len(rounds) == 1
    assert np.all(rate <= root) and np.all(root - rate <= sla_rounds.LOAD_RTOL * root)


def test_a_jump_across_the_sla_at_a_feature_level_closes_in_two_rounds():
    """ITL 0.04 below ln L = 2.5000005 and 0.06 from there: the level of log_in_flight."""
    level = 2.5000005
    itl_of = lambda load: np.where(np.log(load) < level, 0.04, 0.06)  # noqa: E731
    levels = {"log_in_flight": np.array([1.0, level, 3.0])}
    rate, rounds = search(itl_of, [1.5], [60.0], levels)
    jump = np.exp(level)
    assert len(rounds) <= 2
    assert rate[0] <= jump and jump - rate[0] <= sla_rounds.LOAD_RTOL * jump
    plain, plain_rounds = search(itl_of, [1.5], [60.0])  # no levels: the grid alone
    assert plain[0] == pytest.approx(rate[0], rel=sla_rounds.LOAD_RTOL)
    assert len(plain_rounds) > len(rounds)


def test_the_levels_are_where_the_rounded_feature_reaches_each_split():
    """Just below each level the rounded feature (float32, as the forest compares) is below a
    split threshold of its column, just above it reaches that threshold: one level a threshold."""
    corr = HybridState.pretrained().corrections["itl"]
    forest = Forest.from_json(corr.forest_json)
    levels = sla_rounds.feature_levels(corr)
    assert "log_in_flight" in levels and set(levels) <= set(sla_rounds.LOAD_COLUMNS)
    for name, at in levels.items():
        splits = (forest.feature == corr.columns.index(name)) & (forest.left >= 0)
        theta = np.unique(forest.threshold[splits])
        below = np.float32(np.round(at - 1e-9, TREE_DECIMALS))
        above = np.float32(np.round(at + 1e-9, TREE_DECIMALS))
        assert len(at) == len(theta) and np.all((below < theta) & (above >= theta)), name
    assert sla_rounds.feature_levels(None) == {}
