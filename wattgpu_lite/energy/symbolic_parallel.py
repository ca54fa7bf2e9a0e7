"""What a replica of several GPUs, or many experts, adds to a step: derived term by term in sympy.

One forward step over ``tokens`` tokens of a replica laid out as ``Parallel(tp, ep)``
(:mod:`wattgpu_lite.specs.layout`; ``G = max(tp, ep)`` GPUs, ``dp = G / tp`` attention groups):

* **all-reduce** of the activations (``M = tokens·d·b_a/8`` bytes) over ``n`` GPUs, two per layer
  (after attention, after the MLP) among the ``tp`` GPUs of an attention group, each on the
  ``tokens / dp`` tokens of that group. Two algorithms (Thakur, Rabenseifner & Gropp 2005,
  "Optimization of collective communication operations in MPICH", IJHPCA 19(1)):
  ring ``2(n−1)·t_hop + 2(n−1)/n · M/BW`` (bandwidth-optimal) and recursive doubling
  ``log2(n)·(t_hop + M/BW)`` (latency-optimal). **Rule**: the faster of the two — recursive
  doubling for small messages and many GPUs (a decode step: M = B·d·2 bytes, a few kB), the ring
  once ``M/BW`` dominates the hop latency (prefill). Plus the launch latency ``t_0`` of a
  collective; nothing on one GPU;
* **all-to-all** dispatch and combine of expert parallelism with data-parallel attention
  (``x_EP`` = 1): on each MoE layer the MLP all-reduce gives way to two all-to-alls among the
  ``ep`` GPUs, each GPU sending the ``(ep−1)/ep`` of its ``k·M/ep`` routed copies that live
  elsewhere: ``t_0 + (ep−1)·t_hop + (ep−1)/ep² · k·M/BW``;
* **expert groups**: a grouped GEMM pays a fixed time ``t_grp`` per expert it reads (its tiles are
  scheduled, its weights streamed, at a few tokens each: tokens per expert = tokens·k/E). One token
  reads k experts, as a dense layer would read its k slices; the ``E_B − k`` further experts a
  step of ``tokens`` touches (``E_B = E·(1 − (1 − k/E)^tokens)``) are what spreading the batch
  costs, shared by the ``ep`` GPUs holding them: ``n_moe·t_grp·(E_B − k)/ep``. E → k: E_B = k, no
  term — the dense model;
* **replicated weights**: with data-parallel attention every group reads the always-read weights
  (attention, dense layers, shared experts) for itself: ``N_always·b_w/8 · (1/tp − 1/G) / BW_peak``
  beyond the 1/G share of the roofline.

Limits (``tests/specs/test_parallel.py``): G = 1 → 0 for a dense model (today's single-GPU step);
t_0, t_hop → 0 and BW → ∞ → only the expert-group term (the ideal split); E → k → 0.
"""

from __future__ import annotations

import sympy as sp

from wattgpu_lite.energy.symbolic import b_w, d, n_l

_pos, _nonneg = {"positive": True}, {"nonnegative": True}
# the same symbols as energy.symbolic_physical (sympy symbols are equal by name and assumptions)
N_all, E, k, BW_peak = sp.symbols("N_always E k BW_peak", **_pos)
L_moe = sp.Symbol("n_moe", **_nonneg)
b_a = sp.Symbol("b_a", **_pos)
G, BW_link = sp.symbols("G BW_link", **_pos)
t_0, t_hop, x_ep = sp.symbols("t_0 t_hop x_EP", **_nonneg)
# new: the attention-group and expert-group sizes, the fixed time per expert of a grouped GEMM
n_tp, n_ep = sp.symbols("n_TP n_EP", **_pos)
t_grp = sp.Symbol("t_grp", **_nonneg)

DEPLOY = (G, n_tp, n_ep, BW_link, t_0, t_hop, x_ep, t_grp)


def message_bytes(tokens: sp.Expr) -> sp.Expr:
    """Bytes of the activations of ``tokens`` tokens: tokens · d · b_a / 8."""
    return tokens * d * b_a / 8


def several(n: sp.Expr) -> sp.Expr:
    """1 when n ≥ 2 GPUs take part, 0 for one (a collective of one GPU costs nothing)."""
    return sp.Min(1, n - 1)


def ring_s(m: sp.Expr, n: sp.Expr) -> sp.Expr:
    """Ring all-reduce: 2(n−1) hops, each GPU sends 2(n−1)/n of the message."""
    return 2 * (n - 1) * t_hop + 2 * (n - 1) / n * m / BW_link


def doubling_s(m: sp.Expr, n: sp.Expr) -> sp.Expr:
    """Recursive-doubling all-reduce: log2(n) exchanges of the whole message."""
    return sp.log(n, 2) * (t_hop + m / BW_link)


def allreduce_s(m: sp.Expr, n: sp.Expr) -> sp.Expr:
    """All-reduce of ``m`` bytes over ``n`` GPUs: t_0 + the faster of ring and doubling."""
    return several(n) * (t_0 + sp.Min(ring_s(m, n), doubling_s(m, n)))


def alltoall_s(m: sp.Expr, n: sp.Expr) -> sp.Expr:
    """All-to-all of ``m`` bytes held 1/n per GPU: each sends the (n−1)/n that lives elsewhere."""
    return several(n) * (t_0 + (n - 1) * t_hop + (n - 1) / n**2 * m / BW_link)


#: a collective's latency in the engine over NCCL's tuning model (the backbone's collective_ratio)
r_coll = sp.Symbol("r_coll", nonnegative=True)


def engine_latencies(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each collective's latencies as the engine reaches them: t_0 → r_coll·t_0 and
    t_hop → r_coll·t_hop, the bytes / link bandwidth unchanged. An engine pays more per
    collective than the bare NCCL call (its launches and the synchronisation around it, two
    per layer: 160 a step for an 80-layer model at TP 8); r_coll = 1 is NCCL's model, r_coll → 0
    leaves the link's bandwidth alone (:func:`wattgpu_lite.energy.backbone.achieved_deploy`)."""
    return expr.subs({t_0: r_coll * t_0, t_hop: r_coll * t_hop}, simultaneous=True)


def engine_allreduce_s(m: sp.Expr, n: sp.Expr) -> sp.Expr:
    """The all-reduce of ``m`` bytes over ``n`` GPUs at the engine's latencies."""
    return engine_latencies(allreduce_s(m, n))


def comm_step_s(tokens: sp.Expr) -> sp.Expr:
    """Collectives of one step: 2 all-reduces per layer in each attention group (on MoE layers
    the MLP one becomes a dispatch + combine all-to-all when x_EP = 1)."""
    per_group = message_bytes(tokens * n_tp / G)  # tokens / dp
    n_allreduce = 2 * n_l - x_ep * L_moe
    return (n_allreduce * allreduce_s(per_group, n_tp)
            + 2 * x_ep * L_moe * alltoall_s(k * message_bytes(tokens), n_ep))  # fmt: skip


def expert_groups_s(touched: sp.Expr) -> sp.Expr:
    """Grouped-GEMM time beyond a dense layer's: t_grp per further expert, over ep GPUs."""
    return L_moe * t_grp * (touched - k) / n_ep


def replicated_read_s() -> sp.Expr:
    """Extra read of the always-read weights when each attention group holds its own copy."""
    return N_all * b_w / 8 * (1 / n_tp - 1 / G) / BW_peak


def parallel_step_s(tokens: sp.Expr, touched: sp.Expr) -> sp.Expr:
    """The one term a layout adds to a step over ``tokens`` tokens touching ``touched`` experts."""
    return comm_step_s(tokens) + expert_groups_s(touched) + replicated_read_s()


def derivation(tokens: sp.Expr | None = None) -> dict[str, sp.Expr]:
    """The terms of one decode step (``tokens`` = B by default), named, for a notebook to show
    (``sp.Eq(sp.Symbol(name), expr)``): message, ring, doubling, the two collectives, the step's
    collectives, expert groups, replicated weights, and their sum."""
    tok = sp.Symbol("B", positive=True) if tokens is None else tokens
    m, n = message_bytes(tok), sp.Symbol("n", positive=True)
    touched = E * (1 - (1 - k / E) ** tok)
    return {"M": m, "t_ring": ring_s(m, n), "t_doubling": doubling_s(m, n),
            "t_allreduce": allreduce_s(m, n), "t_alltoall": alltoall_s(k * m, n),
            "t_collectives": comm_step_s(tok), "t_expert_groups": expert_groups_s(touched),
            "t_replicated": replicated_read_s(), "t_layout": parallel_step_s(tok, touched)}  # fmt: skip


__all__ = ["DEPLOY", "allreduce_s", "alltoall_s", "comm_step_s", "derivation", "doubling_s",
           "engine_allreduce_s", "engine_latencies", "expert_groups_s", "message_bytes",
           "parallel_step_s", "r_coll", "replicated_read_s", "ring_s"]  # fmt: skip
