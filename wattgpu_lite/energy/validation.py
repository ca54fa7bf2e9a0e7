"""Energy per generated token: paper mode, physical mode and EcoLogits vs the Watt Counts runs.

Decisions (stated in notebook 01 too):
* offline: ``slots`` = the sequences vLLM can hold (:func:`occupancy.kv_capacity_seqs`: KV blocks
  at 0.9 of memory, 16-token blocks, a sequence holding its prompt and half its output, at most
  256); ``batch`` = the run's mean in-flight count under continuous batching, n·b / (n + b)
  (:func:`occupancy.offline_in_flight`: 204 for 1,000 prompts at 256 slots); no wall time (the
  run is saturated).
* server_low (λ = 0.017 req/s): batch 1. The measured J/token is power × the whole 300+ s window /
  tokens, so it includes the idle GPU between requests. The fair comparison charges the model the
  same wall time: physical mode adds P_static × (window / requests − active time). Paper mode and
  EcoLogits have no time or idle term, so they are compared as published.
* physical constants (kappa, static_fraction) are fitted leave-one-GPU-out (:mod:`energy_fit`):
  for each GPU, on the other seven only — static_fraction on server_low (idle-dominated), kappa on
  offline — by minimising the median absolute percentage error on a grid. "physical" uses the
  spec-sheet coefficients (:data:`hardware.PHYSICAL_BASIS`), "physical_antepara" the first
  version's microbenchmark coefficients (same occupancy, same refits); "physical_apriori" the
  spec-sheet coefficients with kappa 1 and the a-priori 13 % of TDP — no constant fitted.
  EcoLogits: f_E = alpha·exp(beta·B)·N_active + gamma Wh, B = 64.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy import estimate as E
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy.fit import fit_constants
from wattgpu_lite.energy.hardware import PHYSICAL_BASIS
from wattgpu_lite.energy.occupancy import kv_capacity_seqs, offline_in_flight
from wattgpu_lite.runs import measurements
from wattgpu_lite.specs import catalog

SCENARIOS = ("offline", "server_low")
METHODS = ("physical", "physical_antepara", "physical_apriori", "paper", "ecologits")


def runs_frame(runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Dense offline and server_low runs with workload columns: t_in, t_out, slots, batch, wall_s."""
    runs = measurements() if runs is None else runs
    df = runs[runs["dense"] & runs["scenario"].isin(SCENARIOS)].reset_index(drop=True)
    df = df[df["generated_tokens"] >= 2].reset_index(drop=True)
    llms = [catalog.llm(n) for n in df["llm"]]
    gpus = [catalog.gpu(n) for n in df["gpu"]]
    df["t_in"], df["t_out"] = df["prompt_tokens"], df["generated_tokens"]
    offline = (df["scenario"] == "offline").to_numpy()
    df["slots"] = [float(kv_capacity_seqs(m, g, ti, to)) if off else 1.0 for m, g, ti, to, off
                   in zip(llms, gpus, df["t_in"], df["t_out"], offline, strict=True)]  # fmt: skip
    df["batch"] = np.where(offline, offline_in_flight(df["slots"], df["n_requests"]), 1.0)
    df["wall_s"] = np.where(offline, 0.0, df["duration_s"] / df["n_requests"])
    df.attrs["llms"], df.attrs["gpus"] = llms, gpus
    return df


def prepare(df: pd.DataFrame, basis: str = PHYSICAL_BASIS) -> tuple:
    """Arrays aligned with ``df`` rows, built once: (model args, workload, hw args, wall_s)."""
    model = tuple(np.array([P.llm_args(m) for m in df.attrs["llms"]]).T)
    hw = tuple(np.array([P.gpu_args(g, 1.0, basis) for g in df.attrs["gpus"]]).T)  # P_static=TDP
    work = tuple(df[c].to_numpy(dtype=float) for c in ("t_in", "t_out", "batch"))
    return model, work, hw, df["wall_s"].to_numpy(dtype=float)


def physical_j_per_token(prep: tuple, kappa, static_fraction) -> np.ndarray:
    """Physical-mode J per generated token of prepared runs (idle charged over the wall time)."""
    model, work, hw, wall_s = prep
    hw = (*hw[:5], hw[4] * np.asarray(static_fraction))  # P_static = fraction × TDP
    terms, times = P.physical_evaluate(model, work, hw, kappa)
    idle = hw[5] * np.maximum(wall_s - times["prefill"] - times["decode"], 0.0)
    return (sum(terms.values()) + idle) / work[1]


def _take(prep: tuple, mask: np.ndarray) -> tuple:
    """The rows ``mask`` of prepared arrays."""
    model, work, hw, wall = prep
    return tuple(x[mask] for x in model), tuple(x[mask] for x in work), tuple(
        x[mask] for x in hw), wall[mask]  # fmt: skip


def paper_j_per_token(df: pd.DataFrame) -> np.ndarray:
    """Paper mode (printed equations, H100 or A100 coefficients) J per generated token."""
    out = np.empty(len(df))
    for hw in ("A100", "H100"):
        mask = df["gpu"].str.startswith("A100").to_numpy() == (hw == "A100")
        m = [llm for llm, k in zip(df.attrs["llms"], mask, strict=True) if k]
        n = np.array([x.params_nominal_b * 1e9 for x in m])
        dims = np.array([(x.n_layers, x.hidden_size) for x in m]).reshape(-1, 2).T
        sub = df[mask]
        out[mask] = E.paper_request_j(n, dims[0], dims[1], sub["t_in"], sub["t_out"], hw)
    return out / df["t_out"].to_numpy()


def ecologits_j_per_token(df: pd.DataFrame) -> np.ndarray:
    """EcoLogits GPU energy per output token, alpha·exp(beta·B)·N_active[B] + gamma (Wh -> J)."""
    c = {k: D.value(f"ecologits_{k}", "ecologits") for k in ("alpha", "beta", "gamma", "batch")}
    n_b = np.array([m.params_b for m in df.attrs["llms"]])
    return (c["alpha"] * np.exp(c["beta"] * c["batch"]) * n_b + c["gamma"]) * E.J_PER_WH


def _fit(prep: tuple, true_j: np.ndarray, offline: np.ndarray) -> dict[str, float]:
    """:func:`energy_fit.fit_constants` on prepared runs."""
    return fit_constants(
        lambda m, k, f: physical_j_per_token(_take(prep, m), k, f), true_j, offline
    )


def calibrate(df: pd.DataFrame | None = None, basis: str = PHYSICAL_BASIS) -> dict[str, float]:
    """The library defaults of ``basis``: constants fitted on all eight GPUs (in-sample by design)."""
    df = runs_frame() if df is None else df
    true, off = df["energy_per_token_j"].to_numpy(), (df["scenario"] == "offline").to_numpy()
    return _fit(prepare(df, basis), true, off)


def _logo(df: pd.DataFrame, basis: str) -> tuple[np.ndarray, np.ndarray]:
    """Leave-one-GPU-out physical J/token of every run and the (kappa, static_fraction) used."""
    prep, true = prepare(df, basis), df["energy_per_token_j"].to_numpy()
    off, gpus = (df["scenario"] == "offline").to_numpy(), df["gpu"].to_numpy()
    pred, consts = np.empty(len(df)), np.empty((len(df), 2))
    for gpu in sorted(set(gpus)):
        held = gpus == gpu
        c = _fit(_take(prep, ~held), true[~held], off[~held])
        pred[held] = physical_j_per_token(_take(prep, held), **c)
        consts[held] = c["kappa"], c["static_fraction"]
    return pred, consts


def predictions(df: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per-run predictions of the five :data:`METHODS`, physical ones fitted leave-one-GPU-out."""
    df = runs_frame() if df is None else df
    apriori = D.value("static_fraction_apriori", "physical")
    physical, consts = _logo(df, PHYSICAL_BASIS)
    df = df.assign(physical=physical, physical_antepara=_logo(df, "antepara")[0],
                   physical_apriori=physical_j_per_token(prepare(df), 1.0, apriori),
                   paper=paper_j_per_token(df), ecologits=ecologits_j_per_token(df))  # fmt: skip
    df["fold_kappa"], df["fold_static_fraction"] = consts.T
    return df


def mdape_table(pred: pd.DataFrame | None = None) -> pd.DataFrame:
    """Tidy MdAPE (%) per GPU × scenario × method (+ n_runs), from :func:`predictions`."""
    pred = predictions() if pred is None else pred
    long = pred.melt(["gpu", "scenario", "energy_per_token_j"], list(METHODS), "method", "pred_j")
    long["ape_pct"] = (long["pred_j"] - long["energy_per_token_j"]).abs() / long[
        "energy_per_token_j"] * 100  # fmt: skip
    g = long.groupby(["gpu", "scenario", "method"], sort=True)["ape_pct"]
    return g.agg(mdape_pct="median", n_runs="size").reset_index()
