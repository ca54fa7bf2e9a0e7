"""The steps of a GPU ranking as pure functions on a tidy table (one row per GPU).

fit_table -> (merge power/ITL) -> add_energy -> apply_sla -> order -> rank_table. Energy
accounting as in :mod:`wattgpu_lite.selection.rank` and :mod:`wattgpu_lite.selection.accounting`.

Every source answers with one schema, :data:`RANK_COLUMNS`, in one order (:func:`rank_table`):
a column a source has no value for is NaN (JSON null), never absent. Energy per generated token
is ``energy_per_token_j`` (and its ``_lo``/``_hi``); ``energy_per_1k_tokens_j`` is derived from
it, × 1,000, the figure the ranking sorts and shows. ``verdict`` is the SLA verdict at the ITL
bound (:mod:`wattgpu_lite.selection.verdict`); ``meets_sla``, kept for compatibility, is True for
"meets" and "may meet" (the estimate is within the SLA).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from wattgpu_lite.jsonio import dumps, rounded
from wattgpu_lite.selection.accounting import (
    co2e_kg_per_million_tokens,
    cost_per_million_tokens,
    memory_need_gb,
    offline_energy_per_token_j,
    server_energy_per_request_j,
    why_not_fits,
)
from wattgpu_lite.selection.ratios import half_width, ratio_arrays
from wattgpu_lite.selection.verdict import MEETS_AT_ESTIMATE, sla_verdicts, verdict_rank

# the columns of every ranking, whichever source answers (rank_gpus); a source without a value
# for one leaves it NaN. The Watt Counts sources (measured, paper, logo) know one GPU per replica.
RANK_COLUMNS: tuple[str, ...] = (
    "gpu", "measured", "num_gpus", "layout", "tp", "ep", "replicas", "power_w", "itl_s",
    "time_per_token_s", "energy_per_token_j", "power_w_lo", "power_w_hi", "itl_s_lo", "itl_s_hi",
    "time_per_token_s_lo", "time_per_token_s_hi", "energy_per_token_j_lo", "energy_per_token_j_hi",
    "in_flight", "max_batch", "basis", "itl_interval_from", "verdict", "meets_sla", "why_not",
    "tdp_w", "memory_gb", "memory_need_gb", "fp16_tflops_per_w", "comm_share", "layout_share",
    "weights_per_gpu_gb", "total_power_w", "max_rate_per_replica_qps", "rate_per_replica_qps",
    "fits", "layout_why", "itl_ms", "itl_ms_lo", "itl_ms_hi", "tokens_per_request",
    "energy_per_request_j", "energy_per_1k_tokens_j", "energy_per_1k_tokens_j_lo",
    "energy_per_1k_tokens_j_hi", "kg_co2e_per_mtok", "cost_per_mtok", "rank", "llm",
    "llm_architecture", "weights", "scenario", "rate_qps", "batch", "t_in", "t_out", "source",
    "level", "pue", "wall_energy_per_request_j", "wall_energy_per_1k_tokens_j",
    "g_co2e_per_request", "g_co2e_per_1k_tokens", "wall_cost_per_request",
    "wall_cost_per_1k_tokens", "wall_cost_per_mtok", "grid_gco2_per_kwh", "grid_source",
    "price_per_kwh", "currency", "price_region", "price_note", "vs_best_energy_ratio",
    "vs_best_energy_ratio_lo", "vs_best_energy_ratio_hi", "vs_best_interval",
)  # fmt: skip
SCHEMA_VERSION = 1  # of Ranking.to_json, as every result's
ONE_GPU = {"num_gpus": 1, "layout": "TP1", "tp": 1, "ep": 1, "replicas": 1.0}


class Ranking(pd.DataFrame):
    """What ``wl.rank_gpus`` returns: a DataFrame, one row per plan, whose ``to_json()`` (called
    without arguments) is exactly ``rank --json``: ``{"schema_version": 1, "kind": "rank",
    "defaults": ..., "rows": [...]}``, numbers at 6 significant figures
    (:func:`wattgpu_lite.jsonio.rounded`). With arguments it is pandas' ``to_json``.
    ``attrs["defaults"]``: the kit's defaults the ranking used, each with its source."""

    kind = "rank"

    @property
    def _constructor(self):
        return Ranking

    def to_document(self) -> dict[str, Any]:
        """The JSON document ``rank --json`` prints, as Python values."""
        rows = [rounded(r) for r in pd.DataFrame(self).to_dict(orient="records")]
        return {
            "schema_version": SCHEMA_VERSION,
            "kind": self.kind,
            "defaults": rounded(dict(self.attrs.get("defaults", {}))),
            "rows": rows,
        }

    def to_json(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """``rank --json`` without arguments (class docstring); pandas' ``to_json`` with them."""
        if args or kwargs:
            return pd.DataFrame(self).to_json(*args, **kwargs)
        return dumps(self.to_document(), indent=2)


def rank_table(table) -> Ranking:
    """``table`` (a frame or a dict of columns) with exactly :data:`RANK_COLUMNS`, in that order,
    a missing one NaN; a column outside the schema is a ValueError naming it (add it to
    RANK_COLUMNS, for every source)."""
    cols = columns_of(table) if isinstance(table, pd.DataFrame) else table
    extra = [c for c in cols if c not in RANK_COLUMNS]
    if extra:
        raise ValueError(f"ranking columns {extra} are not in selection.table.RANK_COLUMNS")
    n = len(cols["gpu"])
    nan = np.full(n, np.nan)
    return Ranking({c: _column(cols[c], n) if c in cols else nan for c in RANK_COLUMNS})


def _column(value: Any, n: int) -> Any:
    """A column of a ranking: a text given once as ``n`` copies in an object array (a quarter
    faster than pandas broadcasting the text itself), any other value as it is."""
    return np.full(n, value, dtype=object) if isinstance(value, str) else value


def columns_of(table: pd.DataFrame) -> dict[str, Any]:
    """A frame's columns as arrays a frame is built from again with the same dtypes (object
    columns stay Series: an object array would be read as text)."""
    return {c: s if s.dtype == object else s.array for c, s in table.items()}


def fit_table(llm, devices: list, context_tokens: int) -> pd.DataFrame:
    """Per GPU (one per replica, :data:`ONE_GPU`): memory need vs 90 % of memory, and the reason
    when it does not fit (the one memory-fit check, at the model's own weight format)."""
    reasons = [why_not_fits(llm, g, context_tokens) for g in devices]
    return pd.DataFrame(
        {
            "gpu": [g.name for g in devices],
            **ONE_GPU,
            "fits": [not r for r in reasons],
            "why_not": reasons,
            "memory_need_gb": memory_need_gb(llm, context_tokens),
            "memory_gb": [g.memory_gb for g in devices],
            "tdp_w": [g.tdp_w for g in devices],
            "fp16_tflops_per_w": [g.fp16_tflops / g.tdp_w for g in devices],
        }
    )


def energy_per_token_j(power_w, itl_s, rate_qps: float, tokens):
    """J per generated token: P̄ / (λ · T_out) in a server scenario, P̄ · ITL offline."""
    if math.isnan(rate_qps):
        return offline_energy_per_token_j(power_w, itl_s)
    return server_energy_per_request_j(power_w, rate_qps) / tokens


def add_energy(table: pd.DataFrame, rate_qps: float, grid: float, price: float) -> pd.DataFrame:
    """Energy per generated token, per request and per 1,000 tokens, kg CO2e and cost per 1e6
    tokens; with power intervals also energy_per_token_j_lo/_hi and energy_per_1k_tokens_j_lo/_hi
    (lo: both bounds low, hi: both high)."""
    tokens = table["tokens_per_request"]
    per_token = energy_per_token_j(table["power_w"], table["itl_s"], rate_qps, tokens)
    out = table.assign(
        energy_per_token_j=per_token,
        energy_per_request_j=per_token * tokens,
        energy_per_1k_tokens_j=per_token * 1000.0,
        kg_co2e_per_mtok=co2e_kg_per_million_tokens(per_token, grid),
        cost_per_mtok=cost_per_million_tokens(per_token, price),
    )
    if {"power_w_lo", "itl_s_lo"} <= set(table.columns):
        for end in ("lo", "hi"):
            e = energy_per_token_j(table[f"power_w_{end}"], table[f"itl_s_{end}"], rate_qps, tokens)
            out[f"energy_per_token_j_{end}"] = e
            out[f"energy_per_1k_tokens_j_{end}"] = e * 1000.0
    return out


def apply_sla(table: pd.DataFrame, itl_sla_ms: float, scenario: str) -> pd.DataFrame:
    """meets_sla = fits and ITL ≤ SLA; why_not filled for a missing run or a missed SLA; the
    verdict (:func:`add_verdicts`: these sources have no interval, the estimate decides)."""
    itl_ms = table["itl_s"] * 1000.0
    meets = table["fits"] & (itl_ms <= itl_sla_ms)
    missing = table["fits"] & table["itl_s"].isna()
    slow = table["fits"] & ~meets & ~missing
    why = table["why_not"].copy()
    why[missing] = f"no data for this LLM on this GPU at {scenario}"
    why[slow] = [f"ITL {v:.1f} ms > SLA {itl_sla_ms:g} ms" for v in itl_ms[slow]]
    return add_verdicts(table.assign(itl_ms=itl_ms, meets_sla=meets, why_not=why), itl_sla_ms)


def add_verdicts(table: pd.DataFrame, itl_sla_ms: float) -> pd.DataFrame:
    """``table`` with its ``verdict`` column (:func:`wattgpu_lite.selection.verdict.sla_verdicts`:
    columns itl_ms, itl_ms_hi if any, fits, meets_sla), and ``meets_sla`` True exactly for the
    verdicts "meets" and "may meet"."""
    verdicts = sla_verdicts(table, itl_sla_ms)
    return table.assign(verdict=verdicts, meets_sla=verdicts.isin(MEETS_AT_ESTIMATE))


def with_rows(cols: dict[str, np.ndarray], rows: pd.DataFrame, **fill) -> dict[str, np.ndarray]:
    """The columns ``cols`` (arrays), then the rows of ``rows`` with the columns ``fill`` (NaN in
    the columns they lack), as ``pd.concat`` of the two tables gives them."""
    if not len(rows):
        return cols
    more = {c: rows[c].to_numpy() for c in rows} | fill
    n = len(rows)
    return {
        c: np.concatenate([v, np.broadcast_to(more.get(c, np.nan), n)]) for c, v in cols.items()
    }


def order(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` in ranking order (:func:`order_index`), with ``rank`` 1, 2, ... for the plans
    whose estimate meets the SLA (``meets_sla``), confident ones first."""
    out = table.iloc[order_index(table)].reset_index(drop=True)
    return out.assign(rank=rank_numbers(out["meets_sla"]))


def order_index(table) -> np.ndarray:
    """Positions of the rows of ``table`` (a frame or a dict of columns) in ranking order: by
    verdict — meets, may meet, misses, not answered, does not fit (:data:`~wattgpu_lite.selection.verdict.
    VERDICTS`) —, then by energy, then by name (and by GPU count, when plans have one)."""
    gpu = np.unique(np.asarray(table["gpu"], dtype=object), return_inverse=True)[1]
    keys = [verdict_rank(table["verdict"]), np.asarray(table["energy_per_1k_tokens_j"]), gpu]
    if "num_gpus" in table:
        keys.append(np.asarray(table["num_gpus"]))
    return np.lexsort(keys[::-1])  # stable, NaN energy last: as DataFrame.sort_values


def rank_numbers(meets_sla) -> pd.arrays.IntegerArray:
    """Rank 1, 2, ... of the ordered rows that meet the SLA at the estimate, else <NA>."""
    meets = np.asarray(meets_sla, dtype=bool)
    return pd.arrays.IntegerArray(np.cumsum(meets), ~meets)


def hybrid_accounting(cols, t_out: int, grid: float, price: float) -> dict[str, np.ndarray]:
    """Per-request, per-1,000-token, carbon and cost columns of hybrid plans (energy per token
    is already the plan's: every replica counted), and ITL in ms."""
    per_token = cols["energy_per_token_j"]
    return {
        "itl_ms": cols["itl_s"] * 1e3,
        "itl_ms_lo": cols["itl_s_lo"] * 1e3,
        "itl_ms_hi": cols["itl_s_hi"] * 1e3,
        "energy_per_request_j": per_token * t_out,
        "energy_per_1k_tokens_j": per_token * 1e3,
        "energy_per_1k_tokens_j_lo": cols["energy_per_token_j_lo"] * 1e3,
        "energy_per_1k_tokens_j_hi": cols["energy_per_token_j_hi"] * 1e3,
        "kg_co2e_per_mtok": co2e_kg_per_million_tokens(per_token, grid),
        "cost_per_mtok": cost_per_million_tokens(per_token, price),
    }


def vs_best_columns(cols, level: float) -> dict[str, Any]:
    """Each plan's energy per token over the best plan's (rank 1), and its interval
    (:func:`~wattgpu_lite.selection.ratios.ratio_arrays`): ``vs_best_interval`` says 'paired'
    (both plans in the paired calibration, :mod:`~wattgpu_lite.selection.paired`), 'unpaired'
    (from the two absolute intervals), 'reference' (the best plan) or 'none'. Without a plan of
    rank 1, the ratio columns are left out (NaN) and the interval is None."""
    best = np.flatnonzero(pd.array(cols["rank"]).to_numpy(dtype=float, na_value=np.nan) == 1)
    if len(best) == 0:
        return {"vs_best_interval": None}
    at = int(best[0])
    rate = np.broadcast_to(np.asarray(cols["rate_qps"], dtype=float), len(cols["gpu"]))[at]
    q = half_width(float(rate), "energy", level)
    ratio, lo, hi, kind = ratio_arrays(cols, at, "energy_per_token_j", q)
    return {
        "vs_best_energy_ratio": ratio,
        "vs_best_energy_ratio_lo": lo,
        "vs_best_energy_ratio_hi": hi,
        "vs_best_interval": kind,
    }
