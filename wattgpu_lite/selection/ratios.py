"""Ratios of plans with their intervals: a plan's energy or ITL over a reference plan's, the
interval paired where both plans lie in the paired calibration's support (the half-width of
:func:`wattgpu_lite.selection.paired.paired_half_width`, r·e^(∓q)), else unpaired from the two
absolute intervals, else none."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from wattgpu_lite.selection.paired import paired_half_width

PAIRED, UNPAIRED, REFERENCE, NONE = "paired", "unpaired", "reference", "none"
CALIBRATED_BASIS = "cv"  # the LLM and GPU specs of the Watt Counts runs, one GPU, 16-bit weights
NOT_CALIBRATED = {
    "physics": "a configuration the Watt Counts runs never cover (mixture-of-experts, weights "
    "below 16 bits or several GPUs per replica): a physics-only answer",
    "new gpu": "a GPU that is not among the Watt Counts GPUs",
    "new llm": "an LLM that is not among the Watt Counts LLMs",
    "new gpu and llm": "a GPU and an LLM that are not among the Watt Counts runs'",
}


def regime_of(rate_qps: float) -> str:
    """'server' at a rate (a number), 'offline' at a batch (NaN)."""
    return "offline" if math.isnan(rate_qps) else "server"


def half_width(rate_qps: float, target: str, level: float) -> float:
    """The paired half-width q of a ``target`` ratio at ``level``, in the regime of ``rate_qps``
    (:func:`regime_of`, :func:`~wattgpu_lite.selection.paired.paired_half_width`)."""
    return paired_half_width(regime_of(rate_qps), target, level)


def calibrated(table) -> np.ndarray:
    """Per plan (a bool array) of a frame or a dict of columns, whether it lies in the paired
    calibration's support: basis 'cv' (the hybrid on a Watt Counts LLM and GPU) and one replica
    serving the whole load, as in every pair (a missing basis is not 'cv'; a missing replica
    count, a batch, is one replica)."""
    n = len(table) if isinstance(table, pd.DataFrame) else len(table["gpu"])
    basis = (
        _values(table["basis"], object, None)
        if "basis" in table
        else np.full(n, None, dtype=object)
    )
    replicas = _values(table["replicas"], float, np.nan) if "replicas" in table else np.ones(n)
    return (basis == CALIBRATED_BASIS) & (np.isnan(replicas) | (replicas == 1))


def _values(column, dtype, missing) -> np.ndarray:
    """A column (a Series or an array) as a numpy array of ``dtype``, ``missing`` for a missing
    value (a numpy array of that dtype as it is)."""
    if isinstance(column, np.ndarray) and column.dtype == dtype:
        return column
    return pd.array(column).to_numpy(dtype=dtype, na_value=missing)


def why_not_calibrated(basis, replicas: float) -> str:
    """In words, why a plan is outside the paired calibration ("" when inside)."""
    if basis != CALIBRATED_BASIS:
        return NOT_CALIBRATED.get(basis, "a source without intervals")
    one = replicas != replicas or replicas == 1  # NaN (a batch) or one replica
    return "" if one else "several replicas share the load (every calibration pair: one GPU each)"


def ratio_interval(table: pd.DataFrame, ref_label, column: str, q: float) -> pd.DataFrame:
    """Per plan: ratio = plan / reference of ``column``, its interval and kind
    (:func:`ratio_arrays`), the reference the plan labelled ``ref_label``."""
    at = table.index.get_loc(ref_label)
    ratio, lo, hi, kind = ratio_arrays(table, at, column, q)
    return pd.DataFrame({"ratio": ratio, "lo": lo, "hi": hi, "kind": kind}, index=table.index)


def ratio_arrays(table, at: int, column: str, q: float) -> tuple[np.ndarray, ...]:
    """(ratio, lo, hi, kind) per plan of a frame or a dict of columns: ratio = plan / reference
    (the plan at position ``at``) of ``column``. 'paired' r·e^(∓q) when both plans are
    calibrated (and q finite); else 'unpaired' from the absolute intervals (``column``_lo/_hi),
    lo = plan_lo / ref_hi, hi = plan_hi / ref_lo; else 'none' (NaN). The reference itself:
    ratio 1, interval [1, 1], 'reference'."""
    ok = calibrated(table)
    n = len(ok)

    def values(col: str) -> np.ndarray:  # a column as floats (NaN: missing or absent)
        if col not in table:
            return np.full(n, np.nan)
        return _values(table[col], float, np.nan)

    v, v_lo, v_hi = values(column), values(f"{column}_lo"), values(f"{column}_hi")
    r = v / v[at]
    lo_u, hi_u = v_lo / v_hi[at], v_hi / v_lo[at]
    q = q if math.isfinite(q) else np.nan
    paired = ok & bool(ok[at]) & (q == q)
    paired &= ~np.isnan(r)  # a plan that cannot serve has no ratio
    unpaired = ~paired & ~np.isnan(lo_u) & ~np.isnan(hi_u)
    ratio = r.copy()
    lo = np.where(paired, r * np.exp(-q), np.where(unpaired, lo_u, np.nan))
    hi = np.where(paired, r * np.exp(q), np.where(unpaired, hi_u, np.nan))
    kind = np.select([paired, unpaired], [PAIRED, UNPAIRED], NONE).astype(object)
    ratio[at] = lo[at] = hi[at] = 1.0
    kind[at] = REFERENCE
    return ratio, lo, hi, kind


def vs_reference(table: pd.DataFrame, ref_label, level: float) -> pd.DataFrame:
    """Per plan of a ranking-like table (columns energy_per_token_j, itl_s, their _lo/_hi, basis,
    replicas, rate_qps): energy and ITL ratios to the plan labelled ``ref_label`` with their
    intervals at ``level`` (paired where both plans are calibrated, else unpaired, else none)."""
    rate = float(table.loc[ref_label, "rate_qps"])
    q_e, q_t = (half_width(rate, t, level) for t in ("energy", "itl"))
    e = ratio_interval(table, ref_label, "energy_per_token_j", q_e)
    t = ratio_interval(table, ref_label, "itl_s", q_t)
    return pd.DataFrame(
        {
            "energy_ratio": e["ratio"],
            "energy_ratio_lo": e["lo"],
            "energy_ratio_hi": e["hi"],
            "itl_ratio": t["ratio"],
            "itl_ratio_lo": t["lo"],
            "itl_ratio_hi": t["hi"],
            "interval": e["kind"],
        },
        index=table.index,
    )
