"""Energy per generated token: paper mode, physical mode and EcoLogits vs the Watt Counts runs.

Decisions (stated in notebook 01 too):
* offline: ``slots`` = the sequences vLLM can hold (:func:`occupancy.kv_capacity_seqs`: KV blocks
  at 0.9 of memory, 16-token blocks, a sequence holding its prompt and half its output, at most
  256); ``batch`` = the run's mean in-flight count under continuous batching, n·b / (n + b)
  (:func:`occupancy.offline_in_flight`: 204 for 1,000 prompts at 256 slots); no wall time (the
  run is saturated).
* server_low (λ = 0.017 req/s): Poisson arrivals. The measured J/token is power × the whole
  300+ s window / tokens, so it includes the idle GPU between requests; physical mode's mean power
  at λ (idle plus the busy share of the busy power) is charged over the same measured wall time
  per request. Paper mode and EcoLogits have no time or idle term, so they are compared as
  published.
* physical mode is the one engine (:mod:`wattgpu_lite.energy.backbone`, split into terms by
  :mod:`~wattgpu_lite.energy.backbone.energy_terms`): "physical" has its six constants refitted
  leave-one-GPU-out — for each GPU on the other seven GPUs' ITL and power only
  (:func:`~wattgpu_lite.energy.backbone.constants_fit.fit_constants`) —, so its J/token is out of sample
  twice over (another GPU, and a target it was not fitted to); "physical_apriori" is the
  engine at the fit's starting constants (:class:`~wattgpu_lite.energy.backbone.Constants`
  defaults: 75 % of the bandwidth, 50 % of the FP16 peak, 1 ms + 20 µs per layer and step,
  κ 1, idle 20 W + 15 % of TDP) — nothing fitted.
  EcoLogits: f_E = alpha·exp(beta·B)·N_active + gamma Wh, B = 64.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from wattgpu_lite.energy import backbone, estimate
from wattgpu_lite.energy.backbone import row_arrays, training_runs
from wattgpu_lite.energy.backbone.constants_fit import fit_constants
from wattgpu_lite.energy.occupancy import kv_capacity_seqs, offline_in_flight
from wattgpu_lite.energy.paper import ecologits_j_per_token
from wattgpu_lite.metrics import ape_pct
from wattgpu_lite.runs import measurements
from wattgpu_lite.runs.schema import LAMBDA_QPS
from wattgpu_lite.specs import catalog

SCENARIOS = ("offline", "server_low")
METHODS = ("physical", "physical_apriori", "paper", "ecologits")


def runs_frame(runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Dense offline and server_low runs with workload columns: t_in, t_out, slots, batch, wall_s."""
    runs = measurements.load() if runs is None else runs
    df = runs[runs["dense"] & runs["scenario"].isin(SCENARIOS)].reset_index(drop=True)
    df = df[df["generated_tokens"] >= 2].reset_index(drop=True)
    llms = [catalog.llm(n) for n in df["llm"]]
    gpus = [training_runs.board(n) for n in df["gpu"]]  # the measured board's spec row
    df["t_in"], df["t_out"] = df["prompt_tokens"], df["generated_tokens"]
    offline = (df["scenario"] == "offline").to_numpy()
    df["slots"] = [
        float(kv_capacity_seqs(m, g, ti, to)) if off else 1.0
        for m, g, ti, to, off in zip(llms, gpus, df["t_in"], df["t_out"], offline, strict=True)
    ]
    df["batch"] = np.where(offline, offline_in_flight(df["slots"], df["n_requests"]), 1.0)
    df["wall_s"] = np.where(offline, 0.0, df["duration_s"] / df["n_requests"])
    df.attrs["llms"], df.attrs["gpus"] = llms, gpus
    return df


def engine_j_per_token(df: pd.DataFrame, c: backbone.Constants) -> np.ndarray:
    """Physical mode's J per generated token of runs at constants ``c``: offline
    P_busy(B)·s(B)/B at the run's mean in-flight batch; server_low the mean power at λ times the
    measured wall time per request, over its generated tokens."""
    t_in, t_out = (df[k].to_numpy(dtype=float) for k in ("t_in", "t_out"))
    rows, cap = row_arrays.build(df.attrs["llms"], df.attrs["gpus"], t_in, t_out)
    off = (df["scenario"] == "offline").to_numpy()
    out = np.empty(len(df))
    if off.any():
        r = backbone.at_batch(rows.take(off), df["batch"].to_numpy(dtype=float)[off], c)
        out[off] = r["power_w"] * r["time_per_token_s"]
    if (~off).any():
        rate = np.full(int((~off).sum()), LAMBDA_QPS["server_low"])
        r = backbone.at_rate(rows.take(~off), rate, np.maximum(cap[~off], 1.0), c)
        out[~off] = r["power_w"] * df["wall_s"].to_numpy(dtype=float)[~off] / t_out[~off]
    return out


@lru_cache(maxsize=1)
def logo_constants() -> dict[str, backbone.Constants]:
    """{held-out GPU: the six constants fitted on the other seven GPUs' runs} (cached: eight
    fits of a few seconds each, computed once per session)."""
    ts = training_runs.watt_counts()
    gpus = ts.frame["gpu"].to_numpy()
    return {g: fit_constants(ts.take(gpus != g)) for g in sorted(set(gpus))}


def paper_j_per_token(df: pd.DataFrame) -> np.ndarray:
    """Paper mode (printed equations, H100 or A100 coefficients) J per generated token."""
    out = np.empty(len(df))
    for hw in ("A100", "H100"):
        mask = df["gpu"].str.startswith("A100").to_numpy() == (hw == "A100")
        m = [llm for llm, k in zip(df.attrs["llms"], mask, strict=True) if k]
        n = np.array([x.params_nominal_b * 1e9 for x in m])
        dims = np.array([(x.n_layers, x.hidden_size) for x in m]).reshape(-1, 2).T
        sub = df[mask]
        out[mask] = estimate.paper_request_j(
            n, dims[0], dims[1], sub["t_in"], t_out=sub["t_out"], hardware=hw
        )
    return out / df["t_out"].to_numpy()


def ecologits_j_per_run(df: pd.DataFrame) -> np.ndarray:
    """EcoLogits per output token for each run of a :func:`runs_frame`
    (:func:`wattgpu_lite.energy.paper.ecologits_j_per_token`), fed each LLM's ``params_b`` as
    this comparison always has (the external check feeds ``params_active_b``)."""
    return ecologits_j_per_token([m.params_b for m in df.attrs["llms"]])


def _subset(df: pd.DataFrame, mask: np.ndarray) -> pd.DataFrame:
    """The rows ``mask`` of a :func:`runs_frame`, with its per-row LLM and GPU objects."""
    out = df[mask].reset_index(drop=True)
    out.attrs = {
        k: [v for v, keep in zip(df.attrs[k], mask, strict=True) if keep] for k in ("llms", "gpus")
    }
    return out


def _logo(df: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
    """Leave-one-GPU-out physical J/token of every run, and the constants each run's GPU got."""
    folds, gpus = logo_constants(), df["gpu"].to_numpy()
    pred = np.empty(len(df))
    for gpu, c in folds.items():
        held = gpus == gpu
        if held.any():
            pred[held] = engine_j_per_token(_subset(df, held), c)
    consts = pd.DataFrame([folds[g].to_dict() for g in gpus]).add_prefix("fold_")
    return pred, consts


def predictions(df: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per-run predictions of the four :data:`METHODS`, "physical" fitted leave-one-GPU-out,
    with the constants of each run's fold (``fold_eta_bw``, ``fold_kappa``, ...)."""
    df = runs_frame() if df is None else df
    physical, consts = _logo(df)
    out = df.assign(
        physical=physical,
        physical_apriori=engine_j_per_token(df, backbone.Constants()),
        paper=paper_j_per_token(df),
        ecologits=ecologits_j_per_run(df),
    )
    out = pd.concat([out, consts.set_index(out.index)], axis=1)
    out.attrs = df.attrs
    return out


def mdape_table(pred: pd.DataFrame | None = None) -> pd.DataFrame:
    """Tidy MdAPE (%) per GPU × scenario × method (+ n_runs), from :func:`predictions`."""
    pred = predictions() if pred is None else pred
    long = pred.melt(["gpu", "scenario", "energy_per_token_j"], list(METHODS), "method", "pred_j")
    long["ape_pct"] = ape_pct(long["energy_per_token_j"], long["pred_j"])
    g = long.groupby(["gpu", "scenario", "method"], sort=True)["ape_pct"]
    return g.agg(mdape_pct="median", n_runs="size").reset_index()
