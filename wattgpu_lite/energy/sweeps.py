"""Tidy component breakdowns over a sweep (one vectorised call each), for plots and widgets.

Each function returns long data: one row per (sweep value, component), ``energy_per_token_j``
(the component's J per generated token) summed over prefill and decode. Physical mode is the one engine (the backbone at its shipped
constants, split into terms: :mod:`wattgpu_lite.energy.backbone.energy_terms`) and takes ``num_gpus`` and ``weights`` (None: each model's own
format) as :func:`wattgpu_lite.energy.estimate.estimate_energy` does; paper mode has neither.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.energy import estimate
from wattgpu_lite.energy.backbone import energy_terms, row_arrays
from wattgpu_lite.energy.occupancy import weights_fit
from wattgpu_lite.energy.precision import served_format
from wattgpu_lite.specs.layout import layout_of
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm


def _physical(llms, gpu, workload, layouts, *, weights) -> dict[str, np.ndarray]:
    """Components (J per request, prefill + decode) from the one engine (the backbone split into
    physical terms, :mod:`~wattgpu_lite.energy.backbone.energy_terms`), one row per sweep point: ``llms`` one or one per
    point, ``layouts`` a GPU count or one per point; each model in ``weights`` or its own format."""
    t_in, t_out, batch = (np.atleast_1d(np.asarray(v, dtype=float)) for v in workload)
    n = max(len(llms), len(t_in), len(t_out), len(batch), np.size(layouts))
    models = list(llms) * n if len(llms) == 1 else list(llms)
    rows, _ = row_arrays.build(
        models,
        [gpu] * n,
        np.broadcast_to(t_in, (n,)),
        np.broadcast_to(t_out, (n,)),
        num_gpus=layouts,
        weights=[served_format(m, weights) for m in models],
    )
    terms, _ = energy_terms.request_breakdown(
        rows, np.broadcast_to(batch, (n,)), energy_terms.shipped_constants()
    )
    return {comp: terms["prefill", comp] + terms["decode", comp] for comp in estimate.COMPONENTS}


def _paper(llms, workload) -> dict[str, np.ndarray]:
    t_in, t_out, _ = workload
    n = np.asarray([m.params_nominal_b for m in llms]) * 1e9
    n_l, d = np.asarray([(m.n_layers, m.hidden_size) for m in llms], dtype=float).T
    if len(llms) == 1:
        n, n_l, d = n[0], n_l[0], d[0]
    t = estimate.paper_terms_j(n, n_l, d, t_in, t_out=t_out)
    zero = np.zeros_like(t["kv_writes"])
    return {
        "compute": t["compute_prefill"] + t["compute_decode"],
        "static": zero,
        "communication": zero,
    } | {k: t[k] for k in ("parameter_reads", "kv_writes", "attention_reads")}


def _tidy(x_name: str, x, comps: dict[str, np.ndarray], t_out) -> pd.DataFrame:
    t_out = np.broadcast_to(np.asarray(t_out, dtype=float), np.shape(x))
    frames = [
        pd.DataFrame(
            {
                x_name: x,
                "component": c,
                "energy_per_token_j": np.broadcast_to(comps[c], np.shape(x)) / t_out,
            }
        )
        for c in estimate.COMPONENTS
    ]
    return pd.concat(frames, ignore_index=True)


def _terms(llms, gpu, workload, mode: str, *, num_gpus: int = 1, weights=None):
    if mode == "paper":
        return _paper(llms, workload)
    return _physical(llms, gpu, workload, num_gpus, weights=weights)


def _one_model(x_name: str, llm, gpu, workload, *, mode: str, num_gpus: int, weights):
    """Tidy breakdown of one model on one GPU along ``x_name``, one of the workload's arrays."""
    comps = _terms(
        [resolve_llm(llm)], resolve_gpu(gpu), workload, mode, num_gpus=num_gpus, weights=weights
    )
    x = dict(zip(("t_in", "t_out", "batch"), workload, strict=True))[x_name]
    return _tidy(x_name, x, comps, workload[1])


def vs_output_tokens(
    llm,
    gpu,
    t_out,
    t_in: int = 500,
    batch: float = 1.0,
    mode="physical",
    num_gpus: int = 1,
    weights=None,
):
    """Breakdown (J per generated token) against T_out (an array)."""
    workload = (t_in, np.asarray(t_out, dtype=float), batch)
    return _one_model("t_out", llm, gpu, workload, mode=mode, num_gpus=num_gpus, weights=weights)


def vs_batch(
    llm,
    gpu,
    batch,
    t_in: int = 500,
    t_out: int = 500,
    mode="physical",
    num_gpus: int = 1,
    weights=None,
):
    """Breakdown (J per generated token) against the batch size (an array)."""
    workload = (t_in, t_out, np.asarray(batch, dtype=float))
    return _one_model("batch", llm, gpu, workload, mode=mode, num_gpus=num_gpus, weights=weights)


def vs_model(
    llm_names,
    gpu,
    t_in: int = 500,
    t_out: int = 500,
    batch: float = 1.0,
    mode="physical",
    weights=None,
):
    """Breakdown (J per generated token) for each model, with its params_b, sorted by size, and
    ``weights_fit``: whether its weights fit on one ``gpu`` (the estimate of one that does not is
    what the equations say, not a deployment)."""
    llms = sorted((resolve_llm(n) for n in llm_names), key=lambda m: m.params_b)
    device = resolve_gpu(gpu)
    comps = _terms(llms, device, (t_in, t_out, batch), mode, num_gpus=1, weights=weights)
    df = _tidy("params_b", np.array([m.params_b for m in llms]), comps, t_out)
    fits = [weights_fit(m, device, 1, weights) for m in llms]
    return df.assign(
        llm=[m.name for m in llms] * len(estimate.COMPONENTS),
        weights_fit=fits * len(estimate.COMPONENTS),
    )


def vs_num_gpus(
    llm,
    gpu,
    counts,
    t_in: int = 500,
    t_out: int = 500,
    batch: float = 1.0,
    weights=None,
    expert_parallel: bool = False,
):
    """Breakdown (J per generated token, the whole replica) against the GPU count (a list)."""
    llm, gpu = resolve_llm(llm), resolve_gpu(gpu)
    layouts = [layout_of(int(k), None, expert_parallel) for k in counts]
    comps = _physical([llm], gpu, (t_in, t_out, batch), layouts, weights=weights)
    return _tidy("num_gpus", np.asarray(counts, dtype=int), comps, t_out)


def dominant_component(tidy: pd.DataFrame, x_name: str) -> pd.DataFrame:
    """For each sweep value, the component with the largest energy (where compute stops leading)."""
    idx = tidy.groupby(x_name)["energy_per_token_j"].idxmax()
    return tidy.loc[idx, [x_name, "component"]].reset_index(drop=True)
