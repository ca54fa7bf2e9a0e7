"""SLA verdicts that state their rule (issue 22): at the upper bound, at the estimate, misses."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.selection.verdict import AT_ESTIMATE, AT_UPPER, MISSES, sla_verdict, sla_verdicts


@pytest.mark.parametrize(
    ("itl", "hi", "verdict"),
    [(8.9, 33.7, AT_UPPER), (34.5, 130.0, AT_ESTIMATE), (50.0, 50.0, AT_UPPER),
     (50.01, 60.0, MISSES), (40.0, math.nan, AT_UPPER), (math.nan, math.nan, MISSES)],
)  # fmt: skip
def test_the_verdict_of_one_plan_at_a_50_ms_sla(itl, hi, verdict):
    assert sla_verdict(itl, hi, 50.0) == verdict


def test_verdicts_of_a_table_keep_its_index_and_need_no_interval():
    table = pd.DataFrame({"itl_ms": [10.0, 60.0]}, index=[3, 7])
    assert sla_verdicts(table, 50.0).to_dict() == {3: AT_UPPER, 7: MISSES}


@pytest.mark.parametrize("sla", [0.0, -5.0, math.nan])
def test_a_non_positive_sla_is_refused_by_name(sla):
    with pytest.raises(InvalidInputError, match="itl_sla_ms"):
        sla_verdict(10.0, 20.0, sla)
