"""An SLA verdict that states its rule: a plan's ITL against the SLA, at the estimate and at the
upper end of its interval.

    verdict = "meets at the upper bound"  if itl_hi ≤ SLA   (the whole interval is within)
              "meets at the estimate"     if itl ≤ SLA < itl_hi
              "misses"                    if itl > SLA

``meets_sla`` in a ranking is the second rule (the point estimate decides); this module names
which of the two a plan meets, so a verdict is never read as stronger than its interval.
"""

from __future__ import annotations

import math

import pandas as pd

from wattgpu_lite.errors import InvalidInputError

AT_UPPER = "meets at the upper bound"
AT_ESTIMATE = "meets at the estimate"
MISSES = "misses"


def sla_verdict(itl_ms: float, itl_ms_hi: float, itl_sla_ms: float) -> str:
    """The verdict of one plan (see the module docstring); NaN ``itl_ms_hi`` (no interval)
    counts as the estimate itself, a NaN ``itl_ms`` (the plan does not fit) misses."""
    if not itl_sla_ms > 0:
        raise InvalidInputError(
            f"itl_sla_ms must be a positive number of milliseconds, got {itl_sla_ms!r}; "
            "pass e.g. itl_sla_ms=50"
        )
    if math.isnan(itl_ms) or itl_ms > itl_sla_ms:
        return MISSES
    hi = itl_ms if math.isnan(itl_ms_hi) else itl_ms_hi
    return AT_UPPER if hi <= itl_sla_ms else AT_ESTIMATE


def sla_verdicts(table: pd.DataFrame, itl_sla_ms: float) -> pd.Series:
    """One verdict per row of a ranking (columns ``itl_ms`` and, if present, ``itl_ms_hi``)."""
    hi = table["itl_ms_hi"] if "itl_ms_hi" in table else table["itl_ms"]
    values = [sla_verdict(float(v), float(h), itl_sla_ms)
              for v, h in zip(table["itl_ms"], hi, strict=True)]  # fmt: skip
    return pd.Series(values, index=table.index, name="verdict")
