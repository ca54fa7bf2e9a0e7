"""The kit against published measurements it was never fitted on (data/external_measurements.csv).

Each row of the table is one published measurement (a paper's or a benchmark repository's, cited in
data/external_measurements.md). It is turned into a question to ``wl.predict_many`` — the LLM and
GPU by catalog name, the GPU count and weight format, the load and the token counts — and the
answer is set beside the measurement. Nothing here is fitted: the table reports, it never tunes.

Mapping rules (each stated, none tuned):
- a model re-released with the same config.json shares its catalog entry (:data:`SAME_ARCHITECTURE`);
  a model the catalog lacks is left out, with the reason;
- a GPU whose form factor the source does not state is read as the SXM board of an 8-GPU server;
- a batch is a batch; a closed-loop concurrency c keeps c requests in flight: a batch of c; a row
  with no load (a saturated throughput run) or no token counts is left out;
- power and energy are compared only where the source measured the GPUs (scope "gpu"); a node's
  wall power includes CPUs, fans and power supplies the kit does not model.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy.breakdown import J_PER_WH
from wattgpu_lite.errors import WattGPUError
from wattgpu_lite.hybrid.api import predict_many
from wattgpu_lite.specs.catalog import gpu, llm

SAME_ARCHITECTURE = {
    "deepseek-ai/DeepSeek-R1-0528": "deepseek-ai/DeepSeek-R1",
    "meta-llama/Llama-2-70b-chat-hf": "meta-llama/Llama-2-70b-hf",
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "mistralai/Mixtral-8x7B-v0.1",
}
FORM_FACTOR_UNSTATED = {"H200 (form factor not stated)": "H200 SXM",
                        "H100 (form factor not stated)": "H100 SXM"}  # fmt: skip
QUANTITIES = {
    "power_w": "power_w",
    "itl_s": "itl_ms",
    "energy_per_token_j": "energy_per_output_token_j",
}


@cache
def table() -> pd.DataFrame:
    """The published measurements, as shipped."""
    return pd.read_csv(data_dir() / "external_measurements.csv")


def weights_of(precision: str) -> str:
    """The kit's weight format for a source's precision text."""
    text = str(precision).lower()
    if "mxfp4" in text or "fp4" in text:
        return "mxfp4" if "mxfp4" in text else "nvfp4"
    if "fp8" in text:
        return "fp8"
    return "bf16"


def question(row: pd.Series) -> dict | str:
    """The predict_many row for a measurement, or the reason it cannot be asked."""
    name = SAME_ARCHITECTURE.get(row["model_hf_id"], row["model_hf_id"])
    device = FORM_FACTOR_UNSTATED.get(row["gpu"], row["gpu"])
    try:
        llm(name), gpu(device)
    except WattGPUError as err:
        return f"not in the catalog: {err}".split(". Close")[0]
    if pd.isna(row["input_tokens"]) or pd.isna(row["output_tokens"]):
        return "token counts not stated"
    batch = row["batch_size"] if pd.notna(row["batch_size"]) else row["concurrency"]
    if pd.isna(batch) and pd.isna(row["request_rate_qps"]):
        return "no load stated (a saturated throughput run)"
    load = {"batch": float(batch), "rate_qps": np.nan} if pd.notna(batch) else {
        "batch": np.nan, "rate_qps": float(row["request_rate_qps"])}  # fmt: skip
    return {"llm": name, "gpu": device, "num_gpus": int(row["num_gpus"]),
            "weights": weights_of(row["precision"]), "t_in": int(round(row["input_tokens"])),
            "t_out": int(round(row["output_tokens"])), **load}  # fmt: skip


def ecologits_j_per_token(params_active_b) -> np.ndarray:
    """EcoLogits' GPU energy per output token, α·e^(β·64)·N_active[B] + γ (Wh -> J): no GPU, no
    prompt length, no batch (fixed at 64), as PAPERS.md quotes it."""
    c = {k: D.value(f"ecologits_{k}", "ecologits") for k in ("alpha", "beta", "gamma", "batch")}
    n_b = np.asarray(params_active_b, dtype=float)
    return (c["alpha"] * np.exp(c["beta"] * c["batch"]) * n_b + c["gamma"]) * J_PER_WH


def compare(level: float = 0.8) -> pd.DataFrame:
    """One row per (measurement, quantity): measured, predicted, interval, EcoLogits (energy)."""
    rows = table()
    asked = [question(r) for _, r in rows.iterrows()]
    keep = [i for i, q in enumerate(asked) if isinstance(q, dict)]
    pred = predict_many(pd.DataFrame([asked[i] for i in keep]), level=level)
    parts = []
    for q, col in QUANTITIES.items():
        measured = rows[col].to_numpy(dtype=float)[keep] / (1e3 if col == "itl_ms" else 1.0)
        scope_ok = np.ones(len(keep), bool)
        if q != "itl_s":
            scope = rows["energy_scope" if q == "energy_per_token_j" else "power_scope"]
            scope_ok = scope.to_numpy()[keep] == "gpu"
        frame = rows.iloc[keep][["row_class", "model_hf_id", "gpu", "num_gpus", "source_title"]]
        frame = frame.assign(quantity=q, measured=measured, predicted=pred[q].to_numpy(),
                             lo=pred[f"{q}_lo"].to_numpy(), hi=pred[f"{q}_hi"].to_numpy(),
                             basis=pred["basis"].to_numpy(), status=pred["status"].to_numpy())  # fmt: skip
        if q == "energy_per_token_j":
            active = [llm(asked[i]["llm"]).params_active_b for i in keep]
            frame["ecologits"] = ecologits_j_per_token(active)
        parts.append(frame[np.isfinite(measured) & scope_ok].reset_index(drop=True))
    out = pd.concat(parts, ignore_index=True)
    out["ape_pct"] = (out["predicted"] / out["measured"] - 1).abs() * 100
    out["covered"] = (out["lo"] <= out["measured"]) & (out["measured"] <= out["hi"])
    return out


def left_out() -> pd.DataFrame:
    """The measurements that could not be asked, and why."""
    rows = table()
    reasons = [question(r) for _, r in rows.iterrows()]
    mask = [isinstance(r, str) for r in reasons]
    return rows.loc[mask, ["model_hf_id", "gpu", "source_title"]].assign(
        reason=[r for r in reasons if isinstance(r, str)])  # fmt: skip


def summary(ext: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per quantity and replica size (one GPU or several): rows, MdAPE (%), 80 % coverage, and
    EcoLogits' MdAPE (%) on the energy rows."""
    ext = compare() if ext is None else ext
    ext = ext.assign(replica=np.where(ext["num_gpus"] > 1, "several GPUs", "one GPU"))
    eco = (ext["ecologits"] / ext["measured"] - 1).abs() * 100 if "ecologits" in ext else np.nan
    return (ext.assign(ecologits_ape_pct=eco)
            .groupby(["quantity", "replica"])
            .agg(rows=("ape_pct", "size"), mdape_pct=("ape_pct", "median"),
                 coverage80=("covered", "mean"), ecologits_mdape_pct=("ecologits_ape_pct", "median"))
            .reset_index())  # fmt: skip
