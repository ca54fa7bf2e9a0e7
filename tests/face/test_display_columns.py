"""``display_columns``: the ranking's readable table cut to the few columns a lesson's prose
reads, the same cells as ``display_table``, never a changed value."""

from __future__ import annotations

import pytest

from wattgpu_lite.face.explorer import (
    ENERGY_HEADER,
    ITL_HEADER,
    LESSON_HEADERS,
    display_columns,
    display_table,
)
from wattgpu_lite.selection.rank import rank_gpus

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture(scope="module")
def hybrid():
    return rank_gpus(LLAMA8, scenario="server_low", itl_sla_ms=30.0, candidates=["A30", "L4", "T4"])


def test_the_default_is_plan_verdict_itl_and_energy_with_their_intervals(hybrid):
    shown = display_columns(hybrid)
    assert list(shown.columns) == ["plan", "verdict", "ITL (ms), 80 % interval",
                                   "energy per 1,000 tokens (J), 80 % interval"]  # fmt: skip
    assert shown.equals(display_table(hybrid)[list(shown.columns)])
    assert LESSON_HEADERS[2:] == (ITL_HEADER, ENERGY_HEADER)


def test_headers_keep_their_order_and_match_without_an_interval():
    measured = rank_gpus(LLAMA8, scenario="server_low", itl_sla_ms=30.0, source="measured")
    shown = display_columns(measured, "power (W)", "plan", ITL_HEADER)
    assert list(shown.columns) == ["power (W)", "plan", "ITL (ms)"]
    a30 = shown.set_index("plan").loc["A30*"]
    assert (a30["ITL (ms)"], a30["power (W)"]) == ("20.5", "40.5")  # the runs' A30, as the table


def test_a_header_no_column_has_is_refused(hybrid):
    with pytest.raises(KeyError, match="no column 'ITL'"):
        display_columns(hybrid, "ITL")  # a prefix without its comma is not a header
