"""Serving plans from the hybrid predictor: for each GPU type, how many replicas meet a rate and SLA.

For a GPU (one replica = one GPU here) the per-request ITL grows with the rate a replica serves, so
there is a largest per-replica rate r_max whose ITL stays within the SLA (found by bisection, below
the replica's capacity). The rate λ then needs R = ⌈λ / r_max⌉ replicas, each serving λ / R; the
plan's GPU energy per generated token is R · P̄(λ/R) / (λ · T_out), every replica held for the whole
time. Fewer replicas mean less idle power, so the least R that meets the SLA is the plan.

Offline (a batch), there are no replicas: the batch is what the GPU holds, and the SLA applies to the
per-request ITL at that batch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from wattgpu_lite.hybrid import engine as E
from wattgpu_lite.hybrid import rows as R
from wattgpu_lite.hybrid.model import HybridModel
from wattgpu_lite.hybrid.training import OFFLINE_PROMPTS
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.llm import LLM

MAX_REPLICAS = 1000
BISECTION_STEPS = 40
QUANTITIES = ("power_w", "itl_s", "time_per_token_s", "energy_per_token_j")


def _predict(llm: LLM, gpus: Sequence[GPU], t_in, t_out, rate, batch, level) -> dict:
    return E.predict_arrays(HybridModel.pretrained(), [llm] * len(gpus), list(gpus), t_in, t_out,
                            rate, batch, level)  # fmt: skip


def max_rate_under_sla(llm, gpus, t_in, t_out, sla_s: float, level: float) -> np.ndarray:
    """Per GPU, the largest rate [req/s] one replica serves with ITL ≤ ``sla_s`` (0 if even the
    lightest load misses the SLA; NaN if the model does not fit)."""
    light = _predict(llm, gpus, t_in, t_out, 1e-6, np.nan, level)
    capacity = light["capacity_qps"]
    ok = (light["status"] == "ok") & (light["itl_s"] <= sla_s)
    lo, hi = np.zeros(len(gpus)), np.where(ok, capacity * (1 - 1e-9), 0.0)
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        out = _predict(llm, gpus, t_in, t_out, np.maximum(mid, 1e-12), np.nan, level)
        good = (out["status"] == "ok") & (out["itl_s"] <= sla_s)
        lo, hi = np.where(good, mid, lo), np.where(good, hi, mid)
    fits = light["max_batch"] >= 1
    return np.where(fits, np.where(ok, lo, 0.0), np.nan)


def rate_plans(llm, gpus, rate_qps, t_in, t_out, sla_s, level) -> pd.DataFrame:
    """One plan per GPU at a request rate: replicas, per-replica prediction, why not."""
    r_max = max_rate_under_sla(llm, gpus, t_in, t_out, sla_s, level)
    feasible = np.isfinite(r_max) & (r_max > 0)
    replicas = np.where(feasible, np.ceil(rate_qps / np.where(feasible, r_max, 1.0)), np.nan)
    replicas = np.where(replicas > MAX_REPLICAS, np.nan, replicas)
    share = rate_qps / np.where(np.isfinite(replicas), replicas, 1.0)
    out = _predict(llm, gpus, t_in, t_out, share, np.nan, level)
    light = _predict(llm, gpus, t_in, t_out, 1e-6, np.nan, level)
    why = [_why_not(r, m, lt, sla_s) for r, m, lt in zip(replicas, r_max, light["itl_s"], strict=True)]
    why = [memory_why_not(llm, g, t_in, t_out) if w == "does not fit in memory" else w
           for w, g in zip(why, gpus, strict=True)]  # fmt: skip
    frame = _frame(gpus, out, replicas, why)
    # a plan that misses the SLA shows one replica's figures at the whole rate
    factor = np.where(np.isfinite(replicas), replicas, 1.0)
    # every replica is held for the whole time: the plan's energy per token is R times one's
    for q in ("energy_per_token_j", "energy_per_token_j_lo", "energy_per_token_j_hi"):
        frame[q] = frame[q] * factor
    frame["total_power_w"] = frame["power_w"] * factor
    frame["max_rate_per_replica_qps"] = r_max
    return frame.assign(rate_per_replica_qps=np.where(np.isfinite(replicas), share, np.nan))


def batch_plans(llm, gpus, batch: float | None, t_in, t_out, sla_s, level) -> pd.DataFrame:
    """One plan per GPU at a fixed batch (None: the Watt Counts offline load, 1,000 prompts at
    once on the sequences the GPU holds)."""
    _, cap = R.build([llm] * len(gpus), list(gpus), t_in, t_out)
    b = R.offline_in_flight(cap, OFFLINE_PROMPTS) if batch is None else np.full(len(gpus), batch)
    out = _predict(llm, gpus, t_in, t_out, np.nan, np.where(cap >= 1, b, 1.0), level)
    why = []
    for status, itl, g in zip(out["status"], out["itl_s"], gpus, strict=True):
        if status == "does not fit in memory":
            why.append(memory_why_not(llm, g, t_in, t_out))
        elif status != "ok":
            why.append(str(status))
        else:
            why.append("" if itl <= sla_s else f"ITL {itl * 1e3:.1f} ms > SLA {sla_s * 1e3:g} ms")
    frame = _frame(gpus, out, np.where(out["status"] == "ok", 1.0, np.nan), why)
    return frame.assign(total_power_w=frame["power_w"])


def memory_why_not(llm: LLM, gpu: GPU, t_in, t_out) -> str:
    """Why the weights and one request's KV cache do not fit 90 % of the memory (vLLM's share)."""
    weights_gb = llm.params_b * llm.bytes_per_weight
    kv_gb = llm.kv_bytes_per_token * (t_in + t_out) / 1e9
    usable = R.MEM_UTIL * gpu.memory_gb
    return (f"does not fit in memory: needs {weights_gb + kv_gb:.1f} GB ({llm.weight_format} "
            f"weights {weights_gb:.1f} GB + KV cache of one {int(t_in + t_out)}-token request) > "
            f"90 % of {gpu.memory_gb:g} GB = {usable:.1f} GB")  # fmt: skip


def _why_not(replicas: float, r_max: float, light_itl: float, sla_s: float) -> str:
    if math.isnan(r_max):
        return "does not fit in memory"
    if r_max <= 0:
        return f"ITL {light_itl * 1e3:.1f} ms at the lightest load > SLA {sla_s * 1e3:g} ms"
    if math.isnan(replicas):
        return f"needs more than {MAX_REPLICAS} replicas"
    return ""


def _frame(gpus, out: dict, replicas, why) -> pd.DataFrame:
    cols = {q: out[q] for q in QUANTITIES}
    cols |= {f"{q}_{e}": out[f"{q}_{e}"] for q in QUANTITIES for e in ("lo", "hi")}
    return pd.DataFrame({
        "gpu": [g.name for g in gpus], "num_gpus": 1, "replicas": replicas, **cols,
        "in_flight": out["in_flight"], "max_batch": out["max_batch"], "basis": out["basis"],
        "meets_sla": [w == "" for w in why], "why_not": why,
        "tdp_w": [g.tdp_w for g in gpus], "memory_gb": [g.memory_gb for g in gpus],
        "fp16_tflops_per_w": [g.fp16_tflops / g.tdp_w for g in gpus],
    })  # fmt: skip
