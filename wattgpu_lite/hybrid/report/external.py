"""The kit against published measurements it was never fitted on (data/external_measurements.csv).

Each row of the table is one published measurement (a paper's or a benchmark repository's, cited in
data/external_measurements.md). It is turned into the question its harness asked — the LLM and GPU
by catalog name, the GPUs of one replica and its weight format, the load one replica carried and the
token counts — and the answer is put in the measurement's own scope
(:mod:`~wattgpu_lite.hybrid.report.external_scope`). Nothing here is fitted: the table reports, it never
tunes.

Mapping rules (each stated, none tuned):
- a model re-released with the same config.json shares its catalog entry (:data:`SAME_ARCHITECTURE`);
  a model the catalog lacks is left out, with the reason;
- a GPU whose form factor the source does not state is read as the SXM board of an 8-GPU server;
- ``replicas`` independent copies share the ``num_gpus`` GPUs and the load: one replica has
  G = num_gpus / replicas GPUs and carries 1/replicas of the load (a row whose layout is not stated
  is left out);
- a static batch's ITL is its decode steps' (TPOT), the run's ITL × the backbone's decode share
  (``fixed_batch``; ``decode_window`` also measures power over the decode steps alone:
  :func:`~wattgpu_lite.hybrid.report.external_scope.static_batch_view`);
- the harness sets the load of one replica: ``fixed_batch`` B and ``all_at_once`` N requests run
  min(B or N, the KV-cache capacity) sequences at a time (the rest wait for a later wave; an
  engine's own max-sequences limit, stated only in some sources' notes, is not modelled);
  ``closed_loop`` keeps its concurrency c in flight (a batch of c, capped likewise);
  ``poisson_rate`` is a Poisson arrival rate λ (Little's law in the backbone);
- a Poisson run that completed under :data:`KEPT_UP` of the requests it was offered per second
  (measured throughput / T_out against λ) fell behind its arrivals: its queue grew and the engine
  held what its admission let in (max-num-seqs, KV cache, chunked-prefill budget, scheduler
  steps), a number the row does not state; it is left out, not asked at λ. A finite run of N
  requests keeping up completes N / (N/λ + its last latency), within a tenth of λ while that
  latency is under a ninth of the arrival window.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.energy.paper import ecologits_j_per_token
from wattgpu_lite.errors import WattGPUError
from wattgpu_lite.hybrid.report import external_scope
from wattgpu_lite.hybrid.report.external_scope import predict_rows
from wattgpu_lite.specs.catalog import gpu, llm

SAME_ARCHITECTURE = {
    "deepseek-ai/DeepSeek-R1-0528": "deepseek-ai/DeepSeek-R1",
    "meta-llama/Llama-2-70b-chat-hf": "meta-llama/Llama-2-70b-hf",
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "mistralai/Mixtral-8x7B-v0.1",
}
FORM_FACTOR_UNSTATED = {
    "H200 (form factor not stated)": "H200 SXM",
    "H100 (form factor not stated)": "H100 SXM",
}
HARNESSES = ("fixed_batch", "decode_window", "all_at_once", "closed_loop", "poisson_rate")
KEPT_UP = 0.8  # completed / offered requests per second below which a Poisson run fell behind
FELL_BEHIND = (
    f"fell behind its arrivals (completed under {KEPT_UP} of the offered rate): the engine held "
    "what its admission let in, which the row does not state"
)
QUANTITIES = external_scope.MEASURED


@cache
def table() -> pd.DataFrame:
    """The published measurements, as shipped."""
    return read_csv(data_dir() / "external_measurements.csv")


def weights_of(precision: str) -> str:
    """The kit's weight format for a source's precision text."""
    text = str(precision).lower()
    if "mxfp4" in text or "fp4" in text:
        return "mxfp4" if "mxfp4" in text else "nvfp4"
    if "fp8" in text:
        return "fp8"
    return "bf16"


def requests_of(row: pd.Series) -> float:
    """Sequences one harness run keeps in flight before the KV-cache cap: B, c, N, or NaN (a rate).

    An all-at-once run that does not say how many it sent (MLPerf Offline) sent more than any
    engine holds: infinity, so the cap decides."""
    kind = row["harness"]
    if kind not in HARNESSES:
        raise WattGPUError(f"external row has harness {kind!r}; use one of {HARNESSES}")
    if kind == "poisson_rate":
        return np.nan
    value = {
        "fixed_batch": row["batch_size"],
        "decode_window": row["batch_size"],
        "closed_loop": row["concurrency"],
        "all_at_once": row["requests_total"],
    }[kind]
    return np.inf if kind == "all_at_once" and pd.isna(value) else float(value)


def question(row: pd.Series, missing: dict[tuple[str, str], str] | None = None) -> dict | str:
    """The predict_many row of one replica (before the KV-cache cap), or why it cannot be asked.
    ``missing``: :func:`not_in_catalog` of each (LLM, GPU) pair already looked up (filled here)."""
    name = SAME_ARCHITECTURE.get(row["model_hf_id"], row["model_hf_id"])
    device = FORM_FACTOR_UNSTATED.get(row["gpu"], row["gpu"])
    seen = {} if missing is None else missing
    if (name, device) not in seen:
        seen[name, device] = not_in_catalog(name, device)
    if seen[name, device]:
        return seen[name, device]
    if pd.isna(row["input_tokens"]) or pd.isna(row["output_tokens"]):
        return "token counts not stated"
    if pd.isna(row["replicas"]):
        return "layout not stated (how many replicas share the GPUs)"
    seqs, reps = requests_of(row), float(row["replicas"])
    if np.isnan(seqs) and pd.isna(row["request_rate_qps"]):
        return "no load stated (a rate harness without its rate)"
    if np.isnan(seqs) and completed_share(row) < KEPT_UP:
        return FELL_BEHIND
    load = (
        {"batch": seqs / reps, "rate_qps": np.nan}
        if not np.isnan(seqs)
        else {"batch": np.nan, "rate_qps": float(row["request_rate_qps"]) / reps}
    )
    return {
        "llm": name,
        "gpu": device,
        "num_gpus": int(row["num_gpus"] // reps),
        "weights": weights_of(row["precision"]),
        "t_in": int(round(row["input_tokens"])),
        "t_out": int(round(row["output_tokens"])),
        **load,
    }


def completed_share(row: pd.Series) -> float:
    """Requests a rate harness completed per second over those it offered: throughput / T_out / λ
    (both for the whole server; NaN where the source gives no throughput)."""
    done_qps = float(row["throughput_tokens_per_s"]) / float(row["output_tokens"])
    return done_qps / float(row["request_rate_qps"])


def not_in_catalog(name: str, device: str) -> str:
    """Why the catalog cannot answer for LLM ``name`` on GPU ``device`` ("" when it can): the
    unknown-name error up to its close matches."""
    try:
        llm(name), gpu(device)
    except WattGPUError as err:
        return f"not in the catalog: {err}".split(". Close")[0]
    return ""


def asked() -> tuple[list[int], pd.DataFrame]:
    """Indices of the rows that can be asked, and their questions (one row each); each (LLM,
    GPU) pair looked up in the catalog once (an unknown name's close matches cost ~25 ms)."""
    rows = table()
    missing: dict[tuple[str, str], str] = {}
    qs = [question(r, missing) for _, r in rows.iterrows()]
    keep = [i for i, q in enumerate(qs) if isinstance(q, dict)]
    return keep, pd.DataFrame([qs[i] for i in keep])


@lru_cache(maxsize=8)
def _predicted(level: float, correction: bool) -> pd.DataFrame:
    keep, frame = asked()
    return predict_rows(frame, level=level, correction=correction)


def compare(level: float = 0.8, correction: bool = True) -> pd.DataFrame:
    """One row per (measurement, quantity): measured, predicted and its interval in the
    measurement's scope, basis, status, EcoLogits (energy rows); ``correction=False``: the backbone
    alone."""
    keep, frame = asked()
    rows = table().iloc[keep].reset_index(drop=True)
    pred = _predicted(float(level), bool(correction))
    return long_form(rows, frame, external_scope.in_scope(rows, pred))


def long_form(rows: pd.DataFrame, frame: pd.DataFrame, scoped: dict) -> pd.DataFrame:
    """:func:`compare`'s rows for the asked ``rows``, their questions ``frame`` and the in-scope
    answers ``scoped`` (:func:`~wattgpu_lite.hybrid.report.external_scope.in_scope`); ``ask``: the
    position in ``rows``."""
    eco = ecologits_j_per_token([llm(n).params_active_b for n in frame["llm"]])
    parts = []
    for q, col in QUANTITIES.items():
        measured = rows[col].to_numpy(dtype=float) / (1e3 if col == "itl_ms" else 1.0)
        cols = [
            "row_class",
            "model_hf_id",
            "gpu",
            "num_gpus",
            "replicas",
            "harness",
            "source_title",
        ]
        part = rows[cols].assign(
            ask=np.arange(len(rows)),
            gpu_asked=frame["gpu"].to_numpy(),
            quantity=q,
            measured=measured,
            **scoped[q],
        )
        part["ecologits"] = eco if q == "energy_per_token_j" else np.nan
        parts.append(part[np.isfinite(measured) & np.isfinite(part["predicted"])])
    out = pd.concat(parts, ignore_index=True)
    out["ape_pct"] = (out["predicted"] / out["measured"] - 1).abs() * 100
    out["covered"] = (out["lo"] <= out["measured"]) & (out["measured"] <= out["hi"])
    out["width"] = out["hi"] / out["lo"]
    return out


def left_out() -> pd.DataFrame:
    """The measurements that could not be asked, and why."""
    rows, missing = table(), {}
    reasons = [question(r, missing) for _, r in rows.iterrows()]
    mask = [isinstance(r, str) for r in reasons]
    return rows.loc[mask, ["model_hf_id", "gpu", "source_title"]].assign(
        reason=[r for r in reasons if isinstance(r, str)]
    )


def summary(ext: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per quantity and replica size (one GPU or several): rows, MdAPE (%), 80 % coverage, median
    interval width (hi/lo) and EcoLogits' MdAPE (%) on the energy rows."""
    ext = compare() if ext is None else ext
    gpus = ext["num_gpus"] / ext["replicas"]
    eco_ape = (ext["ecologits"] / ext["measured"] - 1).abs() * 100
    ext = ext.assign(
        replica=np.where(gpus > 1, "several GPUs", "one GPU"), ecologits_ape_pct=eco_ape
    )
    return (
        ext.groupby(["quantity", "replica"])
        .agg(
            rows=("ape_pct", "size"),
            mdape_pct=("ape_pct", "median"),
            coverage80=("covered", "mean"),
            width_hi_lo=("width", "median"),
            ecologits_mdape_pct=("ecologits_ape_pct", "median"),
        )
        .reset_index()
    )
