"""Tidy component breakdowns over a sweep (one vectorised call each), for plots and widgets.

Each function returns long data: one row per (sweep value, component), ``energy_per_output_token_j``
summed over prefill and decode. Physical mode uses its defaults (coefficients and constants of
``energy_physical.PHYSICAL_BASIS``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.energy import estimate as E
from wattgpu_lite.energy import physical as P
from wattgpu_lite.specs import catalog


def _physical(llm_args, workload, gpu) -> dict[str, np.ndarray]:
    c, basis = P.defaults(P.PHYSICAL_BASIS), P.PHYSICAL_BASIS
    terms = P.physical_terms_j(
        llm_args, workload, P.gpu_args(gpu, c["static_fraction"], basis), c["kappa"]
    )
    return {comp: terms["prefill", comp] + terms["decode", comp] for comp in E.COMPONENTS}


def _paper(llm, workload) -> dict[str, np.ndarray]:
    t_in, t_out, _ = workload
    n = np.asarray([m.params_nominal_b for m in llm]) * 1e9 if isinstance(llm, list) else (
        llm.params_nominal_b * 1e9)  # fmt: skip
    dims = [(m.n_layers, m.hidden_size) for m in (llm if isinstance(llm, list) else [llm])]
    n_l, d = np.asarray(dims, dtype=float).T
    t = E.paper_terms_j(n, n_l, d, t_in, t_out)
    zero = np.zeros_like(t["kv_writes"])
    return {"compute": t["compute_prefill"] + t["compute_decode"], "static": zero} | {
        k: t[k] for k in ("parameter_reads", "kv_writes", "attention_reads")}  # fmt: skip


def _tidy(x_name: str, x, comps: dict[str, np.ndarray], t_out) -> pd.DataFrame:
    t_out = np.broadcast_to(np.asarray(t_out, dtype=float), np.shape(x))
    frames = [pd.DataFrame({x_name: x, "component": c, "energy_per_output_token_j":
                            np.broadcast_to(v, np.shape(x)) / t_out}) for c, v in comps.items()]  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def _terms(llm, gpu, workload, mode: str):
    llms = llm if isinstance(llm, list) else None
    if mode == "paper":
        return _paper(llm, workload)
    args = np.array([P.llm_args(m) for m in llms]).T if llms else P.llm_args(llm)
    return _physical(tuple(args), workload, gpu)


def vs_output_tokens(llm, gpu, t_out, t_in: int = 500, batch: int = 1, mode="physical"):
    """Breakdown (J per generated token) against T_out (an array)."""
    llm, gpu = catalog.llm(llm), catalog.gpu(gpu)
    t_out = np.asarray(t_out, dtype=float)
    return _tidy("t_out", t_out, _terms(llm, gpu, (t_in, t_out, batch), mode), t_out)


def vs_batch(llm, gpu, batch, t_in: int = 500, t_out: int = 500, mode="physical"):
    """Breakdown (J per generated token) against the batch size (an array)."""
    llm, gpu = catalog.llm(llm), catalog.gpu(gpu)
    batch = np.asarray(batch, dtype=float)
    return _tidy("batch", batch, _terms(llm, gpu, (t_in, t_out, batch), mode), t_out)


def vs_model(llm_names, gpu, t_in: int = 500, t_out: int = 500, batch: int = 1, mode="physical"):
    """Breakdown (J per generated token) for each model, with its params_b, sorted by size."""
    llms = sorted((catalog.llm(n) for n in llm_names), key=lambda m: m.params_b)
    comps = _terms(llms, catalog.gpu(gpu), (t_in, t_out, batch), mode)
    df = _tidy("params_b", np.array([m.params_b for m in llms]), comps, t_out)
    return df.assign(llm=[m.name for m in llms] * len(comps))


def dominant_component(tidy: pd.DataFrame, x_name: str) -> pd.DataFrame:
    """For each sweep value, the component with the largest energy (where compute stops leading)."""
    idx = tidy.groupby(x_name)["energy_per_output_token_j"].idxmax()
    return tidy.loc[idx, [x_name, "component"]].reset_index(drop=True)
