"""Serving plans from the hybrid predictor: for each GPU type and GPU count per replica, how many
replicas meet a rate under an ITL SLA, and at what energy.

A plan is (GPU type, layout of a replica, replicas). A deployment is one (GPU, layout) pair — the
layout a :class:`~wattgpu_lite.specs.layout.Parallel` (or a GPU count, tensor parallel): the rows of
these functions are deployments, so every GPU type is tried with every layout at once; the columns
of :mod:`wattgpu_lite.selection.layouts` say why one layout beats another.

For a replica the per-request ITL grows with the rate it serves, so
there is a largest per-replica rate r_max whose ITL stays within the SLA (found by a search over
the replica's load, :meth:`wattgpu_lite.hybrid.predict.sla.Replicas.max_rate_under_sla`, below the
replica's capacity). The rate λ then needs R = ⌈λ / r_max⌉ replicas, each serving λ / R; the
plan's GPU energy per generated token is R · P̄(λ/R) / (λ · T_out) — every replica held for the whole
time —, which is one replica's own P̄(λ/R) / ((λ/R) · T_out). Fewer replicas mean less idle power, so the least R that meets the SLA is the plan.

Offline (a batch), there are no replicas: the batch is what the GPU holds, and the SLA applies to the
per-request ITL at that batch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from wattgpu_lite.hybrid.predict import chain
from wattgpu_lite.hybrid.predict.chain import ITL_FROM, StepResult
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.layout import Parallel, as_layout
from wattgpu_lite.specs.llm import LLM

MAX_REPLICAS = 1000
QUANTITIES = ("power_w", "itl_s", "time_per_token_s", "energy_per_token_j")


Deployment = tuple[GPU, Parallel | int]  # a GPU type and the layout of one replica
Columns = dict[str, np.ndarray]  # a table's columns, one value per plan (text as objects)


def _layouts(plans: Sequence[Deployment]) -> list[Parallel]:
    return [_layout(n) for _, n in plans]


def _layout(n: Parallel | int) -> Parallel:
    """A deployment's layout (a Parallel as it is: checked when it was made)."""
    if isinstance(n, Parallel):
        return n
    return as_layout(int(n) if isinstance(n, np.integer) else n)


def rate_plans(
    llm, gpus, rate_qps, t_in, t_out, sla_s, level, weights=None, serving=None
) -> Columns:
    """One plan per deployment at a request rate: replicas, per-replica prediction, why not.

    A deployment that cannot meet the SLA at any load still shows its figures with the replicas
    its capacity alone would need (within 90 % of it), so the reader sees what it would draw.
    The rows are built once; the SLA search runs on them, then one prediction of every plan.
    ``serving``: the KV-cache format, engine and concurrency limit (keywords of
    :func:`~wattgpu_lite.hybrid.predict.chain.plan_rows`; None: the defaults).
    """
    devices, lays, planned = [g for g, _ in gpus], _layouts(gpus), {"weights": weights}
    planned |= {"t_out": t_out, "serving": serving}
    rep = chain.replicas(llm, devices, lays, t_in, **planned)
    r_max, light_itl = rep.max_rate_under_sla(sla_s)
    feasible = np.isfinite(r_max) & (r_max > 0)
    per_replica = np.where(feasible, r_max, 0.9 * rep.capacity_qps)
    needed = np.ceil(rate_qps / np.where(per_replica > 0, per_replica, np.inf))
    shown = np.where(needed <= MAX_REPLICAS, np.maximum(needed, 1.0), np.nan)
    replicas = np.where(feasible, shown, np.nan)
    shown = np.where(np.isnan(r_max), np.nan, shown)  # a replica that does not fit has no count
    share = rate_qps / np.where(np.isfinite(shown), shown, 1.0)
    built, at = (rep.rows, rep.cap), {"rate": share, "batch": np.nan, "level": level}
    out = chain.predict_plans(llm, devices, lays, t_in, built=built, **at, **planned)
    why = [_why_not(r, m, lt, sla_s) for r, m, lt in zip(replicas, r_max, light_itl, strict=True)]
    why = [
        deployment_why_not(llm, d, t_in, t_out, weights=weights, serving=serving)
        if w == "does not fit in memory"
        else w
        for w, d in zip(why, gpus, strict=True)
    ]
    count = np.where(np.isfinite(replicas), replicas, shown)
    cols = _columns(gpus, lays, out, replicas=count, why=why)
    # each replica serves λ/R, so its energy per token, P̄ / ((λ/R)·T_out), is already the
    # plan's: R·P̄ / (λ·T_out)
    more = {
        "total_power_w": cols["power_w"] * cols["replicas"],
        "max_rate_per_replica_qps": r_max,
        "rate_per_replica_qps": np.where(np.isfinite(shown), share, np.nan),
    }
    return cols | _explain(cols, out, llm, lays, weights=weights) | more


def batch_plans(
    llm, gpus, batch: float | None, t_in, t_out, sla_s, level, weights=None, serving=None
) -> Columns:
    """One plan per deployment at a fixed batch (None: the Watt Counts offline load, 1,000
    prompts at once on the sequences the replica holds); ``serving`` as :func:`rate_plans`'."""
    devices, lays, planned = [g for g, _ in gpus], _layouts(gpus), {"weights": weights}
    planned |= {"t_out": t_out, "serving": serving}
    rows, cap = chain.plan_rows(llm, devices, lays, t_in, **planned)
    b = chain.offline_batch(cap) if batch is None else np.full(len(gpus), batch)
    at = {"rate": np.nan, "batch": np.where(cap >= 1, b, 1.0), "level": level}
    out = chain.predict_plans(llm, devices, lays, t_in, built=(rows, cap), **at, **planned)
    why = []
    for status, itl, d in zip(out.status, out.itl_s, gpus, strict=True):
        if status == "does not fit in memory":
            why.append(deployment_why_not(llm, d, t_in, t_out, weights=weights, serving=serving))
        elif status != "ok":
            why.append(str(status))
        else:
            why.append("" if itl <= sla_s else f"ITL {itl * 1e3:.1f} ms > SLA {sla_s * 1e3:g} ms")
    cols = _columns(gpus, lays, out, replicas=np.where(out.status == "ok", 1.0, np.nan), why=why)
    explain = _explain(cols, out, llm, lays, weights=weights)
    return cols | explain | {"total_power_w": cols["power_w"]}


def _explain(cols: Columns, out: StepResult, llm, lays: list[Parallel], *, weights) -> Columns:
    """The layout columns (:mod:`wattgpu_lite.selection.layouts`): share of a step in the
    layout's term at the plan's load (the sequences in the step a request sees, and the rows,
    of the plans' result ``out``), weights per GPU; ``lays``: the plans' layouts."""
    shares = chain.step_shares(out.rows, out.step_batch)
    ok = np.isfinite(cols["energy_per_token_j"])
    gb = {p: chain.weights_per_gpu_gb(llm, p, weights) for p in set(lays)}  # per layout
    return {
        **{k: np.where(ok, v, np.nan) for k, v in shares.items()},
        "weights_per_gpu_gb": np.array([gb[p] for p in lays]),
    }


def deployment_why_not(
    llm: LLM, deployment: Deployment, t_in, t_out, *, weights=None, serving=None
) -> str:
    """Why the weights and one request's KV cache do not fit the engine's share (vLLM: 90 %) of
    the replica's memory (:func:`wattgpu_lite.hybrid.predict.chain.memory_why_not`, the kit's one
    memory-fit check; ``serving`` as :func:`rate_plans`')."""
    gpu, lay = deployment[0], _layouts([deployment])[0]
    kv = {k: v for k, v in (serving or {}).items() if k in ("kv_cache", "engine")}
    return (
        chain.memory_why_not(llm, gpu, lay, weights, kv_tokens=t_in + t_out, **kv)
        or "does not fit in memory"
    )


def _why_not(replicas: float, r_max: float, light_itl: float, sla_s: float) -> str:
    if math.isnan(r_max):
        return "does not fit in memory"
    if r_max <= 0:
        return f"ITL {light_itl * 1e3:.1f} ms at the lightest load > SLA {sla_s * 1e3:g} ms"
    if math.isnan(replicas):
        return f"needs more than {MAX_REPLICAS} replicas"
    return ""


def _columns(gpus, lays: list[Parallel], out: StepResult, *, replicas, why) -> Columns:
    """The plans' columns (numpy arrays, text as objects) from one prediction of every plan
    (``lays``: their layouts)."""
    cols = {q: getattr(out, q) for q in QUANTITIES}
    cols |= {f"{q}_{e}": getattr(out, f"{q}_{e}") for q in QUANTITIES for e in ("lo", "hi")}
    return {
        "gpu": _text([g.name for g, _ in gpus]),
        "num_gpus": np.array([p.num_gpus for p in lays]),
        "layout": _text([p.label for p in lays]),
        "tp": np.array([p.tp for p in lays]),
        "ep": np.array([p.ep for p in lays]),
        "replicas": replicas,
        **cols,
        "in_flight": out.in_flight,
        "max_batch": out.max_batch,
        "basis": out.basis.astype(object),
        "itl_interval_from": _text([ITL_FROM[k] or None for k in out.itl_interval_codes()]),
        "meets_sla": np.array([w == "" for w in why], dtype=bool),
        "why_not": _text(why),
        "tdp_w": np.array([g.tdp_w for g, _ in gpus]),
        "memory_gb": np.array([g.memory_gb for g, _ in gpus]),
        "fp16_tflops_per_w": np.array([g.fp16_tflops / g.tdp_w for g, _ in gpus]),
    }


def _text(values) -> np.ndarray:
    """Words as an array of Python strings (a frame reads them as text)."""
    return np.array(values, dtype=object)
