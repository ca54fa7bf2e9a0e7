"""Choosing a GPU for an LLM under a latency SLA, for the least energy.

    wl.rank_gpus("meta-llama/Llama-3.1-8B-Instruct", scenario="server_low", itl_sla_ms=30)

Energy accounting (accelerator only; see :mod:`wattgpu_lite.selection.accounting`):

- server scenario at Poisson rate λ: the GPU is held, drawing P̄, for the whole interval between
  requests, so energy per request = P̄ / λ (λ = 0.017 req/s for server_low, 0.33 for server_high)
  and energy per generated token = P̄ / (λ · T_out), T_out = generated tokens per request;
- offline: ITL = 1/throughput, so energy per generated token = P̄ · ITL, per request × T_out.

At a fixed λ every GPU serves the same requests, so the server ranking is a ranking of P̄.
Offline ITL is a throughput, not a per-user latency; an SLA on it is a throughput floor.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.runs import measurements
from wattgpu_lite.runs.measurements import SCENARIOS
from wattgpu_lite.selection.accounting import (
    WATT_COUNTS_CONTEXT_TOKENS,
    default_pue,
    extra_pct,
    saving_pct,
)
from wattgpu_lite.selection.answers import defaults_of, price_echo
from wattgpu_lite.selection.inputs import is_measured
from wattgpu_lite.selection.ranked import DEFAULT_GPU_COUNTS, check_source_tokens, ranked_columns
from wattgpu_lite.selection.sources import SOURCES
from wattgpu_lite.selection.table import Ranking, rank_table, vs_best_columns
from wattgpu_lite.selection.verdict import pick_under_sla, sla_sweep
from wattgpu_lite.selection.wall import check_pue, resolve_grid, resolve_price, wall_accounting
from wattgpu_lite.specs.catalog import gpu
from wattgpu_lite.specs.resolve import resolve_llm
from wattgpu_lite.specs.workload import request_tokens

__all__ = [
    "SOURCES",
    "compare_pair",
    "compare_pair_run_energy",
    "heuristic_picks",
    "pick_under_sla",
    "rank_gpus",
    "sla_sweep",
]


def rank_gpus(
    llm,
    *,
    itl_sla_ms: float,
    rate_qps: float | None = None,
    batch: float | None = None,
    scenario: str | None = None,
    t_in: int | None = None,
    t_out: int | None = None,
    level: float = 0.8,
    candidates=None,
    gpu_counts=DEFAULT_GPU_COUNTS,
    weights: str | None = None,
    layouts=None,
    source: str = "hybrid",
    grid_gco2_per_kwh: float | None = None,
    price_per_kwh: float | None = None,
    context_tokens: int = WATT_COUNTS_CONTEXT_TOKENS,
    pue: float | None = None,
    region: str | None = None,
    name: str | None = None,
    workload: str | None = None,
    kv_cache: str | None = None,
    engine: str | None = None,
    max_num_seqs: int | None = None,
) -> Ranking:
    """One row per candidate GPU, the ones meeting the ITL SLA first, by energy per token.

    ``source``: 'hybrid' (default, the same model as ``wl.predict``: any load and token counts;
    every candidate GPU with every count of ``gpu_counts`` GPUs per replica, and the replicas a rate
    needs; the served ``weights`` format; intervals; a MoE is tried as TP, TP·EP and DP·EP per
    count, ``layouts=[wl.Parallel(ep=8), ...]`` instead names the layouts, and the columns layout,
    comm_share, weights_per_gpu_gb and layout_why say why one wins), or the Watt Counts readings
    'measured' (the runs), 'paper' (WattGPU as published) and 'logo' (WattGPU refitted without each
    GPU), which know the three scenarios only. Give one load: ``scenario``, ``rate_qps`` (req/s) or
    ``batch``. Grid intensity in gCO2e/kWh and price per kWh default to
    data/electricity_factors.csv; ``region`` (``"world"`` or a country's ISO code or name, any case:
    ``"FR"``, ``"gb"``, ``"Japan"``; the tables of :mod:`wattgpu_lite.selection.regions`) names the
    grid instead. The wall columns (``wall_energy_per_request_j``, ``wall_energy_per_1k_tokens_j``,
    ``g_co2e_per_request``, ``g_co2e_per_1k_tokens``, ``wall_cost_per_request``,
    ``wall_cost_per_1k_tokens``, ``wall_cost_per_mtok``; the inputs echoed as ``pue``,
    ``grid_gco2_per_kwh``, ``grid_source`` and ``price_per_kwh``) count accelerator energy × ``pue``
    (default: the Uptime Institute survey's industry average); ``kg_co2e_per_mtok`` and
    ``cost_per_mtok`` stay accelerator-only. NoFeasibleGPUError (each GPU's reason) when no
    candidate holds the model; InvalidInputError when no layout tried can run it at all (e.g.
    ``gpu_counts=(3,)`` for 32 heads). ``candidates``: GPUs, or one GPU (``"L4"``), or
    ``"measured"`` (the 8 measured GPUs), or ``"all"`` (the whole catalog); ``gpu_counts``: whole
    numbers in [1, 64], one number, or text ``"1,2,4"``.

    By default (``candidates=None``) the hybrid source — and the dashboard — ranks today's GPUs,
    the ones people rent or buy in 2026 (data/current_gpus.csv, one reason and source a row;
    :func:`wattgpu_lite.selection.inputs.current_gpus`), and the Watt Counts sources (measured,
    paper, logo) the 8 measured GPUs, the only ones they answer for. ``candidates="measured"``
    (``--gpus measured``) ranks those 8 with any source, ``"all"`` (``--gpus all``) the whole
    catalog. The ``measured`` column is True for the 8 GPUs of the Watt Counts runs, the ones
    whose predictions are checked against measurements of their own.
    The price is ``region``'s own where data/electricity_factors.csv has one, else the default
    (US, Virginia): ``price_region`` names where it was priced and ``price_note`` says when it is
    another region's price.

    Returns a :class:`~wattgpu_lite.selection.table.Ranking` (a DataFrame): every row carries the
    wall's inputs (with the price's ``currency``, ``price_region`` and ``price_note``,
    :func:`~wattgpu_lite.selection.answers.price_echo`), ``.attrs["defaults"]`` the kit's
    defaults it used, and ``to_json()`` is exactly ``rank --json``. ``name``: what to call a
    model you bring (a config.json), as ``wl.predict``'s; ``workload``: the named workload
    (data/workloads.csv, default watt-counts) giving the token counts not passed, as there.
    ``kv_cache``, ``engine``, ``max_num_seqs``: the KV cache's format, the serving engine and its
    concurrency limit, as ``wl.predict``'s (hybrid source only).

    ``vs_best_energy_ratio`` (with ``_lo``/``_hi`` and ``vs_best_interval``): each plan's energy
    per token over the best plan's, with the paired interval where both plans are calibrated
    (:mod:`wattgpu_lite.selection.paired`), else the unpaired one, else none.
    """
    llm = llm if name is None else resolve_llm(llm, name)
    given = {"grid_gco2_per_kwh": grid_gco2_per_kwh, "price_per_kwh": price_per_kwh, "pue": pue}
    sla = checks.check_itl_sla_ms(itl_sla_ms)
    grid, grid_source = resolve_grid(region, grid_gco2_per_kwh)  # checked there
    pue = check_pue(default_pue() if pue is None else pue)
    price, _, _ = resolve_price(region, price_per_kwh)  # checked there; price_echo says where
    check_source_tokens(llm, source, t_in=t_in, t_out=t_out, workload=workload)
    t_in, t_out, echo = request_tokens(t_in, t_out, workload)
    serving = {"kv_cache": kv_cache, "engine": engine, "max_num_seqs": max_num_seqs}
    load = {"scenario": scenario, "rate_qps": rate_qps, "batch": batch}
    plan = {"candidates": candidates, "gpu_counts": gpu_counts, "weights": weights}
    plan |= {"layouts": layouts, "serving": serving}
    asked = {"t_in": t_in, "t_out": t_out, "level": level, "context_tokens": context_tokens}
    table = ranked_columns(llm, source, sla, load=load, plan=plan, grid=grid, price=price, **asked)
    e_req_j, e_1k_j = table["energy_per_request_j"], table["energy_per_1k_tokens_j"]
    wall = wall_accounting(e_req_j, e_1k_j, pue=pue, grid_gco2_per_kwh=grid, price_per_kwh=price)
    table |= wall | {
        "measured": np.array([is_measured(g) for g in table["gpu"]], dtype=bool),
        "grid_gco2_per_kwh": grid,
        "grid_source": grid_source,
        "price_per_kwh": price,
        **price_echo(region, price_per_kwh),
    }
    ranking = rank_table(table | vs_best_columns(table, checks.check_level(level)))
    used = {"grid_gco2_per_kwh": grid, "price_per_kwh": price, "pue": pue}
    checked = {
        "t_in": {**echo["t_in"], "value": int(t_in)},
        "t_out": {**echo["t_out"], "value": int(t_out)},
    }
    tokens = echo | checked if source == "hybrid" else None  # the others: the runs' tokens
    ranking.attrs["defaults"] = defaults_of(used, region, given, tokens)
    return ranking


HEURISTICS = {
    "lowest TDP that fits": ("tdp_w", True),
    "highest dense FP16 TFLOPS per watt that fits": ("fp16_tflops_per_w", False),
}


def heuristic_picks(table: pd.DataFrame) -> pd.DataFrame:
    """What two rules of thumb pick from a ranking, and the extra energy vs the best choice.

    extra_energy_pct = (E_pick − E_best) / E_best · 100, E per 1,000 tokens; E_best is the
    ranking's pick (rank 1: the least-energy GPU meeting the SLA, confident verdicts first); each
    pick's ``verdict`` is the ranking's (:mod:`wattgpu_lite.selection.verdict`).
    """
    fits = table[table["fits"]]
    best = table[table["rank"] == 1]
    picks = [("least energy meeting the SLA", best.iloc[0] if len(best) else None)]
    for name, (column, smallest) in HEURISTICS.items():
        order_ = fits.sort_values([column, "gpu"], ascending=[smallest, True])
        picks.append((name, order_.iloc[0]))
    e_best = best["energy_per_1k_tokens_j"].iloc[0] if len(best) else math.nan
    rows = [
        {
            "strategy": name,
            "gpu": None if row is None else row["gpu"],
            "verdict": None if row is None else row["verdict"],
            "meets_sla": bool(row is not None and row["meets_sla"]),
            "energy_per_1k_tokens_j": math.nan if row is None else row["energy_per_1k_tokens_j"],
        }
        for name, row in picks
    ]
    out = pd.DataFrame(rows)
    return out.assign(extra_energy_pct=extra_pct(e_best, out["energy_per_1k_tokens_j"]))


def compare_pair(llm, gpu_a: str, gpu_b: str, source: str = "measured", scenarios=SCENARIOS, **ask):
    """Energy of GPU a vs GPU b per scenario (one GPU each), the percentage read both ways.

    a_saves_pct = (E_b − E_a) / E_b · 100 ("a saves X %"); b_uses_more_pct = (E_b − E_a) / E_a
    · 100 ("b uses Y % more"); E = energy per 1,000 generated tokens. Server: E ∝ P̄.
    ``ask``: more arguments of :func:`rank_gpus` (``t_in``, ``t_out``).
    """
    rows = []
    for scenario in scenarios:
        t = rank_gpus(
            llm,
            scenario=scenario,
            itl_sla_ms=1e6,
            candidates=[gpu_a, gpu_b],
            source=source,
            gpu_counts=(1,),
            **ask,
        ).set_index("gpu")
        e_a, e_b = (t.loc[gpu(n).name, "energy_per_1k_tokens_j"] for n in (gpu_a, gpu_b))
        p_a, p_b = (t.loc[gpu(n).name, "power_w"] for n in (gpu_a, gpu_b))
        rows.append(
            {
                "scenario": scenario,
                "power_a_w": p_a,
                "power_b_w": p_b,
                "energy_a_per_1k_tokens_j": e_a,
                "energy_b_per_1k_tokens_j": e_b,
                "a_saves_pct": saving_pct(e_a, e_b),
                "b_uses_more_pct": extra_pct(e_a, e_b),
            }
        )
    return pd.DataFrame(rows).assign(gpu_a=gpu(gpu_a).name, gpu_b=gpu(gpu_b).name)


def compare_pair_run_energy(llm_name: str, gpu_a: str, gpu_b: str) -> pd.DataFrame:
    """The same percentages from Watt Counts' own energy per token (whole-run energy / tokens,
    mean over repeats) instead of P̄ / (λ · T_out): a check on the accounting."""
    runs = measurements.load()
    mine = runs[(runs["llm"] == llm_name) & runs["gpu"].isin([gpu_a, gpu_b])]
    e = mine.groupby(["scenario", "gpu"])["energy_per_token_j"].mean().unstack()[[gpu_a, gpu_b]]
    return (
        pd.DataFrame(
            {
                "energy_a_per_token_j": e[gpu_a],
                "energy_b_per_token_j": e[gpu_b],
                "a_saves_pct": saving_pct(e[gpu_a], e[gpu_b]),
                "b_uses_more_pct": extra_pct(e[gpu_a], e[gpu_b]),
            }
        )
        .reindex(list(SCENARIOS))
        .rename_axis("scenario")
        .reset_index()
    )
