"""Load as a number: the mean count of in-flight sequences, instead of three scenario labels.

- Server (Poisson arrivals at λ req/s): Little's law L = λ · W, with W the mean end-to-end
  latency of a request. W is *predicted*, never measured: the batch-1 roofline time of the
  request (prefill + T_out decode steps, :func:`energy_physical.active_time_s`), so the feature
  uses no target. Busy fraction of an M/G/∞ queue: P(N ≥ 1) = 1 − exp(−L).
- Offline (all n prompts at once): vLLM runs at most b = min(max_num_seqs = 256, KV blocks /
  blocks per sequence, n) sequences (:func:`kv_capacity_seqs`). Over the run the mean is
  L = n·b / (n + b): the n·T_out tokens take n·T_out / b full steps plus about T_out steps of
  the last wave draining (:func:`offline_in_flight`); busy fraction 1.

Two latencies at a load, named apart (with L the mean in-flight count):
``itl_s`` = time between two tokens of one request; ``time_per_token_s`` = 1 / throughput =
``itl_s / L`` (Little's law on tokens). The paper's offline "ITL" is ``time_per_token_s``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.energy import physical as P
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.runs.schema import LAMBDA_QPS, scenario_for_rate
from wattgpu_lite.specs.catalog import GPU, LLM
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT
from wattgpu_lite.specs.workload import server_time_per_token_s as server_time_per_token_s

MAX_NUM_SEQS = 256  # vLLM's default max_num_seqs (Watt Counts ran with it)
T_IN_DEFAULT = float(DEFAULT_T_IN)  # the one default (specs.workload)
T_OUT_DEFAULT = float(DEFAULT_T_OUT)
N_REQUESTS_DEFAULT = 1000.0  # Watt Counts offline runs submit 1,000 prompts
MEM_UTIL = 0.9  # vLLM's default gpu_memory_utilization
KV_BLOCK_TOKENS = 16  # vLLM's default KV-cache block size (tokens)


def littles_law_in_flight(rate_qps, latency_s):
    """Mean requests in the system, L = λ [req/s] · W [s] (Little's law)."""
    return np.asarray(rate_qps, dtype=float) * np.asarray(latency_s, dtype=float)


def busy_fraction(in_flight):
    """Share of time at least one request is in flight, 1 − exp(−L) (M/G/∞: N ~ Poisson(L))."""
    return 1.0 - np.exp(-np.asarray(in_flight, dtype=float))


def per_request_itl_s(time_per_token_s, in_flight):
    """Per-request ITL [s] from the aggregate time per token: itl = L · (1/throughput).

    Little's law on tokens: throughput = L / itl (L sequences, each emitting a token per itl).
    """
    return np.asarray(time_per_token_s, dtype=float) * np.asarray(in_flight, dtype=float)


def aggregate_time_per_token_s(itl_s, in_flight):
    """Aggregate time per token, 1/throughput [s/token] = itl / L (inverse of the above)."""
    return np.asarray(itl_s, dtype=float) / np.asarray(in_flight, dtype=float)


def both_latencies(paper_itl_s, offline, in_flight) -> tuple[np.ndarray, np.ndarray]:
    """(itl_s per request, time_per_token_s aggregate) from the paper's ITL, which is the
    aggregate 1/throughput on offline rows and the per-request ITL on server rows."""
    y, off = np.asarray(paper_itl_s, dtype=float), np.asarray(offline, dtype=bool)
    itl = np.where(off, per_request_itl_s(y, in_flight), y)
    return itl, np.where(off, y, aggregate_time_per_token_s(y, in_flight))


def paper_itl_s(itl_s, time_per_token_s, offline) -> np.ndarray:
    """The paper's ITL: time_per_token_s on offline rows, itl_s (per request) on server rows."""
    return np.where(np.asarray(offline, dtype=bool), time_per_token_s, itl_s)


def batch1_latency_s(model: LLM, device: GPU, t_in, t_out):
    """Roofline end-to-end time [s] of one request alone on the GPU (prefill + decode, B = 1)."""
    return P.active_time_s(P.llm_args(model), (t_in, t_out, 1.0), P.gpu_args(device, 0.0), 1.0)


def kv_capacity_seqs(model: LLM, device: GPU, t_in, t_out):
    """Sequences the KV cache holds: floor(KV blocks / blocks per sequence), in [1, 256].

    KV blocks = (MEM_UTIL · memory − FP16 weights) / (16 tokens · kv bytes per token); a sequence
    holds on average its prompt and half its output, ceil((T_in + T_out / 2) / 16) blocks (it
    grows one token per step; vLLM allocates blocks as it grows and preempts when full).
    """
    free_b = MEM_UTIL * device.memory_gb * 1e9 - 2.0 * model.params_b * 1e9
    blocks = np.floor(free_b / (KV_BLOCK_TOKENS * model.kv_bytes_per_token))
    per_seq = np.ceil((np.asarray(t_in, float) + np.asarray(t_out, float) / 2) / KV_BLOCK_TOKENS)
    return np.clip(np.floor(blocks / per_seq), 1.0, MAX_NUM_SEQS)


def offline_in_flight(cap_seqs, n_requests):
    """Mean in-flight sequences of an offline run, L = n·b / (n + b) with b = min(cap, n):
    n·T_out tokens in n·T_out / b steps at b sequences plus ~T_out steps of draining."""
    n = np.asarray(n_requests, dtype=float)
    b = np.minimum(cap_seqs, n)
    return n * b / (n + b)


def in_flight(model: LLM, device: GPU, t_in, t_out, rate_qps=np.nan, batch=np.nan,
              n_requests=N_REQUESTS_DEFAULT):  # fmt: skip
    """Mean in-flight sequences: ``batch`` if given (capped by KV memory), else λ · W_roofline
    if ``rate_qps`` is given, else the offline mean over ``n_requests`` prompts."""
    cap = kv_capacity_seqs(model, device, t_in, t_out)
    server = littles_law_in_flight(rate_qps, batch1_latency_s(model, device, t_in, t_out))
    out = np.where(np.isfinite(rate_qps), server, offline_in_flight(cap, n_requests))
    return np.where(np.isfinite(batch), np.minimum(batch, cap), out)


def is_batch_mode(frame: pd.DataFrame) -> np.ndarray:
    """Rows with no arrival rate (offline / a fixed batch), whose paper ITL is aggregate."""
    if "rate_qps" in frame:
        return ~np.isfinite(frame["rate_qps"].to_numpy(dtype=float))
    return (frame["scenario"] == "offline").to_numpy()


def scenario_load(scenario: str) -> tuple[float, float]:
    """(rate_qps, batch) describing a Watt Counts scenario: (λ, NaN) server, (NaN, NaN) offline."""
    return (LAMBDA_QPS[scenario], np.nan) if scenario in LAMBDA_QPS else (np.nan, np.nan)


def check_load(rate: float | None, batch: float | None) -> tuple[float, float]:
    """Validate a user's ``rate`` (req/s) or ``batch`` (sequences): positive, at most one set."""
    if rate is not None and batch is not None:
        raise InvalidInputError("give rate= (requests/s, server) or batch= (sequences), not both")
    for name, value in (("rate", rate), ("batch", batch)):
        if value is not None and not (np.isfinite(value) and value > 0):
            raise InvalidInputError(f"{name} must be a positive number, got {value!r}")
    return (np.nan if rate is None else float(rate)), (np.nan if batch is None else float(batch))


def nearest_scenario(rate_qps: float, batch: float) -> str:
    """The Watt Counts scenario of a load (for the categorical model): a batch is offline; a
    rate goes by :func:`runs.schema.scenario_for_rate`."""
    if np.isfinite(batch) or not np.isfinite(rate_qps):
        return "offline"
    return scenario_for_rate(rate_qps)


def _column(frame: pd.DataFrame, name: str, default) -> pd.Series:
    """frame[name] as floats, or ``default`` (a scalar or one value per row) if absent."""
    values = frame[name] if name in frame else pd.Series(default, frame.index)
    return values.astype(float)


def workload_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """t_in, t_out, rate_qps, batch, n_requests per row: the runs' measured token counts, λ and
    prompt count when present, else the Watt Counts defaults and the scenario's λ."""
    loads = [scenario_load(s) for s in frame["scenario"]] if "scenario" in frame else []
    loads = loads or [(np.nan, np.nan)] * len(frame)
    n_req = _column(frame, "n_requests", N_REQUESTS_DEFAULT)
    return pd.DataFrame({
        "t_in": _column(frame, "prompt_tokens", T_IN_DEFAULT),
        "t_out": _column(frame, "generated_tokens", T_OUT_DEFAULT),
        "rate_qps": _column(frame, "rate_qps", [r for r, _ in loads]),
        "batch": _column(frame, "batch", [b for _, b in loads]),
        "n_requests": n_req.fillna(N_REQUESTS_DEFAULT),
    }, index=frame.index)  # fmt: skip
