"""Physical mode's equations as sympy expressions: FLOPs, bytes, time and energy of one request.

Per request and phase (prefill, decode), for a replica of ``G`` GPUs serving a batch of ``B``:

* FLOPs ``C`` = 2·N_act per token (forward pass over the *active* parameters, the gathered input
  tables excluded) + attention FLOPs;
* bits ``Q``: the weights one pass reads — the always-read ones at ``b_w`` bits and, per MoE
  layer, the experts the batch's tokens touch, ``E·(1 − (1 − k/E)^tokens)``, at ``b_e`` bits —
  shared by the ``B`` sequences, plus the ``d`` values each token gathers from the input table;
  KV writes and attention reads at ``b_kv`` bits (the KV cache's format, an input: 16 for a
  bf16/fp16 cache, 8 for fp8), ``w_kv`` cached elements per token and layer;
* sliding windows: a share ``f_sw`` of the layers attends to at most the last ``W`` tokens, so
  their attention reads and FLOPs grow with min(context, W) (:func:`windowed_context_sum`);
* FLOPs by tensor group, each at its own format's peak: the routed experts' ``C_e`` =
  2·k·n_moe·N_e per token at ``F_e`` (J/FLOP ``alpha_e``), everything else — the always-read
  weights and attention — ``C − C_e`` at ``F_peak`` (``alpha``): compute time
  ``t_C = (C − C_e)/(G·F_peak) + C_e/(G·F_e)``, compute energy ``alpha·(C − C_e) + alpha_e·C_e``
  (gpt-oss: bf16 attention at the FP16 peak, MXFP4 experts at the FP4 peak; a dense model has
  C_e = 0);
* dynamic energy ``kappa·(compute energy + e·Q)``; roofline time with a power ceiling, the work
  spread over the ``G`` GPUs: ``max(t_C, Q/(8·G·BW), dynamic/(G·(P_TDP − P_static)))``;
* the layout's term (:mod:`wattgpu_lite.energy.symbolic_parallel`, the one place it is derived):
  tensor-parallel all-reduces (ring or recursive doubling), expert-parallel all-to-alls, the
  grouped-GEMM time of the further experts a batch touches, replicated always-read weights;
* static energy ``G·P_static·(roofline time)`` and "communication" energy ``G·P_static·(layout
  time)`` (the replica held during the layout's term: collectives, and for a MoE the expert
  groups — nonzero on one GPU too — and replicated weights; the component keeps its name).

Times are per request: the batch's phase time divided by ``B``.
"""

from __future__ import annotations

import sympy as sp

from wattgpu_lite.energy import symbolic_parallel
from wattgpu_lite.energy.symbolic import (
    B,
    T_in,
    T_out,
    alpha,
    b_kv,
    b_w,
    context_sum,
    d,
    d_q,
    e_mem,
    n_l,
    w_kv,
)
from wattgpu_lite.energy.symbolic_parallel import BW_link, G, t_0, t_grp, t_hop, x_ep  # noqa: F401

_pos, _nonneg = {"positive": True}, {"nonnegative": True}
# sliding windows: share of the layers that slide, window (tokens); bits per routed-expert weight
f_sw = sp.Symbol("f_sw", **_nonneg)
W_sw = sp.Symbol("W_sw", **_pos)
b_e = sp.Symbol("b_e", **_pos)
# model: active parameters (FLOPs), parameters read whatever the routing, experts
N_act, N_all = sp.symbols("N_act N_always", **_pos)
E, k = sp.symbols("E k", **_pos)
L_moe, N_exp = sp.symbols("n_moe N_e", **_nonneg)
# GPU and constants
F_peak, BW_peak, P_tdp, P_static, kappa = sp.symbols("F_peak BW_peak P_TDP P_static kappa", **_pos)
# the routed experts' own compute peak (FLOP/s) and energy per FLOP, at the experts' format
F_e, alpha_e = sp.symbols("F_e alpha_e", **_pos)
b_a = sp.Symbol("b_a", **_pos)  # bits of an activation sent between GPUs
# deployment (energy.symbolic_parallel): GPUs, TP and EP group sizes, link B/s, latencies, x_EP

MODEL = (N_act, N_all, E, k, L_moe, N_exp, n_l, d, d_q, w_kv, f_sw, W_sw, b_e, b_w, b_kv)
WORKLOAD = (T_in, T_out, B)
HARDWARE = (alpha, e_mem, F_peak, BW_peak, P_tdp, P_static, alpha_e, F_e)
DEPLOY = symbolic_parallel.DEPLOY  # G, n_TP, n_EP, BW_link, t_0, t_hop, x_EP, t_grp
ARGS = (*MODEL, *WORKLOAD, *HARDWARE, kappa, *DEPLOY)
PHASES = ("prefill", "decode")
COMPONENTS = (
    "compute",
    "parameter_reads",
    "kv_writes",
    "attention_reads",
    "static",
    "communication",
)


def experts_touched(tokens: sp.Expr) -> sp.Expr:
    """Expected distinct experts of one MoE layer that ``tokens`` tokens route to.

    Each token picks k of E experts (uniform routing): an expert escapes one token with
    probability 1 − k/E, all of them with (1 − k/E)^tokens; the expected count is E times the rest.
    """
    return E * (1 - (1 - k / E) ** tokens)


def weight_bits_read(tokens: sp.Expr) -> sp.Expr:
    """Bits one pass over ``tokens`` tokens reads: the always-read weights at b_w, the touched
    experts' at b_e, and the d values each token gathers from the input table (at b_w)."""
    return b_w * (N_all + d * tokens) + b_e * L_moe * N_exp * experts_touched(tokens)


def windowed_context_sum(window: sp.Expr) -> sp.Expr:
    """Σ_{j<T_out} min(T_in + j, W): the cached tokens a sliding-window layer reads over the decode.

    The first n₁ = clip(W − T_in + 1, 0, T_out) steps see their whole context (T_in + j ≤ W), the
    rest W tokens each: n₁·T_in + n₁(n₁ − 1)/2 + (T_out − n₁)·W (= ``context_sum`` when W ≥
    T_in + T_out − 1)."""
    n1 = sp.Min(sp.Max(window - T_in + 1, 0), T_out)
    return n1 * T_in + n1 * (n1 - 1) / 2 + (T_out - n1) * window


def prompt_pairs(window: sp.Expr) -> sp.Expr:
    """Query-key pairs of a causal prompt of T_in tokens, as in 2·n_l·d_q·T_in² (T_in² / 2
    pairs, doubled): min(T_in, W)·(2·T_in − min(T_in, W)) (= T_in² when W ≥ T_in)."""
    reach = sp.Min(T_in, window)
    return reach * (2 * T_in - reach)


#: decode context read per layer, averaged over the layers: full layers and sliding ones
layer_context_sum = (1 - f_sw) * context_sum + f_sw * windowed_context_sum(W_sw)
#: prompt query-key pairs (doubled) per layer, averaged over full and sliding layers
layer_prompt_pairs = (1 - f_sw) * T_in**2 + f_sw * prompt_pairs(W_sw)
flops = {
    "prefill": 2 * N_act * T_in + 2 * n_l * d_q * layer_prompt_pairs,
    "decode": 2 * N_act * T_out + 4 * n_l * d_q * layer_context_sum,
}


def expert_flops(tokens: sp.Expr) -> sp.Expr:
    """C_e = 2·k·n_moe·N_e·tokens: the routed experts' FLOPs over ``tokens`` tokens (each token
    multiplies its k experts of N_e parameters in each of the n_moe MoE layers; part of the
    2·N_act per token of ``flops``; 0 for a dense model)."""
    return 2 * k * L_moe * N_exp * tokens


#: the routed experts' share of ``flops``, per phase (timed at F_e, charged at alpha_e)
flops_experts = {"prefill": expert_flops(T_in), "decode": expert_flops(T_out)}
bits = {
    "prefill": {
        "parameter_reads": weight_bits_read(B * T_in) / B,  # one pass, all prompts of the batch
        "kv_writes": b_kv * w_kv * n_l * T_in,
        "attention_reads": sp.Integer(0),  # flash attention keeps prompt K/V on chip
    },
    "decode": {
        "parameter_reads": T_out * weight_bits_read(B) / B,  # one pass per step, B tokens
        "kv_writes": b_kv * w_kv * n_l * T_out,
        "attention_reads": b_kv * w_kv * n_l * layer_context_sum,
    },
}


# --- parallel layout: ONE added term per phase (energy.symbolic_parallel derives it) ---------
def step_comm_s(tokens: sp.Expr) -> sp.Expr:
    """What the layout adds to one step over ``tokens`` tokens: collectives, expert groups and
    replicated weights (:func:`wattgpu_lite.energy.symbolic_parallel.parallel_step_s`)."""
    return symbolic_parallel.parallel_step_s(tokens, experts_touched(tokens))


comm_s = {"prefill": step_comm_s(B * T_in) / B, "decode": T_out * step_comm_s(B) / B}
# --- end of the parallel layout term ----------------------------------------------------------


def compute_s(phase: str) -> sp.Expr:
    """t_C = (C − C_e)/(G·F_peak) + C_e/(G·F_e): compute time of a phase (s per request), each
    tensor group's FLOPs at its own format's peak (= C/(G·F_peak) when F_e = F_peak)."""
    rest = flops[phase] - flops_experts[phase]
    return rest / (G * F_peak) + flops_experts[phase] / (G * F_e)


def compute_j(phase: str) -> sp.Expr:
    """alpha·(C − C_e) + alpha_e·C_e: compute energy of a phase (J per request, before kappa),
    each group's FLOPs at its own format's energy per FLOP."""
    return alpha * (flops[phase] - flops_experts[phase]) + alpha_e * flops_experts[phase]


def roofline_s(phase: str) -> sp.Expr:
    """Roofline time of a phase (s per request) on G GPUs, capped by the power limit:
    max(t_C, Q/(8·G·BW_peak), kappa·(compute J + e·Q)/(G·(P_TDP − P_static)))."""
    dynamic = kappa * (compute_j(phase) + e_mem * sum(bits[phase].values()))
    return sp.Max(
        compute_s(phase),
        sum(bits[phase].values()) / (8 * G * BW_peak),
        dynamic / (G * (P_tdp - P_static)),
    )


def phase_terms(phase: str) -> dict[str, sp.Expr]:
    """Energy terms of one phase (J per request, the whole replica), keyed by COMPONENTS."""
    terms = {"compute": kappa * compute_j(phase)}
    terms |= {name: kappa * e_mem * q for name, q in bits[phase].items()}
    terms["static"] = G * P_static * roofline_s(phase)
    terms["communication"] = G * P_static * comm_s[phase]
    return terms


def phase_time(phase: str) -> sp.Expr:
    """Time of one phase (s per request): roofline + communication."""
    return roofline_s(phase) + comm_s[phase]
