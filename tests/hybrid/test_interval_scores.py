"""Interval width and Winkler score beside coverage, against hand calculations."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from wattgpu_lite.__main__ import main
from wattgpu_lite.hybrid.report import results as report
from wattgpu_lite.metrics import ape_pct


def _frame(y_true, y_pred, q80):
    return pd.DataFrame({"y_true": y_true, "y_pred": y_pred, "q80": q80})


def test_width_is_the_median_hi_over_lo():
    # y_pred·e^(±q) spans e^(2q): q = 0.1, 0.2, 0.3 → e^0.2, e^0.4, e^0.6; the median is e^0.4
    f = _frame([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.1, 0.2, 0.3])
    assert report.width_hi_lo(f) == pytest.approx(math.exp(0.4))


def test_interval_score_by_hand():
    """α = 0.2 at 80 %: a covered run scores 2q; a run whose ln y lies 0.1 beyond the edge adds
    (2 / 0.2) · 0.1 = 1.0. Two runs, q = 0.2: covered 0.4, missed 0.4 + 1.0; mean 0.9."""
    inside, outside = 1.0, math.exp(0.3)  # ln(y/ŷ) = 0 and 0.3 against q = 0.2
    f = _frame([inside, outside], [1.0, 1.0], [0.2, 0.2])
    assert report.interval_score(f) == pytest.approx(0.9)


def test_interval_score_is_the_mean_over_runs_of_log_ratios():
    """Three runs around predictions of 2.0 (not 1: ln(y/ŷ) must use the ratio), q = 0.2:
    ln(y/ŷ) = 0, 0.3, 0.5 → 0.4, 0.4 + 10·0.1, 0.4 + 10·0.3 → mean 2.0667 (the median is 1.4)."""
    f = _frame([2.0, 2.0 * math.exp(0.3), 2.0 * math.exp(0.5)], [2.0, 2.0, 2.0], [0.2, 0.2, 0.2])
    assert report.interval_score(f) == pytest.approx((0.4 + 1.4 + 3.4) / 3)


def test_a_wider_interval_cannot_buy_a_lower_score_than_a_right_one():
    right = _frame([1.0], [1.0], [0.05])
    wide = _frame([1.0], [1.0], [0.5])
    assert report.interval_score(right) < report.interval_score(wide)


def test_evaluate_hybrid_json_reports_width_and_score_per_group_and_pooled(capsys):
    assert main(["evaluate", "--model", "hybrid", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    shipped = report.shipped("logo")
    pooled = report.pooled(shipped).set_index(["target", "regime"])
    for row in doc["pooled"]:
        want = pooled.loc[(row["target"], row["regime"])]
        assert row["width80_hi_lo"] == pytest.approx(want["width80_hi_lo"], rel=1e-5)
        assert row["interval_score80"] == pytest.approx(want["interval_score80"], rel=1e-5)
        assert row["width80_hi_lo"] > 1.0 and row["interval_score80"] > 0
    groups = [k for k, v in doc.items() if isinstance(v, list) and k != "pooled"]
    assert any("width80_hi_lo" in r for k in groups for r in doc[k])


def test_stacked_medians_are_numpys_median_of_the_stacked_groups():
    """Odd and even stacks, a group drawn twice or not at all, ties, and a group holding a NaN (a
    draw that picks it has a NaN median, as np.median says): the same floats as the stack's."""
    rng = np.random.default_rng(3)
    values = np.round(rng.gamma(2.0, 3.0, 41), 1)  # rounded: ties across groups
    group = rng.integers(0, 6, 41)
    values[np.nonzero(group == 5)[0][0]] = np.nan
    counts = rng.integers(0, 3, (300, 6))
    counts[counts.sum(axis=1) == 0, 0] = 1
    got = report.stacked_medians(values, group, counts, block=64)
    for draw, row in zip(got, counts, strict=True):
        stack = np.concatenate([values[group == g] for g in range(6) for _ in range(row[g])])
        want = np.median(stack)
        assert (np.isnan(draw) and np.isnan(want)) or draw == want


def test_bootstrap_interval_is_the_median_of_each_draw_stacked():
    """The reference: each of the 2,000 draws' GPUs stacked and np.median taken, in one loop."""
    res = report.shipped("logo").query("target == 'itl' and regime == 'offline'")
    rng = np.random.default_rng(report.SEED)
    ape = ape_pct(res["y_true"], res["y_pred"])
    labels = res["gpu"].to_numpy()
    names = np.unique(labels)
    stats = [np.median(np.concatenate([ape[labels == n] for n in rng.choice(names, len(names))]))
             for _ in range(report.BOOTSTRAP)]  # fmt: skip
    want = np.quantile(stats, [0.05, 0.95])
    # the same order statistics; the quantiles' interpolation may round apart in the last bit
    assert report.bootstrap_mdape(res) == pytest.approx((want[0], want[1]), rel=1e-12)
