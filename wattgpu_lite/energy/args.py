"""The records physical mode's vectorised functions take — their fields, in one place.

Every function of :mod:`wattgpu_lite.energy.physical` takes ``(model, workload, hardware, kappa,
deploy)``: four named records (:class:`ModelRecord`, :class:`Workload`, :class:`Hardware`,
:class:`Deployment`) of floats or numpy arrays, broadcast together, and the dynamic-energy factor
kappa (:func:`wattgpu_lite.energy.physical.defaults`). Each field stands for one sympy symbol of
:mod:`wattgpu_lite.energy.symbolic_physical` (:data:`SYMBOL_NAMES`), and the generated function
takes every symbol by keyword, so no value reaches the physics by its position. Built by
:func:`llm_args` (parameters without the gathered input tables; a dense model: always = active,
one expert, no MoE layer), :func:`gpu_args` / :func:`model_gpu_args` (each tensor group at the
compute peak of its own format) and :func:`deploy_args` / :func:`single_gpu` (a layout of
:mod:`wattgpu_lite.specs.layout`); many models stack field by field:
``ModelRecord._make(np.array([llm_args(m) for m in models]).T)``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from wattgpu_lite.energy import coefficients, links
from wattgpu_lite.energy.hardware import gpu_coefficients_j
from wattgpu_lite.energy.precision import compute_peak_tflops, streamed_bits, streamed_formats
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.specs.engine import kv_cache_bits
from wattgpu_lite.specs.layout import as_layout

Value = Any  # a float or a numpy array; the fields of one record broadcast together


class ModelRecord(NamedTuple):
    """A model as physical mode reads it (the symbols of ``symbolic_physical.MODEL``)."""

    active_params: Value  # N_act: parameters a token reads, without the gathered input tables
    always_params: Value  # N_always: parameters every token reads (attention, dense, shared)
    experts: Value  # E: routed experts per MoE layer (1 for a dense model)
    active_experts: Value  # k: routed experts a token reads (1 for a dense model)
    moe_layers: Value  # n_moe: layers with routed experts (0 for a dense model)
    expert_params: Value  # N_e: parameters of one routed expert (0 for a dense model)
    layers: Value  # n_ell: transformer layers
    hidden_size: Value  # d: hidden width
    query_width: Value  # d_q = heads · head_dim
    kv_width: Value  # w_kv: cached K+V elements per token and layer
    sliding_share: Value  # f_sw: share of sliding-window layers
    window_tokens: Value  # W_sw: the window (the context length without one), tokens
    expert_bits: Value  # b_e: bits per routed-expert weight
    always_bits: Value  # b_w: bits per always-read weight
    kv_bits: Value  # b_kv: bits per cached K or V element (the KV cache's format)


class Workload(NamedTuple):
    """A request's tokens and the sequences sharing its steps (``symbolic_physical.WORKLOAD``)."""

    t_in: Value  # T_in: prompt tokens
    t_out: Value  # T_out: generated tokens
    batch: Value  # B: sequences sharing a step


class Hardware(NamedTuple):
    """One GPU as physical mode reads it (``symbolic_physical.HARDWARE``), per tensor group."""

    alpha_j_per_flop: Value  # alpha: J/FLOP at the always-read weights' format
    e_j_per_bit: Value  # e_HBM: J per bit moved to or from HBM
    peak_flops: Value  # F_peak: FLOP/s of the always-read weights' format
    bandwidth_bytes_s: Value  # BW_peak: memory bandwidth, B/s
    tdp_w: Value  # P_TDP: the board's power limit, W
    static_w: Value  # P_static: static (idle) draw, W
    expert_alpha_j_per_flop: Value  # alpha_e: J/FLOP at the routed experts' format
    expert_peak_flops: Value  # F_e: FLOP/s of the routed experts' format


class Deployment(NamedTuple):
    """A replica's layout and its links (``symbolic_parallel.DEPLOY``)."""

    num_gpus: Value  # G: GPUs in the replica
    tp: Value  # n_TP: GPUs of one attention group (tensor parallel)
    ep: Value  # n_EP: GPUs the experts are spread over (expert parallel)
    link_bytes_s: Value  # BW_link: per-direction GPU-to-GPU bandwidth, B/s
    collective_latency_s: Value  # t_0: base latency of one collective, s
    hop_latency_s: Value  # t_hop: latency per hop, s
    expert_dispatch: Value  # x_EP: 1 when experts are dispatched by all-to-all, else 0
    expert_group_s: Value  # t_grp: fixed time per expert a grouped GEMM reads, s
    tp_nodes: Value  # N_TP: nodes one tensor group spans (1 inside one link domain)
    ep_nodes: Value  # N_EP: nodes the expert group spans
    net_bytes_s: Value  # BW_net: per-GPU scale-out network bandwidth per direction, B/s
    net_hop_latency_s: Value  # t_net: latency per hop between nodes, s


#: each record's fields and the sympy symbols they stand for, in the same order (a test holds
#: them equal to ``symbolic_physical.MODEL``, ``WORKLOAD``, ``HARDWARE``, ``DEPLOY``)
SYMBOL_NAMES: dict[type, tuple[str, ...]] = {
    ModelRecord: (
        "N_act",
        "N_always",
        "E",
        "k",
        "n_moe",
        "N_e",
        "n_ell",
        "d",
        "d_q",
        "w_kv",
        "f_sw",
        "W_sw",
        "b_e",
        "b_w",
        "b_kv",
    ),
    Workload: ("T_in", "T_out", "B"),
    Hardware: ("alpha_TC", "e_HBM", "F_peak", "BW_peak", "P_TDP", "P_static", "alpha_e", "F_e"),
    Deployment: (
        "G",
        "n_TP",
        "n_EP",
        "BW_link",
        "t_0",
        "t_hop",
        "x_EP",
        "t_grp",
        "N_TP",
        "N_EP",
        "BW_net",
        "t_net",
    ),
}


def symbol_values(record: NamedTuple) -> dict[str, Value]:
    """{sympy symbol name: value} of one record, field by field (:data:`SYMBOL_NAMES`)."""
    return dict(zip(SYMBOL_NAMES[type(record)], record, strict=True))


def llm_args(llm, weights: str | None = None, kv_cache: str | None = None) -> ModelRecord:
    """The model record of ``llm`` served with ``weights`` (None: its own format) and a KV cache
    in ``kv_cache`` (None or "auto": 16 bits, :func:`~wattgpu_lite.specs.engine.kv_cache_bits`)."""
    moe = llm.is_moe
    always_bits, expert_bits = streamed_bits(llm, weights)
    return ModelRecord(
        active_params=llm.params_active_b * 1e9,
        always_params=llm.params_always_b * 1e9,
        experts=float(llm.n_experts if moe else 1),
        active_experts=float(llm.n_experts_active if moe else 1),
        moe_layers=float(llm.n_moe_layers if moe else 0),
        expert_params=llm.params_expert_b * 1e9 if moe else 0.0,
        layers=float(llm.n_layers),
        hidden_size=float(llm.hidden_size),
        query_width=float(llm.n_heads * llm.head_dim),
        kv_width=float(llm.kv_width),
        sliding_share=llm.n_sliding_layers / llm.n_layers,
        window_tokens=float(llm.sliding_window or llm.context_length),
        expert_bits=expert_bits,
        always_bits=always_bits,
        kv_bits=kv_cache_bits(kv_cache),
    )


def expert_flops_per_token(model: ModelRecord) -> Value:
    """C_e per token = 2·k·n_moe·N_e [FLOP]: the routed experts' share of 2·N_act (0 if dense),
    as :func:`wattgpu_lite.energy.symbolic_physical.expert_flops` derives it."""
    return 2.0 * model.active_experts * model.moe_layers * model.expert_params


def gpu_args(
    gpu,
    static_fraction: float,
    basis: str = "antepara",
    weights: str | None = None,
    *,
    expert_weights: str | None = None,
) -> Hardware:
    """The hardware record of ``gpu``: the always-read weights and attention run in ``weights``
    (None: 16-bit), the routed experts in ``expert_weights`` (None: as ``weights``). Per group,
    alpha = the basis's FP16 energy per FLOP × FP16 peak / that group's peak (spec basis: TDP /
    that peak). :func:`model_gpu_args` takes both formats from a model."""
    a, e, _ = gpu_coefficients_j(gpu, basis)
    peak = compute_peak_tflops(gpu, "bf16" if weights is None else weights)[0]
    peak_e = peak if expert_weights is None else compute_peak_tflops(gpu, expert_weights)[0]
    return Hardware(
        alpha_j_per_flop=a * gpu.fp16_tflops / peak,
        e_j_per_bit=e,
        peak_flops=peak * 1e12,
        bandwidth_bytes_s=gpu.bandwidth_gbs * 1e9,
        tdp_w=gpu.tdp_w,
        static_w=static_fraction * gpu.tdp_w,
        expert_alpha_j_per_flop=a * gpu.fp16_tflops / peak_e,
        expert_peak_flops=peak_e * 1e12,
    )


def model_gpu_args(
    llm, gpu, static_fraction: float, basis: str = "antepara", *, weights: str | None = None
) -> Hardware:
    """:func:`gpu_args` for ``llm`` served with ``weights`` (None: its own format), each tensor
    group at the peak of its own format (:func:`~wattgpu_lite.energy.precision.streamed_formats`).
    """
    always, experts = streamed_formats(llm, weights)
    return gpu_args(gpu, static_fraction, basis, always, expert_weights=experts)


def model_peak_kinds(llm, gpu, weights: str | None = None) -> tuple[str, str]:
    """The peak ("fp16", "fp8", "fp4") each tensor group runs at: (always-read, routed experts)."""
    return tuple(compute_peak_tflops(gpu, fmt)[1] for fmt in streamed_formats(llm, weights))


def deploy_args(gpu, num_gpus=1, expert_parallel: bool = False) -> Deployment:
    """The deployment record (energy.symbolic_parallel.DEPLOY): G, n_TP, n_EP, per-direction link
    B/s, NCCL base and per-hop latency (s), x_EP (all-to-all dispatch), t_grp = 0 (s per expert
    group: no datasheet gives it; the backbone's fitted ``Constants.expert_group_s`` sets it,
    :func:`~wattgpu_lite.energy.backbone.achieved_deploy`), and the nodes crossed: N_TP, N_EP,
    the scale-out B/s and latency per hop (:func:`wattgpu_lite.energy.links.node_split`; one
    node: no network, the terms are 0).

    ``num_gpus``: a GPU count (tensor parallel; ``expert_parallel`` puts whole experts on the same
    GPUs) or a :class:`~wattgpu_lite.specs.layout.Parallel`; one GPU has no collective (t_0 = 0).
    Latencies: NCCL's tuning model (``allreduce_base_latency_us``, ``link_hop_latency_us``)."""
    lay = as_layout(num_gpus, expert_parallel)
    sizes = {"num_gpus": float(lay.num_gpus), "tp": float(lay.tp), "ep": float(lay.ep)}
    sizes |= {"expert_dispatch": float(lay.ep > 1 and lay.dp_attention), "expert_group_s": 0.0}
    if lay.num_gpus == 1:
        return Deployment(
            **sizes, link_bytes_s=1.0, collective_latency_s=0.0, hop_latency_s=0.0, **links.ONE_NODE
        )
    link = links.link_bytes_per_s(gpu)
    sizes |= links.node_split(gpu, lay)
    base_s = coefficients.value("allreduce_base_latency_us", "physical") * 1e-6
    hop_s = coefficients.value("link_hop_latency_us", f"physical:{links.link_kind(gpu)}") * 1e-6
    return Deployment(**sizes, link_bytes_s=link, collective_latency_s=base_s, hop_latency_s=hop_s)


def single_gpu() -> Deployment:
    """The deployment record of one GPU (no collective; the backbone's expert-group time still
    applies)."""
    return deploy_args(None, 1)


def check_deployment(llm, num_gpus, expert_parallel: bool = False) -> None:
    """Refuse a layout vLLM would refuse or that has no meaning (InvalidInputError): tp must
    divide the heads, ep the experts, and a dense model has no experts to spread."""
    if expert_parallel and not llm.is_moe:  # on one GPU too: never silently dropped
        dense = f"{llm.name!r} is dense. Use tensor parallelism."
        raise InvalidInputError(f"expert_parallel=True needs a mixture-of-experts model; {dense}")
    as_layout(num_gpus, expert_parallel).check_for(llm)
