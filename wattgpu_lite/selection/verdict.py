"""The one SLA verdict of the kit: a plan's ITL against the SLA, read at the upper end of its
interval and at its estimate (``rank_gpus``' ``verdict`` column, the CLI, the dashboard, the plot).

    verdict = "does not fit"  if the plan cannot hold the model (``fits`` is False)
              "misses"        if itl > SLA, or the ranking cannot serve the plan at all
              "meets"         if itl_hi ≤ SLA          (the whole interval is within)
              "may meet"      if itl ≤ SLA < itl_hi    (the estimate is, the upper bound is not)

A plan without an ITL interval (the Watt Counts sources — measured, paper, logo — or a NaN
``itl_ms_hi``) is judged by its estimate alone: it "meets" when its ITL is within the SLA.
``meets_sla`` (kept for compatibility) is True for "meets" and "may meet": the estimate decides.
A ranking orders its plans by :data:`VERDICTS` (confident plans first), then by energy.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from wattgpu_lite.checks import check_itl_sla_ms

MEETS = "meets"
MAY_MEET = "may meet"
MISSES = "misses"
DOES_NOT_FIT = "does not fit"
VERDICTS: tuple[str, ...] = (MEETS, MAY_MEET, MISSES, DOES_NOT_FIT)  # a ranking's order
MEETS_AT_ESTIMATE: tuple[str, ...] = (MEETS, MAY_MEET)  # the verdicts where meets_sla is True


def sla_verdict(itl_ms: float, itl_ms_hi: float, itl_sla_ms: float, fits: bool = True,
                served: bool = True) -> str:  # fmt: skip
    """The verdict of one plan (see the module docstring). ``itl_ms``: its ITL estimate,
    ``itl_ms_hi``: the upper end of its ITL interval (NaN: no interval, the estimate decides),
    both in ms; ``fits``: it holds the model; ``served``: the ranking can serve it (False for no
    data, more than the replicas allowed, beyond capacity: it misses whatever its ITL)."""
    sla = check_itl_sla_ms(itl_sla_ms)
    if not fits:
        return DOES_NOT_FIT
    if not served or math.isnan(itl_ms) or itl_ms > sla:
        return MISSES
    hi = itl_ms if math.isnan(itl_ms_hi) else itl_ms_hi
    return MEETS if hi <= sla else MAY_MEET


def sla_verdicts(table, itl_sla_ms: float) -> pd.Series:
    """One verdict per row of a ranking made for ``itl_sla_ms``: columns ``itl_ms`` and, if
    present, ``itl_ms_hi``, ``fits`` and ``meets_sla`` (False: the ranking turned the plan down,
    for its ITL or because it cannot serve it)."""
    return pd.Series(verdict_array(table, itl_sla_ms), index=table.index, name="verdict",
                     dtype=object)  # fmt: skip


def verdict_array(table, itl_sla_ms: float) -> np.ndarray:
    """:func:`sla_verdicts` as an object array, of a frame or a dict of columns: every row at
    once, by :func:`sla_verdict`'s rule."""
    sla = check_itl_sla_ms(itl_sla_ms)
    itl = np.asarray(table["itl_ms"], dtype=float)
    hi = np.asarray(table["itl_ms_hi"] if "itl_ms_hi" in table else itl, dtype=float)
    fits = np.asarray(table["fits"], dtype=bool) if "fits" in table else True
    served = np.asarray(table["meets_sla"], dtype=bool) if "meets_sla" in table else True
    misses = ~np.asarray(served) | np.isnan(itl) | (itl > sla)
    within = np.where(np.isnan(hi), itl, hi) <= sla
    picked = np.select([~np.asarray(fits), misses, within], [DOES_NOT_FIT, MISSES, MEETS], MAY_MEET)
    return np.broadcast_to(picked, itl.shape).astype(object)


def verdict_rank(verdicts: pd.Series) -> np.ndarray:
    """The position of each verdict in :data:`VERDICTS` (0 = meets ... 3 = does not fit), the
    first key of a ranking's order; an unknown verdict is a ValueError naming it."""
    unknown = sorted(set(verdicts) - set(VERDICTS))
    if unknown:
        raise ValueError(f"unknown verdicts {unknown}; expected one of {list(VERDICTS)}")
    return np.array([VERDICTS.index(v) for v in verdicts], dtype=int)
