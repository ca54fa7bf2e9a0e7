"""The steps of a GPU ranking as pure functions on a tidy table (one row per GPU).

fit_table -> (merge power/ITL) -> add_energy -> apply_sla -> order. Energy accounting as in
:mod:`wattgpu_lite.selection.rank` and :mod:`wattgpu_lite.selection.accounting`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from wattgpu_lite.selection.accounting import (
    co2e_kg_per_million_tokens,
    cost_per_million_tokens,
    memory_need_gb,
    offline_energy_per_token_j,
    server_energy_per_request_j,
    why_not_fits,
)


def fit_table(llm, devices: list, context_tokens: int) -> pd.DataFrame:
    """Per GPU: memory need vs 90 % of memory, and the reason when it does not fit."""
    reasons = [why_not_fits(llm, g, context_tokens) for g in devices]
    return pd.DataFrame({
        "gpu": [g.name for g in devices], "fits": [not r for r in reasons], "why_not": reasons,
        "memory_need_gb": memory_need_gb(llm, context_tokens),
        "memory_gb": [g.memory_gb for g in devices], "tdp_w": [g.tdp_w for g in devices],
        "fp16_tflops_per_w": [g.fp16_tflops / g.tdp_w for g in devices],
    })  # fmt: skip


def energy_per_token_j(power_w, itl_s, rate_qps: float, tokens):
    """J per generated token: P̄ / (λ · T_out) in a server scenario, P̄ · ITL offline."""
    if math.isnan(rate_qps):
        return offline_energy_per_token_j(power_w, itl_s)
    return server_energy_per_request_j(power_w, rate_qps) / tokens


def add_energy(table: pd.DataFrame, rate_qps: float, grid: float, price: float) -> pd.DataFrame:
    """Energy per request and per 1,000 tokens, kg CO2e and cost per 1e6 tokens; with power
    intervals also energy_per_1k_tokens_j_lo/_hi (lo: both bounds low, hi: both high)."""
    tokens = table["tokens_per_request"]
    per_token = energy_per_token_j(table["power_w"], table["itl_s"], rate_qps, tokens)
    out = table.assign(
        energy_per_request_j=per_token * tokens, energy_per_1k_tokens_j=per_token * 1000.0,
        kg_co2e_per_mtok=co2e_kg_per_million_tokens(per_token, grid),
        cost_per_mtok=cost_per_million_tokens(per_token, price),
    )  # fmt: skip
    if {"power_w_lo", "itl_s_lo"} <= set(table.columns):
        for end in ("lo", "hi"):
            e = energy_per_token_j(table[f"power_w_{end}"], table[f"itl_s_{end}"], rate_qps, tokens)
            out[f"energy_per_1k_tokens_j_{end}"] = e * 1000.0
    return out


def apply_sla(table: pd.DataFrame, itl_sla_ms: float, scenario: str) -> pd.DataFrame:
    """meets_sla = fits and ITL ≤ SLA; why_not filled for a missing run or a missed SLA."""
    itl_ms = table["itl_s"] * 1000.0
    meets = table["fits"] & (itl_ms <= itl_sla_ms)
    missing = table["fits"] & table["itl_s"].isna()
    slow = table["fits"] & ~meets & ~missing
    why = table["why_not"].copy()
    why[missing] = f"no data for this LLM on this GPU at {scenario}"
    why[slow] = [f"ITL {v:.1f} ms > SLA {itl_sla_ms:g} ms" for v in itl_ms[slow]]
    return table.assign(itl_ms=itl_ms, meets_sla=meets, why_not=why)


def order(table: pd.DataFrame) -> pd.DataFrame:
    """Feasible plans by energy (rank 1, 2, ...), then the rest by energy, then by name (and by
    GPU count, when plans have one)."""
    group = np.where(table["meets_sla"], 0, np.where(table["fits"], 1, 2))
    keys = ["_g", "energy_per_1k_tokens_j", "gpu"] + (["num_gpus"] if "num_gpus" in table else [])
    out = table.assign(_g=group).sort_values(keys)
    rank = out["meets_sla"].cumsum().where(out["meets_sla"])
    return out.drop(columns="_g").assign(rank=rank.astype("Int64")).reset_index(drop=True)


def hybrid_accounting(table: pd.DataFrame, t_out: int, grid: float, price: float) -> pd.DataFrame:
    """Per-request, per-1,000-token, carbon and cost columns of hybrid plans (energy per token
    is already the plan's: every replica counted), and ITL in ms."""
    per_token = table["energy_per_token_j"]
    return table.assign(
        itl_ms=table["itl_s"] * 1e3, itl_ms_lo=table["itl_s_lo"] * 1e3,
        itl_ms_hi=table["itl_s_hi"] * 1e3, energy_per_request_j=per_token * t_out,
        energy_per_1k_tokens_j=per_token * 1e3,
        energy_per_1k_tokens_j_lo=table["energy_per_token_j_lo"] * 1e3,
        energy_per_1k_tokens_j_hi=table["energy_per_token_j_hi"] * 1e3,
        kg_co2e_per_mtok=co2e_kg_per_million_tokens(per_token, grid),
        cost_per_mtok=cost_per_million_tokens(per_token, price),
    )  # fmt: skip
