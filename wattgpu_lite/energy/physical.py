"""Physical mode: batch-aware FLOPs, GQA-aware bytes, weights re-read per decode step, static power.

Equations: :func:`wattgpu_lite.energy.symbolic.phase_terms` (lambdified here once). Per request and phase:
dynamic = kappa·(alpha·C + e·Q); time = max(C/F_peak, Q/(8·BW), dynamic/(TDP − P_static));
static = P_static·time.

Energy coefficients (:func:`gpu_coefficients_j`): two bases, documented in :mod:`energy_gpu` —
``"spec"`` (physical mode: alpha = TDP / peak FP16 FLOP/s) and ``"antepara"`` (microbenchmarks of
Antepara et al., node-scaled elsewhere; the low-level default, which the hybrid predictor's physics
features use). Static power = static_fraction × TDP; kappa scales the coefficients to what inference
kernels spend (on-chip traffic, non-GEMM work). Both come from ``energy_coefficients.csv`` per basis
(see :mod:`energy_validation` for how they were set, out of sample).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import sympy as sp

from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy import symbolic as S
from wattgpu_lite.energy.breakdown import breakdown_frame
from wattgpu_lite.energy.hardware import PHYSICAL_BASIS, constants_scope, gpu_coefficients_j
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.specs import catalog
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm

ARGS = (S.N, S.n_l, S.d_q, S.d_kv, S.T_in, S.T_out, S.B, S.alpha, S.e_mem,
        S.F_peak, S.BW_peak, S.P_tdp, S.P_static, S.kappa)  # fmt: skip
_WORDS = {S.b_w: D.value("bits_per_weight"), S.b_kv: D.value("bits_per_kv")}
_FNS = {
    (phase, comp): sp.lambdify(ARGS, expr.subs(_WORDS), "numpy")
    for phase in ("prefill", "decode")
    for comp, expr in S.phase_terms(phase).items()
}
_TIME = {ph: sp.lambdify(ARGS, S.phase_time(ph).subs(_WORDS), "numpy") for ph in S.flops}


def defaults(basis: str = "antepara") -> dict[str, float]:
    """kappa and static_fraction fitted for ``basis`` (energy_coefficients.csv)."""
    return {k: D.value(k, constants_scope(basis)) for k in ("kappa", "static_fraction")}


def gpu_args(gpu, static_fraction: float, basis: str = "antepara") -> tuple[float, ...]:
    """(alpha, e, F_peak FLOP/s, BW_peak B/s, P_TDP W, P_static W) of ``gpu``."""
    a, e, _ = gpu_coefficients_j(gpu, basis)
    return (
        a,
        e,
        gpu.fp16_tflops * 1e12,
        gpu.bandwidth_gbs * 1e9,
        gpu.tdp_w,
        static_fraction * gpu.tdp_w,
    )


def llm_args(llm) -> tuple[float, float, float, float]:
    """(N params, n_layers, d_q = n_heads·head_dim, d_kv = n_kv_heads·head_dim) of a dense LLM."""
    return (
        llm.params_b * 1e9,
        llm.n_layers,
        llm.n_heads * llm.head_dim,
        llm.n_kv_heads * llm.head_dim,
    )


def physical_terms_j(
    model_args, workload, hw_args, kappa: float
) -> dict[tuple[str, str], np.ndarray]:
    """{(phase, component): J per request}; ``workload`` = (t_in, t_out, batch). Broadcasts."""
    args = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (*model_args, *workload,
                                                                         *hw_args, kappa)))  # fmt: skip
    return {key: np.asarray(f(*args), dtype=float) for key, f in _FNS.items()}


def active_time_s(model_args, workload, hw_args, kappa: float) -> np.ndarray:
    """Roofline time per request (s), prefill + decode (the batch's time divided by B)."""
    args = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (*model_args, *workload,
                                                                         *hw_args, kappa)))  # fmt: skip
    return sum(np.asarray(f(*args), dtype=float) for f in _TIME.values())


def vllm_batch(llm, gpu, t_in, t_out, max_seqs: int = 256, mem_util: float = 0.9) -> np.ndarray:
    """Concurrent sequences vLLM can hold: min(max_num_seqs, KV capacity / tokens per sequence).

    KV capacity = mem_util · memory − FP16 weights (vLLM's gpu_memory_utilization default 0.9).
    """
    free_b = mem_util * gpu.memory_gb * 1e9 - 2 * llm.params_b * 1e9
    seqs = np.floor(free_b / (llm.kv_bytes_per_token * (np.asarray(t_in) + np.asarray(t_out))))
    return np.clip(seqs, 1, max_seqs)


def physical_breakdown(llm, gpu, t_in: int, t_out: int, batch: int) -> pd.DataFrame:
    """Tidy physical-mode breakdown for one (LLM, GPU, workload): ``PHYSICAL_BASIS`` constants."""
    c = defaults(PHYSICAL_BASIS)
    terms = physical_terms_j(llm_args(llm), (t_in, t_out, batch),
                             gpu_args(gpu, c["static_fraction"], PHYSICAL_BASIS), c["kappa"])  # fmt: skip
    return breakdown_frame({k: float(v) for k, v in terms.items()}, t_out)


def resolve(llm, gpu):
    """(LLM, GPU) from names, dataclasses, config.json / spec.json paths or dicts (see :mod:`inputs`)."""
    if isinstance(llm, str | Path) and Path(llm).is_file():
        llm = Path(llm)
    if not isinstance(llm, catalog.LLM | str | Path | dict):
        raise InvalidInputError(f"llm must be a name, LLM, config path or dict; got {llm!r}.")
    return resolve_llm(llm), resolve_gpu(gpu)
