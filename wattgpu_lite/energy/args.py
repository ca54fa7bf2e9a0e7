"""The argument tuples of physical mode's vectorised functions — their contents, in one place.

Every function of :mod:`wattgpu_lite.energy.physical` takes ``(model, workload, hardware, kappa,
deploy)``, each a tuple of floats or numpy arrays (broadcast together), in the order of the sympy
symbols of :mod:`wattgpu_lite.energy.symbolic_physical` (``MODEL``, ``WORKLOAD``, ``HARDWARE``,
``DEPLOY``). Stack many models as ``np.array([llm_args(m) for m in models]).T``.

=========  ======================================================================================
model      :func:`llm_args` — (N_act params, N_always params, E routed experts, k active experts,
           n_moe layers, N_e params per expert, n_layers, d hidden width, d_q = heads·head_dim,
           w_kv cached K+V elements per token and layer, f_sw share of sliding-window layers,
           W_sw window in tokens (the context length without one), b_e bits per routed-expert
           weight, b_w bits per always-read weight); N_act and N_always exclude the gathered
           input tables; a dense model has N_always = N_act, E = k = 1, n_moe = N_e = 0
workload   (T_in prompt tokens, T_out generated tokens, B sequences sharing a step)
hardware   :func:`gpu_args` — (alpha J/FLOP, e J/bit, F_peak FLOP/s, BW_peak B/s, P_TDP W,
           P_static W, alpha_e J/FLOP, F_e FLOP/s), per GPU: alpha and F_peak at the compute
           peak of the always-read weights' format, alpha_e and F_e at the routed experts'
           (:func:`model_gpu_args` reads both formats from a model)
kappa      dynamic-energy factor (:func:`wattgpu_lite.energy.physical.defaults`)
deploy     :func:`deploy_args` — (G GPUs, n_TP, n_EP, BW_link B/s per direction, t_0 s, t_hop s,
           x_EP 0/1, t_grp s) of a layout (:mod:`wattgpu_lite.specs.layout`);
           :func:`single_gpu` for one GPU
=========  ======================================================================================
"""

from __future__ import annotations

import math

from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy.hardware import gpu_coefficients_j
from wattgpu_lite.energy.precision import (
    canonical_format,
    compute_peak_tflops,
    streamed_bits,
    streamed_formats,
)
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.specs.layout import as_layout


def llm_args(llm, weights: str | None = None) -> tuple[float, ...]:
    """The model tuple of ``llm`` served with ``weights`` (None: its own format)."""
    moe = llm.is_moe
    always_bits, expert_bits = streamed_bits(llm, weights)
    window = llm.sliding_window or llm.context_length
    return (
        llm.params_active_b * 1e9,
        llm.params_always_b * 1e9,
        float(llm.n_experts if moe else 1),
        float(llm.n_experts_active if moe else 1),
        float(llm.n_moe_layers if moe else 0),
        llm.params_expert_b * 1e9 if moe else 0.0,
        float(llm.n_layers),
        float(llm.hidden_size),
        float(llm.n_heads * llm.head_dim),
        float(llm.kv_width),
        llm.n_sliding_layers / llm.n_layers,
        float(window),
        expert_bits,
        always_bits,
    )


def expert_flops_per_token(model: tuple) -> float:
    """C_e per token = 2·k·n_moe·N_e [FLOP]: the routed experts' share of 2·N_act, from a model
    tuple of :func:`llm_args` (scalars or arrays; 0 for a dense model), as
    :func:`wattgpu_lite.energy.symbolic_physical.expert_flops` derives it."""
    return 2.0 * model[3] * model[4] * model[5]


def gpu_args(gpu, static_fraction: float, basis: str = "antepara", weights: str | None = None,
             expert_weights: str | None = None) -> tuple[float, ...]:  # fmt: skip
    """The hardware tuple of ``gpu``: the always-read weights and attention run in ``weights``
    (None: 16-bit), the routed experts in ``expert_weights`` (None: as ``weights``). Per group,
    alpha = the basis's FP16 energy per FLOP × FP16 peak / that group's peak (spec basis: TDP /
    that peak). :func:`model_gpu_args` takes both formats from a model."""
    a, e, _ = gpu_coefficients_j(gpu, basis)
    peak = compute_peak_tflops(gpu, "bf16" if weights is None else weights)[0]
    peak_e = peak if expert_weights is None else compute_peak_tflops(gpu, expert_weights)[0]
    return (a * gpu.fp16_tflops / peak, e, peak * 1e12, gpu.bandwidth_gbs * 1e9, gpu.tdp_w,
            static_fraction * gpu.tdp_w, a * gpu.fp16_tflops / peak_e, peak_e * 1e12)  # fmt: skip


def model_gpu_args(llm, gpu, static_fraction: float, basis: str = "antepara",
                   weights: str | None = None) -> tuple[float, ...]:  # fmt: skip
    """:func:`gpu_args` for ``llm`` served with ``weights`` (None: its own format), each tensor
    group at the peak of its own format (:func:`~wattgpu_lite.energy.precision.streamed_formats`)."""
    return gpu_args(gpu, static_fraction, basis, *streamed_formats(llm, weights))


def link_kind(gpu) -> str:
    """ "pcie" for a card whose GPU-to-GPU path is PCIe, else "nvlink" (NVLink, Infinity Fabric)."""
    return "pcie" if str(gpu.interconnect).upper().startswith("PCIE") else "nvlink"


def link_bytes_per_s(gpu) -> float:
    """Per-direction GPU-to-GPU bandwidth (B/s): a bidirectional figure is halved."""
    gbs = gpu.interconnect_gbs
    if gbs is None or not math.isfinite(gbs):
        raise InvalidInputError(
            f"GPU {gpu.name!r} has no interconnect bandwidth (interconnect_gbs) in its spec, so "
            "a multi-GPU estimate cannot time its all-reduces; use num_gpus=1 or build the GPU "
            "with wl.GPU.from_spec({..., 'interconnect_gbs': ...})."
        )
    return gbs * 1e9 / (2.0 if gpu.interconnect_direction == "bidirectional" else 1.0)


def deploy_args(gpu, num_gpus=1, expert_parallel: bool = False) -> tuple[float, ...]:
    """The deploy tuple (energy.symbolic_parallel.DEPLOY): G, n_TP, n_EP, per-direction link B/s,
    NCCL base and per-hop latency (s), x_EP (all-to-all dispatch), t_grp (s per expert group).

    ``num_gpus``: a GPU count (tensor parallel; ``expert_parallel`` puts whole experts on the same
    GPUs) or a :class:`~wattgpu_lite.specs.layout.Parallel`. One GPU has no collective (t_0 = 0).
    Latencies: NCCL's tuning model (``allreduce_base_latency_us``, ``link_hop_latency_us``).
    """
    lay = as_layout(num_gpus, expert_parallel)
    t_grp = D.value("expert_group_us", "physical") * 1e-6
    x_ep = float(lay.ep > 1 and lay.dp_attention)
    sizes = (float(lay.num_gpus), float(lay.tp), float(lay.ep))
    if lay.num_gpus == 1:
        return (*sizes, 1.0, 0.0, 0.0, x_ep, t_grp)
    t_0 = D.value("allreduce_base_latency_us", "physical") * 1e-6
    t_hop = D.value("link_hop_latency_us", f"physical:{link_kind(gpu)}") * 1e-6
    return (*sizes, link_bytes_per_s(gpu), t_0, t_hop, x_ep, t_grp)


def single_gpu() -> tuple[float, ...]:
    """The deploy tuple of one GPU (no collective; the expert-group time still applies)."""
    return deploy_args(None, 1)


def check_deployment(llm, num_gpus, expert_parallel: bool = False) -> None:
    """Refuse a layout vLLM would refuse or that has no meaning (InvalidInputError): tp must
    divide the heads, ep the experts, and a dense model has no experts to spread."""
    if expert_parallel and not llm.is_moe:  # on one GPU too: never silently dropped
        raise InvalidInputError(f"expert_parallel=True needs a mixture-of-experts model; "
                                f"{llm.name!r} is dense. Use tensor parallelism.")  # fmt: skip
    as_layout(num_gpus, expert_parallel).check_for(llm)


__all__ = ["canonical_format", "check_deployment", "deploy_args", "gpu_args", "llm_args",
           "expert_flops_per_token", "model_gpu_args", "single_gpu"]  # fmt: skip
