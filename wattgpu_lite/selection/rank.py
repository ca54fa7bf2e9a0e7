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
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.predict.chain import check_level, weight_format
from wattgpu_lite.hybrid.predict.chain import resolve_load as resolve_hybrid_load
from wattgpu_lite.runs import measurements
from wattgpu_lite.runs.measurements import SCENARIOS
from wattgpu_lite.runs.schema import scenario_for_rate
from wattgpu_lite.selection.accounting import (
    WATT_COUNTS_CONTEXT_TOKENS,
    check_pue,
    default_pue,
    extra_pct,
    resolve_grid,
    resolve_price,
    saving_pct,
    wall_accounting,
)
from wattgpu_lite.selection.answers import defaults_of, price_echo
from wattgpu_lite.selection.inputs import (
    candidate_gpus,
    check_gpu_counts,
    is_measured,
    no_fit_error,
    scenario_load,
)
from wattgpu_lite.selection.layouts import deployments, layout_why
from wattgpu_lite.selection.plan import batch_plans, rate_plans
from wattgpu_lite.selection.sources import SOURCES, gpu_metrics
from wattgpu_lite.selection.table import (
    Ranking,
    add_energy,
    apply_sla,
    columns_of,
    fit_table,
    hybrid_accounting,
    order,
    order_index,
    rank_numbers,
    rank_table,
    vs_best_columns,
    with_rows,
)
from wattgpu_lite.selection.verdict import (
    MAY_MEET,
    MEETS,
    MEETS_AT_ESTIMATE,
    sla_verdicts,
    verdict_array,
)
from wattgpu_lite.specs.catalog import gpu
from wattgpu_lite.specs.engine import check_serving
from wattgpu_lite.specs.resolve import resolve_llm
from wattgpu_lite.specs.workload import request_tokens

DEFAULT_GPU_COUNTS = (1, 2, 4, 8)  # GPUs per replica tried by the hybrid source

__all__ = [
    "SOURCES", "compare_pair", "compare_pair_run_energy", "heuristic_picks", "pick_under_sla",
    "rank_gpus", "sla_sweep",
]  # fmt: skip


def rank_gpus(
    llm, *, itl_sla_ms: float, rate_qps: float | None = None,
    batch: float | None = None, scenario: str | None = None, t_in: int | None = None,
    t_out: int | None = None, level: float = 0.8,
    candidates=None, gpu_counts=DEFAULT_GPU_COUNTS, weights: str | None = None, layouts=None,
    source: str = "hybrid", grid_gco2_per_kwh: float | None = None,
    price_per_kwh: float | None = None,
    context_tokens: int = WATT_COUNTS_CONTEXT_TOKENS, pue: float | None = None,
    region: str | None = None, name: str | None = None, workload: str | None = None,
    kv_cache: str | None = None, engine: str | None = None, max_num_seqs: int | None = None,
) -> Ranking:  # fmt: skip
    """One row per candidate GPU, the ones meeting the ITL SLA first, by energy per token.

    ``source``: 'hybrid' (default, the same model as ``wl.predict``: any load and token counts;
    every candidate GPU with every count of ``gpu_counts`` GPUs per replica, and the replicas a
    rate needs; the served ``weights`` format; intervals; a MoE is
    tried as TP, TP·EP and DP·EP per count, ``layouts=[wl.Parallel(ep=8), ...]`` instead names
    the layouts, and the columns layout, comm_share, weights_per_gpu_gb and layout_why say why
    one wins), or the Watt Counts
    readings 'measured' (the runs), 'paper' (WattGPU as published) and 'logo' (WattGPU refitted
    without each GPU), which know the three scenarios only.
    Give one load: ``scenario``, ``rate_qps`` (req/s) or ``batch``. Grid intensity in gCO2e/kWh
    and price per kWh default to data/electricity_factors.csv; ``region`` (``"world"`` or a
    country's ISO code or name, any case: ``"FR"``, ``"gb"``, ``"Japan"``; the tables of
    :mod:`wattgpu_lite.selection.regions`) names the grid instead. The wall columns
    (``wall_energy_per_request_j``, ``wall_energy_per_1k_tokens_j``, ``g_co2e_per_request``,
    ``g_co2e_per_1k_tokens``, ``wall_cost_per_request``, ``wall_cost_per_1k_tokens``,
    ``wall_cost_per_mtok``; the inputs echoed as ``pue``, ``grid_gco2_per_kwh``, ``grid_source``
    and ``price_per_kwh``) count accelerator energy × ``pue``
    (default: the Uptime Institute survey's industry average); ``kg_co2e_per_mtok`` and
    ``cost_per_mtok`` stay accelerator-only. NoFeasibleGPUError (each GPU's
    reason) when no candidate holds the model; InvalidInputError when no layout tried can run
    it at all (e.g. ``gpu_counts=(3,)`` for 32 heads). ``candidates``: GPUs, or one GPU
    (``"L4"``), or ``"measured"`` (the 8 measured GPUs), or ``"all"`` (the whole catalog); ``gpu_counts``: whole numbers in [1, 64], one
    number, or text ``"1,2,4"``.

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
    t_in, t_out, echo = request_tokens(t_in, t_out, workload)
    serving = {"kv_cache": kv_cache, "engine": engine, "max_num_seqs": max_num_seqs}
    table = _rank(llm, scenario, sla, rate_qps, batch, t_in, t_out, candidates, gpu_counts,
                  weights, layouts, source, grid, price, level, context_tokens, serving)  # fmt: skip
    wall = wall_accounting(table["energy_per_request_j"], table["energy_per_1k_tokens_j"], pue,
                           grid, price)  # fmt: skip
    table |= wall | {"measured": np.array([is_measured(g) for g in table["gpu"]], dtype=bool),
                     "grid_gco2_per_kwh": grid, "grid_source": grid_source, "price_per_kwh": price,
                     **price_echo(region, price_per_kwh)}  # fmt: skip
    ranking = rank_table(table | vs_best_columns(table, checks.check_level(level)))
    used = {"grid_gco2_per_kwh": grid, "price_per_kwh": price, "pue": pue}
    checked = {"t_in": {**echo["t_in"], "value": int(t_in)},
               "t_out": {**echo["t_out"], "value": int(t_out)}}  # fmt: skip
    tokens = echo | checked if source == "hybrid" else None  # the others: the runs' tokens
    ranking.attrs["defaults"] = defaults_of(used, region, given, tokens)
    return ranking


def _rank(llm, scenario, sla, rate_qps, batch, t_in, t_out, candidates, gpu_counts, weights,
          layouts, source, grid, price, level, context_tokens, serving=None) -> dict:  # fmt: skip
    """The ranking's columns with accelerator accounting, in ranking order (:func:`rank_gpus`
    adds the wall columns)."""
    model, devices = resolve_llm(llm), candidate_gpus(candidates, source)
    context_tokens = checks.check_count("context_tokens", context_tokens, 1, model.context_length)
    if source == "hybrid":
        plan = {"gpu_counts": gpu_counts, "weights": weights, "layouts": layouts,
                "serving": serving}  # fmt: skip
        return _rank_hybrid(model, devices, scenario, rate_qps, batch, t_in, t_out, sla, grid,
                            price, level, **plan)  # fmt: skip
    counts = check_gpu_counts(gpu_counts)
    served = serving and any(v is not None for v in serving.values())
    if counts not in ((1,), DEFAULT_GPU_COUNTS) or weights is not None or layouts or served:
        raise InvalidInputError(f"source {source!r} knows one GPU, 16-bit weights and vLLM's "
                                "defaults only; use source='hybrid' for gpu_counts, weights, "
                                "kv_cache, engine or max_num_seqs")  # fmt: skip
    if batch is not None:
        raise InvalidInputError(f"source {source!r} knows the Watt Counts scenarios only; use "
                                "scenario= or rate_qps=, or source='hybrid' for a batch")  # fmt: skip
    scenario, rate = scenario_load(scenario, rate_qps)
    table = fit_table(model, devices, context_tokens)
    if not table["fits"].any():
        raise no_fit_error(model.name, table)
    fitting = [d for d in devices if d.name in set(table.loc[table["fits"], "gpu"])]
    metrics = gpu_metrics(model, fitting, scenario, source, t_out)
    table = table.merge(metrics, on="gpu", how="left")
    table = apply_sla(add_energy(table, rate, grid, price), sla, scenario)
    head = {"llm": model.name, "llm_architecture": model.architecture_name, "scenario": scenario,
            "rate_qps": rate, "source": source}  # fmt: skip
    return columns_of(order(table)) | head


def _rank_hybrid(model, devices, scenario, rate_qps, batch, t_in, t_out, sla_ms, grid, price,
                 level, gpu_counts, weights, layouts=None, serving=None) -> dict:  # fmt: skip
    """The 'hybrid' source: plans per (GPU, layout) (replicas at a rate), accounted, ordered."""
    rate, bat, offline = resolve_hybrid_load(scenario, rate_qps, batch)
    t_in, t_out = checks.check_tokens(t_in, t_out, model.context_length)
    level = check_level(level)
    fmt = weight_format(model, weights)
    kv, eng, limit = check_serving(**(serving or {}))
    given = {"kv_cache": kv, "engine": eng, "max_num_seqs": limit}
    serving = {} if (kv, eng, limit) == check_serving() else given
    plans, refused = deployments(model, devices, gpu_counts, layouts)
    args = (t_in, t_out, sla_ms / 1e3, level, fmt, serving)
    if not plans:
        raise _no_layout_error(model, gpu_counts, layouts, refused)
    if np.isnan(rate):
        cols = batch_plans(model, plans, None if offline else bat, *args)
    else:
        cols = rate_plans(model, plans, rate, *args)
    cols["fits"] = np.array([not w.startswith("does not fit in memory") for w in cols["why_not"]])
    cols["layout_why"] = layout_why(cols)
    cols = with_rows(cols, refused, meets_sla=False, fits=False)
    if not cols["fits"].any():
        raise no_fit_error(model.name, pd.DataFrame({k: cols[k] for k in ("gpu", "why_not")}))
    cols |= hybrid_accounting(cols, t_out, grid, price)
    cols["verdict"] = verdict_array(cols, sla_ms)
    cols["meets_sla"] = np.isin(cols["verdict"], MEETS_AT_ESTIMATE)
    at = order_index(cols)
    cols = {k: v[at] for k, v in cols.items()}
    # as object columns, not text (an object array would be read as text)
    cols |= {k: pd.Series(cols[k], dtype=object) for k in ("verdict", "layout_why")}
    label = "offline" if offline or np.isnan(rate) else scenario_for_rate(rate)
    head = {"llm": model.name, "llm_architecture": model.architecture_name, "weights": fmt,
            "scenario": scenario or label, "rate_qps": rate,
            "batch": bat, "t_in": t_in, "t_out": t_out, "source": "hybrid", "level": level}  # fmt: skip
    return cols | head | {"rank": rank_numbers(cols["meets_sla"])}


def _no_layout_error(model, gpu_counts, layouts, refused: pd.DataFrame) -> InvalidInputError:
    """Every layout tried is refused on every candidate: say why (the heads or experts do not
    split, or no link bandwidth), not that the model fits no GPU."""
    asked = (f"layouts {[p.label for p in layouts]}" if layouts is not None
             else f"gpu_counts {check_gpu_counts(gpu_counts)}")  # fmt: skip
    reasons = list(dict.fromkeys(refused["why_not"]))
    shown = " ".join(reasons[:3]) + (f" (and {len(reasons) - 3} more)" if len(reasons) > 3 else "")
    return InvalidInputError(f"no layout of {asked} can serve {model.name} on the candidate "
                             f"GPUs: {shown}")  # fmt: skip


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
        rows.append({"itl_sla_ms": float(sla), "pick": None if best is None else best["gpu"],
                     "energy_per_1k_tokens_j": energy, "n_meeting_sla": n_ok})  # fmt: skip
    return pd.DataFrame(rows)


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
    rows = [{"strategy": name, "gpu": None if row is None else row["gpu"],
             "verdict": None if row is None else row["verdict"],
             "meets_sla": bool(row is not None and row["meets_sla"]),
             "energy_per_1k_tokens_j": math.nan if row is None else row["energy_per_1k_tokens_j"]}
            for name, row in picks]  # fmt: skip
    out = pd.DataFrame(rows)
    return out.assign(extra_energy_pct=extra_pct(e_best, out["energy_per_1k_tokens_j"]))


def compare_pair(llm, gpu_a: str, gpu_b: str, source: str = "measured", scenarios=SCENARIOS,
                 **ask):  # fmt: skip
    """Energy of GPU a vs GPU b per scenario (one GPU each), the percentage read both ways.

    a_saves_pct = (E_b − E_a) / E_b · 100 ("a saves X %"); b_uses_more_pct = (E_b − E_a) / E_a
    · 100 ("b uses Y % more"); E = energy per 1,000 generated tokens. Server: E ∝ P̄.
    ``ask``: more arguments of :func:`rank_gpus` (``t_in``, ``t_out``).
    """
    rows = []
    for scenario in scenarios:
        t = rank_gpus(llm, scenario=scenario, itl_sla_ms=1e6, candidates=[gpu_a, gpu_b], source=source,
                      gpu_counts=(1,), **ask).set_index("gpu")  # fmt: skip
        e_a, e_b = (t.loc[gpu(n).name, "energy_per_1k_tokens_j"] for n in (gpu_a, gpu_b))
        p_a, p_b = (t.loc[gpu(n).name, "power_w"] for n in (gpu_a, gpu_b))
        rows.append({"scenario": scenario, "power_a_w": p_a, "power_b_w": p_b,
                     "energy_a_per_1k_tokens_j": e_a, "energy_b_per_1k_tokens_j": e_b,
                     "a_saves_pct": saving_pct(e_a, e_b), "b_uses_more_pct": extra_pct(e_a, e_b)})  # fmt: skip
    return pd.DataFrame(rows).assign(gpu_a=gpu(gpu_a).name, gpu_b=gpu(gpu_b).name)


def compare_pair_run_energy(llm_name: str, gpu_a: str, gpu_b: str) -> pd.DataFrame:
    """The same percentages from Watt Counts' own energy per token (whole-run energy / tokens,
    mean over repeats) instead of P̄ / (λ · T_out): a check on the accounting."""
    runs = measurements.load()
    mine = runs[(runs["llm"] == llm_name) & runs["gpu"].isin([gpu_a, gpu_b])]
    e = mine.groupby(["scenario", "gpu"])["energy_per_token_j"].mean().unstack()[[gpu_a, gpu_b]]
    return pd.DataFrame({
        "energy_a_per_token_j": e[gpu_a], "energy_b_per_token_j": e[gpu_b],
        "a_saves_pct": saving_pct(e[gpu_a], e[gpu_b]),
        "b_uses_more_pct": extra_pct(e[gpu_a], e[gpu_b]),
    }).reindex(list(SCENARIOS)).rename_axis("scenario").reset_index()  # fmt: skip
