"""The ranking's columns per source, with accelerator accounting, in ranking order: the hybrid's
plans per (GPU, layout) (replicas at a rate), or a Watt Counts source's table of the measured GPUs
(:mod:`~wattgpu_lite.selection.sources`). :func:`~wattgpu_lite.selection.rank.rank_gpus` adds the
wall columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.predict.chain import DEFAULT_LEVEL, check_asked
from wattgpu_lite.runs.schema import scenario_for_rate
from wattgpu_lite.selection.accounting import WATT_COUNTS_CONTEXT_TOKENS
from wattgpu_lite.selection.inputs import (
    candidate_gpus,
    check_gpu_counts,
    no_fit_error,
    runs_tokens,
    scenario_load,
)
from wattgpu_lite.selection.layouts import deployments, layout_why
from wattgpu_lite.selection.plan import batch_plans, rate_plans
from wattgpu_lite.selection.sources import gpu_metrics
from wattgpu_lite.selection.table import (
    add_energy,
    apply_sla,
    columns_of,
    fit_table,
    hybrid_accounting,
    order,
    order_index,
    rank_numbers,
    with_rows,
)
from wattgpu_lite.selection.verdict import MEETS_AT_ESTIMATE, verdict_array
from wattgpu_lite.specs.resolve import resolve_llm

DEFAULT_GPU_COUNTS = (1, 2, 4, 8)  # GPUs per replica tried by the hybrid source
PLANNED = ("gpu_counts", "weights", "layouts", "serving")  # a plan's names but the candidates
#: the token counts a Watt Counts source answers at the runs' own only (their mean per request,
#: :func:`~wattgpu_lite.selection.inputs.runs_tokens`): the runs' prompts are fixed, and the
#: measured runs carry their own generated tokens (the predictors account energy for ``t_out``)
RUNS_ONLY = {"measured": ("t_in", "t_out"), "paper": ("t_in",), "logo": ("t_in",)}


def source_tokens(source: str, **tokens) -> dict:
    """The token counts of ``tokens`` that ``source`` takes (every one for the hybrid, ``t_out``
    for paper and logo, none for measured): what a form whose token boxes serve every source
    passes to :func:`~wattgpu_lite.selection.rank.rank_gpus`."""
    return {k: v for k, v in tokens.items() if k not in RUNS_ONLY.get(source, ())}


def source_tokens_note(source: str) -> str:
    """A sentence for a form whose token boxes serve every source, naming the counts ``source``
    answers at the runs' own (:data:`RUNS_ONLY`; "" for the hybrid, which takes them all)."""
    fixed = RUNS_ONLY.get(source, ())
    if not fixed:
        return ""
    kinds = " and ".join({"t_in": "prompt", "t_out": "output"}[k] for k in fixed)
    return (
        f" The {source} source answers at the Watt Counts runs' own {kinds} tokens: the "
        f"{kinds} tokens asked apply to the hybrid source."
    )


def check_source_tokens(llm, source: str, *, t_in, t_out, workload) -> None:
    """Refuse token inputs a Watt Counts source would answer for other tokens than asked: a
    ``workload``, a count it cannot take (:data:`RUNS_ONLY`) other than the runs' own, and any
    count that is no token count (InvalidInputError naming it; never a ranking silently for other
    tokens, nor a negative energy per token)."""
    if source not in RUNS_ONLY or (t_in, t_out, workload) == (None, None, None):
        return
    model = resolve_llm(llm)
    given = {k: v for k, v in (("t_in", t_in), ("t_out", t_out)) if v is not None}
    checks.check_tokens(given.get("t_in", 1), given.get("t_out", 1), model.context_length)
    try:
        runs = dict(zip(("t_in", "t_out"), runs_tokens(model), strict=True))
    except ValueError:
        return  # no run of the model: the source refuses it itself, by name
    off = [f"{k}={given[k]}" for k in RUNS_ONLY[source] if k in given and given[k] != runs[k]]
    off += [f"workload={workload!r}"] if workload is not None else []
    if off:
        raise InvalidInputError(
            f"source {source!r} answers for the Watt Counts runs of {model.name} "
            f"({runs['t_in']} prompt and {runs['t_out']} generated tokens per request, their "
            f"mean), so it cannot take {', '.join(off)}; leave it out, or use source='hybrid' "
            "for other token counts"
        )


def check_hybrid_plan(context_tokens: int, gpu_counts, layouts) -> None:
    """Refuse what the hybrid source would ignore: a ``context_tokens`` (it checks each plan's
    fit at the request's own tokens) and ``gpu_counts`` beside ``layouts`` (which name the
    layouts tried), other than their defaults (InvalidInputError naming them)."""
    if context_tokens != WATT_COUNTS_CONTEXT_TOKENS:
        raise InvalidInputError(
            f"context_tokens={context_tokens} sets the context the Watt Counts sources' "
            "memory-fit check reserves; source='hybrid' checks each plan's fit at the "
            "request's own t_in + t_out: pass those instead, or leave context_tokens out"
        )
    if layouts is not None and check_gpu_counts(gpu_counts) != DEFAULT_GPU_COUNTS:
        raise InvalidInputError(
            f"give layouts or gpu_counts, not both: layouts names each replica's layout, so "
            f"gpu_counts={gpu_counts!r} would be ignored; drop gpu_counts (or layouts, to try "
            "every layout of each count)"
        )


def ranked_columns(
    llm,
    source: str,
    sla_ms: float,
    *,
    load: dict,
    plan: dict,
    t_in,
    t_out,
    grid,
    price,
    level,
    context_tokens,
) -> dict:
    """The ranking's columns of ``source`` at ``load`` (its scenario, rate_qps and batch by
    name), the ``plan`` (candidates, gpu_counts, weights, layouts, serving by name), the tokens
    and the wall's ``grid`` (g CO2e/kWh) and ``price`` (per kWh), in ranking order."""
    model, devices = resolve_llm(llm), candidate_gpus(plan["candidates"], source)
    context_tokens = checks.check_count("context_tokens", context_tokens, 1, model.context_length)
    gpu_counts, weights, layouts, serving = (plan[k] for k in PLANNED)
    if source == "hybrid":
        check_hybrid_plan(context_tokens, gpu_counts, layouts)
        asked = {"t_in": t_in, "t_out": t_out, "grid": grid, "price": price, "level": level}
        plans = {k: plan[k] for k in PLANNED}
        return _hybrid_columns(model, devices, sla_ms, **load, **plans, **asked)
    counts = check_gpu_counts(gpu_counts)
    served = serving and any(v is not None for v in serving.values())
    planned = weights is not None or layouts is not None or served
    if counts not in ((1,), DEFAULT_GPU_COUNTS) or planned:
        raise InvalidInputError(
            f"source {source!r} knows one GPU, 16-bit weights and vLLM's defaults only; use "
            "source='hybrid' for gpu_counts, layouts, weights, kv_cache, engine or max_num_seqs"
        )
    if load["batch"] is not None:
        raise InvalidInputError(
            f"source {source!r} knows the Watt Counts scenarios only; use scenario= or "
            "rate_qps=, or source='hybrid' for a batch"
        )
    if checks.check_level(level) != DEFAULT_LEVEL:  # no interval to take it
        raise InvalidInputError(
            f"source {source!r} gives no intervals, so level={level!r} would be ignored; "
            "leave level out, or use source='hybrid' for intervals at a level"
        )
    scenario, rate = scenario_load(load["scenario"], load["rate_qps"])
    table = fit_table(model, devices, context_tokens)
    if not table["fits"].any():
        raise no_fit_error(model.name, table)
    fitting = [d for d in devices if d.name in set(table.loc[table["fits"], "gpu"])]
    metrics = gpu_metrics(model, fitting, scenario, source, t_out=t_out)
    table = table.merge(metrics, on="gpu", how="left")
    table = apply_sla(add_energy(table, rate, grid, price), sla_ms, scenario)
    if "message" in table:  # paper, logo: a refused row's own reason, not "no data"
        said = table.pop("message").fillna("")
        table["why_not"] = table["why_not"].where(said == "", said)
    head = {"llm": model.name, "llm_architecture": model.architecture_name, "scenario": scenario}
    return columns_of(order(table)) | head | {"rate_qps": rate, "source": source}


def _hybrid_columns(
    model,
    devices,
    sla_ms: float,
    *,
    scenario,
    rate_qps,
    batch,
    t_in,
    t_out,
    gpu_counts,
    weights,
    layouts,
    serving,
    grid,
    price,
    level,
) -> dict:
    """The 'hybrid' source: plans per (GPU, layout) (replicas at a rate), accounted, ordered
    (the arguments are :func:`ranked_columns`', the load's and the plan's by name). The request
    is checked once, as every entry point's (:func:`~wattgpu_lite.energy.request.check_asked`:
    formats, engine, load, tokens, level); each plan's GPU and layout by the plans."""
    load = {"scenario": scenario, "rate_qps": rate_qps, "batch": batch, "level": level}
    req = check_asked(model, weights=weights, t_in=t_in, t_out=t_out, **load, **(serving or {}))
    rate, bat, offline, t_in, t_out = req.rate_qps, req.batch, req.offline, req.t_in, req.t_out
    level, fmt, serving = req.level, req.weights, req.serving_args()
    plans, refused = deployments(model, devices, gpu_counts, layouts)
    asked = {"t_in": t_in, "t_out": t_out, "sla_s": sla_ms / 1e3, "level": level}
    asked |= {"weights": fmt, "serving": serving}
    if not plans:
        raise _no_layout_error(model, gpu_counts, layouts, refused)
    if np.isnan(rate):
        cols = batch_plans(model, plans, None if offline else bat, **asked)
    else:
        cols = rate_plans(model, plans, rate, **asked)
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
    head = {
        "llm": model.name,
        "llm_architecture": model.architecture_name,
        "weights": fmt,
        "scenario": scenario or label,
        "rate_qps": rate,
        "batch": bat,
        "t_in": t_in,
        "t_out": t_out,
        "source": "hybrid",
        "level": level,
    }
    return cols | head | {"rank": rank_numbers(cols["meets_sla"])}


def _no_layout_error(model, gpu_counts, layouts, refused: pd.DataFrame) -> InvalidInputError:
    """Every layout tried is refused on every candidate: say why (the heads or experts do not
    split, or no link bandwidth), not that the model fits no GPU."""
    if layouts is not None:
        asked = f"layouts {[p.label for p in layouts]}"
    else:
        asked = f"gpu_counts {check_gpu_counts(gpu_counts)}"
    reasons = list(dict.fromkeys(refused["why_not"]))
    shown = " ".join(reasons[:3]) + (f" (and {len(reasons) - 3} more)" if len(reasons) > 3 else "")
    return InvalidInputError(
        f"no layout of {asked} can serve {model.name} on the candidate GPUs: {shown}"
    )
