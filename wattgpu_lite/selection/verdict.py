"""The one SLA verdict of the kit: a plan's ITL against the SLA, read at the upper end of its
interval and at its estimate (``rank_gpus``' ``verdict`` column, the CLI, the dashboard, the plot).

    verdict = "does not fit"  if the plan cannot hold the model (``fits`` is False)
              "not answered"  if it has no ITL (NaN: the source refused it, or has no data)
              "misses"        if itl > SLA, or the ranking cannot serve the plan at all
              "meets"         if itl_hi ≤ SLA          (the whole interval is within)
              "may meet"      if itl ≤ SLA < itl_hi    (the estimate is, the upper bound is not)

A plan without an ITL interval (the Watt Counts sources — measured, paper, logo — or a NaN
``itl_ms_hi``) is judged by its estimate alone: it "meets" when its ITL is within the SLA.
``meets_sla`` (kept for compatibility) is True for "meets" and "may meet": the estimate decides.
A ranking orders its plans by :data:`VERDICTS` (confident plans first), then by energy;
:func:`pick_under_sla` and :func:`sla_sweep` read a ranking by the same rule.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from wattgpu_lite.checks import check_itl_sla_ms

MEETS = "meets"
MAY_MEET = "may meet"
MISSES = "misses"
NOT_ANSWERED = "not answered"  # no number: the row's why_not says why
DOES_NOT_FIT = "does not fit"
VERDICTS: tuple[str, ...] = (MEETS, MAY_MEET, MISSES, NOT_ANSWERED, DOES_NOT_FIT)  # the order
MEETS_AT_ESTIMATE: tuple[str, ...] = (MEETS, MAY_MEET)  # the verdicts where meets_sla is True


def sla_verdict(
    itl_ms: float, itl_ms_hi: float, itl_sla_ms: float, fits: bool = True, served: bool = True
) -> str:
    """The verdict of one plan (see the module docstring). ``itl_ms``: its ITL estimate,
    ``itl_ms_hi``: the upper end of its ITL interval (NaN: no interval, the estimate decides),
    both in ms; ``fits``: it holds the model; ``served``: the ranking can serve it (False for no
    data, more than the replicas allowed, beyond capacity: it misses whatever its ITL); a plan
    that fits without an ITL (NaN) is not answered."""
    sla = check_itl_sla_ms(itl_sla_ms)
    if not fits:
        return DOES_NOT_FIT
    if math.isnan(itl_ms):
        return NOT_ANSWERED
    if not served or itl_ms > sla:
        return MISSES
    hi = itl_ms if math.isnan(itl_ms_hi) else itl_ms_hi
    return MEETS if hi <= sla else MAY_MEET


def sla_verdicts(table, itl_sla_ms: float) -> pd.Series:
    """One verdict per row of a ranking made for ``itl_sla_ms``: columns ``itl_ms`` and, if
    present, ``itl_ms_hi``, ``fits`` and ``meets_sla`` (False: the ranking turned the plan down,
    for its ITL or because it cannot serve it)."""
    return pd.Series(
        verdict_array(table, itl_sla_ms), index=table.index, name="verdict", dtype=object
    )


def verdict_array(table, itl_sla_ms: float) -> np.ndarray:
    """:func:`sla_verdicts` as an object array, of a frame or a dict of columns: every row at
    once, by :func:`sla_verdict`'s rule."""
    sla = check_itl_sla_ms(itl_sla_ms)
    itl = np.asarray(table["itl_ms"], dtype=float)
    hi = np.asarray(table["itl_ms_hi"] if "itl_ms_hi" in table else itl, dtype=float)
    fits = np.asarray(table["fits"], dtype=bool) if "fits" in table else True
    served = np.asarray(table["meets_sla"], dtype=bool) if "meets_sla" in table else True
    kinds = [~np.asarray(fits), np.isnan(itl), ~np.asarray(served) | (itl > sla)]
    kinds.append(np.where(np.isnan(hi), itl, hi) <= sla)
    picked = np.select(kinds, [DOES_NOT_FIT, NOT_ANSWERED, MISSES, MEETS], MAY_MEET)
    return np.broadcast_to(picked, itl.shape).astype(object)


def verdict_rank(verdicts: pd.Series) -> np.ndarray:
    """The position of each verdict in :data:`VERDICTS` (0 = meets ... 4 = does not fit), the
    first key of a ranking's order; an unknown verdict is a ValueError naming it."""
    unknown = sorted(set(verdicts) - set(VERDICTS))
    if unknown:
        raise ValueError(f"unknown verdicts {unknown}; expected one of {list(VERDICTS)}")
    return np.array([VERDICTS.index(v) for v in verdicts], dtype=int)


def pick_under_sla(table: pd.DataFrame, itl_sla_ms: float) -> pd.Series | None:
    """The least-energy row of a ranking table among those that meet ``itl_sla_ms`` by the one
    verdict rule (:func:`~wattgpu_lite.selection.verdict.sla_verdicts`): a prediction with an ITL
    interval (``itl_ms_hi``) meets it at the upper bound; when none does, the least-energy one
    that may meet it (its estimate within the SLA), as ``rank_gpus`` orders confident plans
    first. A measured table (no interval) is judged at its ITL, the paper's rule. None when no
    row fits and meets the SLA even at its estimate."""
    verdicts = _verdicts_at(table, itl_sla_ms)
    for wanted in (MEETS, MAY_MEET):
        ok = table[verdicts == wanted]
        if not ok.empty:
            return ok.loc[ok["energy_per_1k_tokens_j"].idxmin()]
    return None


def _verdicts_at(table: pd.DataFrame, itl_sla_ms: float) -> pd.Series:
    """Each row's verdict at ``itl_sla_ms`` from its ITL (and interval) and whether it fits: the
    ranking's own ``meets_sla`` is for the SLA it was made for, so it is left out."""
    return sla_verdicts(table.drop(columns="meets_sla", errors="ignore"), itl_sla_ms)


def sla_sweep(table: pd.DataFrame, slas_ms) -> pd.DataFrame:
    """The choice as the SLA varies: per SLA, the pick (:func:`pick_under_sla`, the one verdict
    rule), its energy and how many rows meet it at least at the estimate (verdict meets or may
    meet; for a measured table, the paper's reading: ITL within the SLA)."""
    rows = []
    for sla in slas_ms:
        best = pick_under_sla(table, sla)
        n_ok = int(_verdicts_at(table, sla).isin(MEETS_AT_ESTIMATE).sum())
        energy = math.nan if best is None else best["energy_per_1k_tokens_j"]
        rows.append(
            {
                "itl_sla_ms": float(sla),
                "pick": None if best is None else best["gpu"],
                "energy_per_1k_tokens_j": energy,
                "n_meeting_sla": n_ok,
            }
        )
    return pd.DataFrame(rows)
