"""Physical mode: batch-aware FLOPs, GQA-aware bytes, weights re-read per decode step, static power.

Equations: :func:`wattgpu_lite.symbolic.phase_terms` (lambdified here once). Per request and phase:
dynamic = kappa·(alpha·C + e·Q); time = max(C/F_peak, Q/(8·BW), dynamic/(TDP − P_static));
static = P_static·time.

Energy coefficients (:func:`gpu_coefficients_j`), our stated method:
* Hopper (H100/H200/GH200) and A100/A30 (GA100, TSMC N7, HBM2e): Antepara et al. SC'25 measured
  values; CDNA 2 / CDNA 3: their MI250X / MI300A values.
* any other GPU: alpha from the nearest measured NVIDIA node, scaled linearly with the process
  node (CV² switching energy ∝ feature size at roughly constant voltage): nodes ≤ 5 nm from
  Hopper (0.52 pJ at 5 nm), larger nodes from A100 (0.70 pJ at 7 nm) — V100/T4 (12 nm) get 1.2 pJ.
  e from the memory type: HBM3/HBM3e -> Hopper 11.68 pJ/bit; HBM2/HBM2e -> A100 13.11 pJ/bit;
  GDDR -> 13.11 × 1.92 (GDDR6 7.5 vs HBM2 3.9 pJ/bit in the literature).
Static power = static_fraction × TDP; kappa scales the microbenchmark coefficients to what
inference kernels spend (on-chip traffic, non-GEMM work). Both defaults come from
``energy_coefficients.csv`` (see :mod:`energy_validation` for how they were set, out of sample).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import sympy as sp

from . import catalog
from . import energy_data as D
from . import symbolic as S
from .energy import breakdown_frame
from .errors import InvalidInputError

ARGS = (S.N, S.n_l, S.d_q, S.d_kv, S.T_in, S.T_out, S.B, S.alpha, S.e_mem,
        S.F_peak, S.BW_peak, S.P_tdp, S.P_static, S.kappa)  # fmt: skip
_WORDS = {S.b_w: D.value("bits_per_weight"), S.b_kv: D.value("bits_per_kv")}
_FNS = {
    (phase, comp): sp.lambdify(ARGS, expr.subs(_WORDS), "numpy")
    for phase in ("prefill", "decode")
    for comp, expr in S.phase_terms(phase).items()
}
_TIME = {ph: sp.lambdify(ARGS, S.phase_time(ph).subs(_WORDS), "numpy") for ph in S.flops}
_ARCH_SCOPE = {"Hopper": "Hopper", "CDNA 2": "MI250X", "CDNA 3": "MI300A"}


def gpu_coefficients_j(gpu) -> tuple[float, float, str]:
    """(alpha J/FLOP, e J/bit, basis) for ``gpu`` by the method in the module docstring."""
    pj = 1e-12
    scope = _ARCH_SCOPE.get(gpu.architecture)
    if scope is None and gpu.name.startswith(("A100", "A30")):
        scope = "A100"
    if scope:
        a, e = (D.value(n, f"antepara:{scope}") for n in ("alpha_pj_per_flop", "e_mem_pj_per_bit"))
        return a * pj, e * pj, f"measured ({scope}, Antepara et al.)"
    node = float(gpu.process_nm) if np.isfinite(gpu.process_nm) else 7.0
    ref, ref_nm = ("Hopper", 5.0) if node <= 5 else ("A100", 7.0)
    a = D.value("alpha_pj_per_flop", f"antepara:{ref}") * node / ref_nm
    mem = str(gpu.memory_type).upper()
    e = D.value("e_mem_pj_per_bit", "antepara:" + ("Hopper" if "HBM3" in mem else "A100"))
    if mem.startswith("GDDR"):
        e *= D.value("gddr_over_hbm_energy", "physical")
    return a * pj, e * pj, f"scaled from {ref} by process node ({node:g} nm) and {gpu.memory_type}"


def defaults() -> dict[str, float]:
    """kappa and static_fraction used by physical mode (energy_coefficients.csv, scope physical)."""
    return {k: D.value(k, "physical") for k in ("kappa", "static_fraction")}


def gpu_args(gpu, static_fraction: float) -> tuple[float, ...]:
    """(alpha, e, F_peak FLOP/s, BW_peak B/s, P_TDP W, P_static W) of ``gpu``."""
    a, e, _ = gpu_coefficients_j(gpu)
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
    """Tidy physical-mode breakdown for one (LLM, GPU, workload) with the default constants."""
    c = defaults()
    terms = physical_terms_j(llm_args(llm), (t_in, t_out, batch),
                             gpu_args(gpu, c["static_fraction"]), c["kappa"])  # fmt: skip
    return breakdown_frame({k: float(v) for k, v in terms.items()}, t_out)


def _load(text: str):
    return json.loads(Path(text).read_text())


def resolve(llm, gpu):
    """(LLM, GPU) from names, dataclasses, config.json / spec.json paths or dicts."""
    if isinstance(llm, dict):
        llm = catalog.LLM.from_hf_config(llm)
    elif isinstance(llm, (str, Path)) and (str(llm).endswith(".json") or Path(llm).is_file()):
        llm = catalog.LLM.from_hf_config(str(llm))
    elif isinstance(llm, str):
        llm = catalog.llm(llm)
    if isinstance(gpu, dict):
        gpu = catalog.GPU.from_spec(gpu)
    elif isinstance(gpu, (str, Path)) and str(gpu).endswith(".json"):
        gpu = catalog.GPU.from_spec(_load(str(gpu)))
    elif isinstance(gpu, str):
        gpu = catalog.gpu(gpu)
    if not isinstance(llm, catalog.LLM):
        raise InvalidInputError(f"llm must be a name, LLM, config path or dict; got {llm!r}.")
    return llm, gpu
