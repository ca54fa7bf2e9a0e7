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
  collective; nothing on one GPU. A group over ``N`` nodes (``n/N`` GPUs each) reduces in two
  levels (:func:`allreduce_s`): inside each node on the node's link, and across the nodes on the
  scale-out network (``BW_net``, ``t_net``) — never the node's link across nodes;
* **all-to-all** dispatch and combine of expert parallelism with data-parallel attention
  (``x_EP`` = 1): on each MoE layer the MLP all-reduce gives way to two all-to-alls among the
  ``ep`` GPUs, each GPU sending the ``(ep−1)/ep`` of its ``k·M/ep`` routed copies that live
  elsewhere: ``t_0 + (ep−1)·t_hop + (ep−1)/ep² · k·M/BW`` (the copies for GPUs in other nodes
  over the scale-out network: :func:`alltoall_s`);
* **expert groups**: a grouped GEMM pays a fixed time ``t_grp`` per expert it reads (its tiles are
  scheduled, its weights streamed, at a few tokens each: tokens per expert = tokens·k/E). One token
  reads k experts, as a dense layer would read its k slices; the ``E_B − k`` further experts a
  step of ``tokens`` touches (``E_B = E·(1 − (1 − k/E)^tokens)``) are what spreading the batch
  costs, shared by the ``ep`` GPUs holding them: ``n_moe·t_grp·(E_B − k)/ep``. E → k: E_B = k, no
  term — the dense model;
* **replicated weights**: with data-parallel attention every group reads the always-read weights
  (attention, dense layers, shared experts) for itself: ``N_always·b_w/8 · (1/tp − 1/G) / BW_peak``
  beyond the 1/G share of the roofline.

Limits (``tests/specs/test_parallel.py``, ``tests/energy/test_scaleout.py``): G = 1 → 0 for a
dense model (today's single-GPU step); t_0, t_hop, t_net → 0 and BW, BW_net → ∞ → only the
expert-group term (the ideal split); E → k → 0; N_TP = N_EP = 1 (one node) → the one-level
collectives exactly. Pipeline parallelism is not modelled (no layout has stages).
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
# new: the nodes a tensor group and an expert group span, the scale-out network per GPU (B/s per
# direction) and its latency per hop [s]
N_tp, N_ep, BW_net = sp.symbols("N_TP N_EP BW_net", **_pos)
t_net = sp.Symbol("t_net", **_nonneg)

DEPLOY = (G, n_tp, n_ep, BW_link, t_0, t_hop, x_ep, t_grp, N_tp, N_ep, BW_net, t_net)


def message_bytes(tokens: sp.Expr) -> sp.Expr:
    """Bytes of the activations of ``tokens`` tokens: tokens · d · b_a / 8."""
    return tokens * d * b_a / 8


def several(n: sp.Expr) -> sp.Expr:
    """1 when n ≥ 2 GPUs take part, 0 for one (a collective of one GPU costs nothing)."""
    return sp.Min(1, n - 1)


def ring_s(m: sp.Expr, n: sp.Expr, hop_s: sp.Expr = t_hop, bw: sp.Expr = BW_link) -> sp.Expr:
    """Ring all-reduce [s]: 2(n−1) hops of ``hop_s``, each GPU sends 2(n−1)/n of the ``m``
    bytes at ``bw`` B/s (Thakur et al. 2005; the node's link by default)."""
    return 2 * (n - 1) * hop_s + 2 * (n - 1) / n * m / bw


def doubling_s(m: sp.Expr, n: sp.Expr, hop_s: sp.Expr = t_hop, bw: sp.Expr = BW_link) -> sp.Expr:
    """Recursive-doubling all-reduce [s]: log2(n) exchanges of the whole message."""
    return sp.log(n, 2) * (hop_s + m / bw)


def allreduce_s(m: sp.Expr, n: sp.Expr, nodes: sp.Expr = 1) -> sp.Expr:
    """All-reduce of ``m`` bytes over ``n`` GPUs spread evenly over ``nodes`` nodes [s], the
    two-level scheme (reduce-scatter inside each node, all-reduce across the nodes, all-gather
    inside each node): t_0 + the node phases, bounded above by the one-level all-reduce of the
    whole message over the n GPUs on the node's link (the faster of ring and doubling; over
    n/nodes GPUs each is never slower: ring and doubling both grow with n), + the network
    phase: each GPU all-reduces its 1/(n/nodes) share with its peers of the other nodes on its
    own NIC (rail-optimised), the faster of ring and doubling over ``nodes`` at t_net per hop
    and BW_net B/s (:func:`across_nodes_s`). Sources: Thakur, Rabenseifner & Gropp 2005 (the
    algorithms); NCCL's tuning model (src/graph/tuning.cc, hwLat NET) for t_net. nodes = 1:
    the network phase is 0 (no hop, log2 1 = 0): the one-level all-reduce exactly. The bound
    keeps a step never faster for more nodes, nor for a slower network."""
    return several(n) * (t_0 + sp.Min(ring_s(m, n), doubling_s(m, n))) + across_nodes_s(m, n, nodes)


def across_nodes_s(m: sp.Expr, n: sp.Expr, nodes: sp.Expr) -> sp.Expr:
    """The network phase of :func:`allreduce_s` [s]: the n/nodes GPUs' shares m/(n/nodes) of
    the message all-reduced across ``nodes`` nodes on the scale-out network, the faster of
    ring and doubling (never the node's link: t_net and BW_net only). 0 on one node."""
    share = m * nodes / n
    return sp.Min(ring_s(share, nodes, t_net, BW_net), doubling_s(share, nodes, t_net, BW_net))


def alltoall_s(m: sp.Expr, n: sp.Expr, nodes: sp.Expr = 1) -> sp.Expr:
    """All-to-all of ``m`` bytes held 1/n per GPU over ``nodes`` nodes [s]: each GPU sends m/n²
    to each of the n − 1 others, one hop each; the n/nodes − 1 peers of its node on the node's
    link, the n − n/nodes in other nodes on the scale-out network (t_net, BW_net), the two parts
    added (an upper estimate: the links may overlap). nodes = 1: the network part is 0; with
    t_net ≥ t_hop and BW_net ≤ BW_link each peer moved off the node costs more: more nodes
    are never faster."""
    inside = n / nodes
    remote = n - inside
    local = several(n) * (t_0 + (inside - 1) * t_hop + (inside - 1) / n**2 * m / BW_link)
    return local + remote * t_net + remote / n**2 * m / BW_net


#: a collective's latency in the engine over NCCL's tuning model (the backbone's collective_ratio)
r_coll = sp.Symbol("r_coll", nonnegative=True)


def engine_latencies(expr: sp.Expr) -> sp.Expr:
    """``expr`` with each collective's latencies as the engine reaches them: t_0 → r_coll·t_0,
    t_hop → r_coll·t_hop and t_net → r_coll·t_net, the bytes / bandwidth unchanged. An engine
    pays more per collective than the bare NCCL call (its launches and the synchronisation around it, two
    per layer: 160 a step for an 80-layer model at TP 8); r_coll = 1 is NCCL's model, r_coll → 0
    leaves the link's bandwidth alone (:func:`wattgpu_lite.energy.backbone.achieved_deploy`)."""
    subs = {t_0: r_coll * t_0, t_hop: r_coll * t_hop, t_net: r_coll * t_net}
    return expr.subs(subs, simultaneous=True)


def engine_allreduce_s(m: sp.Expr, n: sp.Expr, nodes: sp.Expr = 1) -> sp.Expr:
    """The all-reduce of ``m`` bytes over ``n`` GPUs on ``nodes`` nodes at the engine's
    latencies."""
    return engine_latencies(allreduce_s(m, n, nodes))


def comm_step_s(tokens: sp.Expr) -> sp.Expr:
    """Collectives of one step: 2 all-reduces per layer in each attention group (on MoE layers
    the MLP one becomes a dispatch + combine all-to-all when x_EP = 1), the groups over N_TP
    and N_EP nodes."""
    per_group = message_bytes(tokens * n_tp / G)  # tokens / dp
    n_allreduce = 2 * n_l - x_ep * L_moe
    all_reduce = n_allreduce * allreduce_s(per_group, n_tp, N_tp)
    return all_reduce + 2 * x_ep * L_moe * alltoall_s(k * message_bytes(tokens), n_ep, N_ep)


def expert_groups_s(touched: sp.Expr) -> sp.Expr:
    """Grouped-GEMM time beyond a dense layer's: t_grp per further expert, over ep GPUs."""
    return L_moe * t_grp * (touched - k) / n_ep


def replicated_read_s() -> sp.Expr:
    """Extra read of the always-read weights when each attention group holds its own copy."""
    return N_all * b_w / 8 * (1 / n_tp - 1 / G) / BW_peak


def parallel_step_s(tokens: sp.Expr, touched: sp.Expr) -> sp.Expr:
    """The one term a layout adds to a step over ``tokens`` tokens touching ``touched`` experts."""
    return comm_step_s(tokens) + expert_groups_s(touched) + replicated_read_s()
