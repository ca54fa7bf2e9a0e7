"""The one SLA verdict: meets at the upper ITL bound, may meet at the estimate
only, misses, not answered (no ITL), does not fit; a ranking orders by it, then by energy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.selection.table import add_verdicts, order, order_index
from wattgpu_lite.selection.verdict import (
    DOES_NOT_FIT,
    MAY_MEET,
    MEETS,
    MISSES,
    NOT_ANSWERED,
    VERDICTS,
    sla_verdict,
    sla_verdicts,
    verdict_rank,
)


@pytest.mark.parametrize(
    ("itl", "hi", "verdict"),
    [(8.9, 33.7, MEETS), (34.5, 130.0, MAY_MEET), (50.0, 50.0, MEETS), (49.7, 186.0, MAY_MEET),
     (50.01, 60.0, MISSES), (40.0, math.nan, MEETS), (math.nan, math.nan, NOT_ANSWERED)],
)  # fmt: skip
def test_the_verdict_of_one_plan_at_a_50_ms_sla(itl, hi, verdict):
    assert sla_verdict(itl, hi, 50.0) == verdict


def test_a_plan_that_does_not_fit_or_cannot_be_served_never_meets():
    assert sla_verdict(10.0, 20.0, 50.0, fits=False) == DOES_NOT_FIT
    assert sla_verdict(10.0, 20.0, 50.0, served=False) == MISSES


def test_a_fitting_plan_without_an_itl_is_not_answered_never_said_to_miss():
    # a source that refuses a row (below the physical floor) or has no run leaves its ITL NaN:
    # it was not answered, so it cannot have missed the SLA
    assert sla_verdict(math.nan, math.nan, 50.0, served=False) == NOT_ANSWERED
    assert sla_verdict(math.nan, math.nan, 50.0, fits=False) == DOES_NOT_FIT


def test_the_verdicts_in_a_rankings_order():
    assert VERDICTS == ("meets", "may meet", "misses", "not answered", "does not fit")


def test_verdicts_of_a_table_keep_its_index_and_need_no_interval():
    table = pd.DataFrame({"itl_ms": [10.0, 60.0]}, index=[3, 7])
    assert sla_verdicts(table, 50.0).to_dict() == {3: MEETS, 7: MISSES}


def test_verdicts_of_a_ranking_read_fits_and_the_rankings_own_refusal():
    table = pd.DataFrame({"itl_ms": [10.0, 10.0, 10.0, math.nan, math.nan],
                          "itl_ms_hi": [20.0, 80.0, 20.0, math.nan, math.nan],
                          "fits": [True, True, True, True, False],
                          "meets_sla": [True, True, False, False, False]})  # fmt: skip
    verdicts = [MEETS, MAY_MEET, MISSES, NOT_ANSWERED, DOES_NOT_FIT]
    assert list(sla_verdicts(table, 50.0)) == verdicts


@pytest.mark.parametrize("sla", [0.0, -5.0, math.nan])
def test_a_non_positive_sla_is_refused_by_name(sla):
    with pytest.raises(InvalidInputError, match="itl_sla_ms"):
        sla_verdict(10.0, 20.0, sla)
    with pytest.raises(InvalidInputError, match="itl_sla_ms"):
        sla_verdicts(pd.DataFrame({"itl_ms": [10.0]}), sla)


def test_an_unknown_verdict_is_named():
    assert list(verdict_rank(pd.Series([MISSES, MEETS]))) == [2, 0]
    with pytest.raises(ValueError, match="'yes'"):
        verdict_rank(pd.Series(["yes"]))


def test_a_ranking_puts_confident_plans_first_then_by_energy():
    # the cheapest plan only may meet the SLA; a dearer one meets it at its upper bound
    table = pd.DataFrame({
        "gpu": ["cheap", "sure", "slow", "small", "dear"],
        "itl_ms": [40.0, 10.0, 70.0, math.nan, 20.0],
        "itl_ms_hi": [90.0, 30.0, 120.0, math.nan, 45.0],
        "fits": [True, True, True, False, True],
        "meets_sla": [True, True, False, False, True],
        "energy_per_1k_tokens_j": [70.0, 80.0, 60.0, math.nan, 90.0],
    })  # fmt: skip
    ranked = order(add_verdicts(table, 50.0))
    assert list(ranked["gpu"]) == ["sure", "dear", "cheap", "slow", "small"]
    assert list(ranked["verdict"]) == [MEETS, MEETS, MAY_MEET, MISSES, DOES_NOT_FIT]
    assert list(ranked["rank"].head(3)) == [1, 2, 3] and ranked["rank"].tail(2).isna().all()


def test_pick_under_sla_and_the_sweep_judge_a_prediction_at_its_bound_and_runs_at_their_itl():
    """The SLA sweep picks by the one verdict rule — a plan whose ITL
    interval reaches past the SLA only "may meet" it, and a confident plan wins over it even at
    more energy; without intervals (the measured runs) the ITL decides, the paper's rule."""
    import pandas as pd

    from wattgpu_lite.selection.rank import pick_under_sla, sla_sweep

    plans = pd.DataFrame({"gpu": ["A", "B", "C"], "fits": [True, True, False],
                          "itl_ms": [40.0, 30.0, 10.0], "itl_ms_hi": [70.0, 45.0, 12.0],
                          "energy_per_1k_tokens_j": [100.0, 150.0, 50.0],
                          "meets_sla": [False, False, False]})  # fmt: skip
    assert pick_under_sla(plans, 50)["gpu"] == "B"  # A only may meet 50 ms (70 > 50)
    assert pick_under_sla(plans, 42)["gpu"] == "A"  # both only may meet 42 ms: the energy decides
    assert pick_under_sla(plans.assign(itl_ms_hi=[70.0, 60.0, 12.0]), 50)["gpu"] == "A"  # both may
    assert pick_under_sla(plans, 20) is None  # C would, but it does not fit
    runs = plans.drop(columns="itl_ms_hi")  # measured: no interval, the ITL decides
    assert pick_under_sla(runs, 50)["gpu"] == "A"
    sweep = sla_sweep(plans, [20, 50, 80])
    assert pd.isna(sweep["pick"].iloc[0]) and sweep["pick"].tolist()[1:] == ["B", "A"]
    assert sweep["n_meeting_sla"].tolist() == [0, 2, 2]


def test_the_vectorised_verdicts_and_order_are_the_row_by_row_rule_and_sort_values():
    """Random plans with ties, NaN ITLs and energies: every verdict is sla_verdict's, and the
    order is DataFrame.sort_values' (stable, NaN energy last) by verdict, energy, GPU, count."""
    rng = np.random.default_rng(7)
    n = 400
    itl = np.where(rng.random(n) < 0.1, np.nan, rng.choice([10.0, 40.0, 50.0, 60.0], n))
    table = pd.DataFrame(
        {
            "gpu": rng.choice(["A30", "L4", "H100 SXM", "B200"], n),
            "num_gpus": rng.choice([1, 2, 4], n),
            "itl_ms": itl,
            "itl_ms_hi": np.where(rng.random(n) < 0.2, np.nan, itl * rng.choice([1.0, 1.5], n)),
            "fits": rng.random(n) < 0.9,
            "meets_sla": rng.random(n) < 0.8,
            "energy_per_1k_tokens_j": np.where(
                rng.random(n) < 0.1, np.nan, rng.choice([1.0, 2.0], n)
            ),
        }
    )
    rows = [
        sla_verdict(r.itl_ms, r.itl_ms_hi, 50.0, r.fits, r.meets_sla) for r in table.itertuples()
    ]
    assert sla_verdicts(table, 50.0).tolist() == rows
    table = table.assign(verdict=rows)
    keys = ["_g", "energy_per_1k_tokens_j", "gpu", "num_gpus"]
    expected = table.assign(_g=verdict_rank(table["verdict"])).sort_values(keys).index
    assert order_index(table).tolist() == expected.tolist()
