"""The Watt Counts run table: its schema, constants, and the derivation from per-run aggregates.

One function, :func:`runs_table`, turns per-run aggregates into the table ``wl.measurements()``
returns. Two callers feed it: ``data/scripts/build_runs.py`` (from the shipped per-run copy, whose
server ITL is mean e2e / mean tokens) and :mod:`wattgpu_lite.runs.upstream` (from the upstream file's
per-request lists, with the paper's exact server ITL). Sharing it keeps the two tables identical
in everything but the server ITL.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

SCENARIOS: tuple[str, ...] = ("offline", "server_low", "server_high")
# Poisson arrival rates of the two server scenarios, requests per second (Watt Counts, WattGPU §3).
LAMBDA_QPS: dict[str, float] = {"server_low": 0.017, "server_high": 0.33}
# The one rule from a request rate to a scenario: the Watt Counts rate nearest in log λ, i.e. a
# split at the geometric mean sqrt(0.017 · 0.33) = 0.0749 req/s (see scenario_for_rate).
LAMBDA_SPLIT_QPS = float(np.sqrt(LAMBDA_QPS["server_low"] * LAMBDA_QPS["server_high"]))
# Runs per (gpu, llm, scenario) block: the authors repeat every configuration five times.
REPS_PER_BLOCK = 5
# The per-request ITL needs at least one inter-token gap.
MIN_GENERATED_TOKENS = 2.0

# nvidia-smi name -> catalog name (data/gpus.csv); "NVIDIA H200" is the H200 NVL at 700 W.
SMI_TO_CATALOG: dict[str, str] = {
    "Tesla V100-SXM2-32GB": "V100 SXM2 32GB",
    "Tesla T4": "T4",
    "NVIDIA A100-SXM4-40GB": "A100 SXM4 40GB",
    "NVIDIA A30": "A30",
    "NVIDIA L40S": "L40S",
    "NVIDIA L4": "L4",
    "NVIDIA H100 NVL": "H100 NVL",
    "NVIDIA H200": "H200 NVL",
}
MEASURED_GPUS: tuple[str, ...] = tuple(SMI_TO_CATALOG.values())

ITL_OFFLINE = "offline: run duration / generated tokens = 1/throughput"
ITL_SERVER_APPROX = (
    "server: mean e2e latency / mean generated tokens per request (includes the prefill of the "
    "~15-token prompt; not the paper's per-request (e2e - TTFT)/(tokens - 1))"
)
ITL_SERVER_EXACT = "server: mean over requests of (e2e - TTFT)/(tokens - 1), as the paper"

# column -> kind ("str", "float", "int", "bool"), in the order of the CSV file
COLUMNS: dict[str, str] = {
    "llm": "str",
    "gpu": "str",
    "gpu_smi_name": "str",
    "scenario": "str",
    "lambda_qps": "float",
    "block": "int",
    "rep": "int",
    "n_requests": "int",
    "prompt_tokens": "float",
    "generated_tokens": "float",
    "power_w": "float",
    "duration_s": "float",
    "e2e_latency_s": "float",
    "throughput_tps": "float",
    "tokens_per_j": "float",
    "energy_per_token_j": "float",
    "itl_s": "float",
    "itl_definition": "str",
    "dense": "bool",
}

# Columns an aggregate frame must carry for runs_table (per run, in the source's row order).
AGGREGATE_COLUMNS: tuple[str, ...] = (
    "llm",
    "gpu_smi_name",
    "lambda_qps",
    "n_requests",
    "prompt_tokens",
    "generated_tokens",
    "power_w",
    "duration_s",
    "e2e_latency_s",
    "throughput_tps",
    "tokens_per_j",
    "itl_server_s",
    "itl_server_definition",
    "dense",
)


def scenario_for_rate(rate_qps):
    """The Watt Counts scenario nearest a request rate λ [req/s] in log λ: "server_low" below
    sqrt(0.017 · 0.33) = 0.0749 req/s, "server_high" from there on, "offline" for no rate (NaN).

    The one rule the kit uses wherever a rate meets a scenario (labelling the runs, ``predict``,
    ``rank``). Broadcasts over arrays.
    """
    if isinstance(rate_qps, float):  # one rate (a single predict's): the rule on the float
        low = rate_qps < LAMBDA_SPLIT_QPS
        return "offline" if math.isnan(rate_qps) else "server_low" if low else "server_high"
    rate = np.asarray(rate_qps, dtype=float)
    server = np.where(rate < LAMBDA_SPLIT_QPS, "server_low", "server_high")
    out = np.where(np.isnan(rate), "offline", server)
    return out.item() if out.ndim == 0 else out  # one rate: its name as a str (no printing)


def scenario_of(lambda_qps: pd.Series) -> pd.Series:
    """Scenario name of each run from its Poisson rate (req/s), by :func:`scenario_for_rate`."""
    return pd.Series(scenario_for_rate(lambda_qps.to_numpy(dtype=float)), index=lambda_qps.index)


def scenario_group(scenario: str) -> str:
    """``"offline"`` or ``"server"`` (server_low and server_high are pooled, as in WattGPU)."""
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r}; expected one of {SCENARIOS}")
    return "offline" if scenario == "offline" else "server"


def block_and_rep(keys: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Block (1, 2, ...) and repetition (1..5) of each run from its position in its group.

    Runs of one (gpu, llm, scenario) appear in measurement order; every five form a block.
    """
    position = keys.groupby(list(keys.columns), sort=False).cumcount()
    return position // REPS_PER_BLOCK + 1, position % REPS_PER_BLOCK + 1


def runs_table(agg: pd.DataFrame) -> pd.DataFrame:
    """The measurements table from per-run aggregates (rows in measurement order).

    Offline ITL = 1/throughput [s/token]; server ITL = the aggregate's ``itl_server_s``.
    energy_per_token_j = 1/tokens_per_j. Runs with < 2 generated tokens per request are dropped.
    """
    out = agg.loc[:, list(AGGREGATE_COLUMNS)].reset_index(drop=True)
    out["scenario"] = scenario_of(out["lambda_qps"])
    out["gpu"] = out["gpu_smi_name"].map(SMI_TO_CATALOG).fillna(out["gpu_smi_name"])
    out["block"], out["rep"] = block_and_rep(out[["gpu", "llm", "scenario"]])
    offline = out["scenario"] == "offline"
    out["itl_s"] = np.where(offline, 1.0 / out["throughput_tps"], out["itl_server_s"])
    out["itl_definition"] = np.where(offline, ITL_OFFLINE, out["itl_server_definition"])
    out["e2e_latency_s"] = out["e2e_latency_s"].where(~offline)
    out["energy_per_token_j"] = 1.0 / out["tokens_per_j"]
    out = out[out["generated_tokens"] >= MIN_GENERATED_TOKENS]
    return out.loc[:, list(COLUMNS)].reset_index(drop=True)


def coverage(runs: pd.DataFrame) -> pd.DataFrame:
    """What was measured: per GPU and scenario, the number of distinct LLMs and of runs.

    Returns a wide table (one row per GPU; columns ``(scenario, "llms" | "runs")``) — the
    GPUs × LLMs × scenarios grid a reader should see before trusting any model fitted on it.
    """
    grouped = runs.groupby(["gpu", "scenario"]).agg(llms=("llm", "nunique"), runs=("llm", "size"))
    wide = grouped.unstack("scenario").swaplevel(axis=1).sort_index(axis=1)
    return wide.reindex(columns=list(SCENARIOS), level=0)
