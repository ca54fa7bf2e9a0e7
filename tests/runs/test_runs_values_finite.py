"""A runs table whose positive columns hold infinity is refused by name, as a zero or a NaN
is: ``power_w = inf`` passed the "> 0" check and reached the fits as a measurement."""

import numpy as np
import pytest

from wattgpu_lite.errors import DataFileError
from wattgpu_lite.runs import measurements as ms


@pytest.fixture(scope="module")
def runs():
    return ms.load()


@pytest.mark.parametrize("column", ["power_w", "itl_s", "energy_per_token_j", "duration_s"])
@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan, 0.0])
def test_a_value_that_is_no_positive_number_is_named(runs, column, value):
    bad = runs.copy()
    bad.loc[3, column] = value
    with pytest.raises(DataFileError, match=rf"'{column}' must be > 0 and finite; 1 rows are"):
        ms.validate(bad, "watt_counts_runs.csv")


def test_the_shipped_runs_pass(runs):
    assert ms.validate(runs.copy(), "watt_counts_runs.csv").equals(runs)
