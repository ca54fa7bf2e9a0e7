"""More GPUs than one node holds: the collectives cross the scale-out network, never NVLink.

``energy.symbolic_parallel.allreduce_s`` / ``alltoall_s`` over ``N`` nodes, the network of
``data/scaleout_links.csv`` (``energy.links``), the generated code's one-node branch (codegen) and
the refusal where no network is documented. Limits (N → 1 gives today's collectives exactly),
monotonicity (a slower network or more nodes is never faster), one 16-GPU layout by hand.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import sympy as sp

import wattgpu_lite as wl
from wattgpu_lite.energy import _physical_generated as PG
from wattgpu_lite.energy import codegen, links
from wattgpu_lite.energy import symbolic as S
from wattgpu_lite.energy import symbolic_parallel as SPAR
from wattgpu_lite.energy.args import deploy_args, symbol_values
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.specs.layout import Parallel

ONE_NODE = {SPAR.N_tp: 1, SPAR.N_ep: 1}
LLAMA_405B = "meta-llama/Llama-3.1-405B-Instruct"  # d = 16384, 126 layers
# NCCL ring/LL latencies (energy_coefficients.csv) and the H100 SXM's links: NVLink 4 at 450 GB/s
# per direction, one 400 Gb/s ConnectX-7 per GPU (data/scaleout_links.csv)
T0, HOP, NET = 6.6e-6, 0.6e-6, 2.7e-6
NVLINK_BS, NIC_BS = 900e9 / 2, 400e9 / 8


def _todays_allreduce_s(m, n):
    """The one-node all-reduce as written before nodes existed (t_0 + min(ring, doubling))."""
    ring = 2 * (n - 1) * SPAR.t_hop + 2 * (n - 1) / n * m / SPAR.BW_link
    doubling = sp.log(n, 2) * (SPAR.t_hop + m / SPAR.BW_link)
    return sp.Min(1, n - 1) * (SPAR.t_0 + sp.Min(ring, doubling))


def _todays_alltoall_s(m, n):
    return sp.Min(1, n - 1) * (SPAR.t_0 + (n - 1) * SPAR.t_hop + (n - 1) / n**2 * m / SPAR.BW_link)


def test_one_node_gives_todays_collectives_exactly():
    m, n = sp.symbols("m n", positive=True)
    assert SPAR.allreduce_s(m, n, 1) == _todays_allreduce_s(m, n)
    assert SPAR.alltoall_s(m, n, 1) == _todays_alltoall_s(m, n)
    assert SPAR.across_nodes_s(m, n, 1) == 0
    per_group = SPAR.message_bytes(S.B * SPAR.n_tp / SPAR.G)
    count = 2 * S.n_l - SPAR.x_ep * SPAR.L_moe
    today = count * _todays_allreduce_s(per_group, SPAR.n_tp) + 2 * SPAR.x_ep * SPAR.L_moe * (
        _todays_alltoall_s(SPAR.k * SPAR.message_bytes(S.B), SPAR.n_ep)
    )
    assert SPAR.comm_step_s(S.B).subs(ONE_NODE) == today


def test_the_generated_one_node_branch_is_the_full_code_at_one_node():
    """codegen keeps the one-node expressions' own code (their numbers to the bit) and the full
    expressions for rows over several nodes; at N = 1 both agree to rounding."""
    assert all(not e.subs(codegen.ONE_NODE).has(SPAR.N_tp, SPAR.N_ep)
               for e in codegen.generated_expressions())  # fmt: skip
    values = dict(zip(PG.ARG_NAMES, [8.4e9, 2e9, 8, 2, 32, 1e8, 32, 4096, 4096, 2048, 0.5, 600,
                                     4.25, 16, 8, 500, 300, 8, 5e-13, 1.2e-11, 4e14, 3e12, 700,
                                     100, 1.25e-13, 1.6e15, 1.2, 16, 16, 16, 4.5e11, 7e-6, 6e-7,
                                     0, 4e-6, 1, 1, 5e10, 2.7e-6], strict=True))  # fmt: skip
    one = PG.evaluate(**values)
    assert one == PG._evaluate_one_node(**values)
    np.testing.assert_allclose(PG._evaluate_nodes(**values), one, rtol=1e-12, atol=0)
    two = PG.evaluate(**values | {"N_TP": 2.0})
    assert two[-1] > one[-1]  # the decode time: the network phase on top


def _comm_s(tokens: float, n_tp: int, nodes: float, net_bs: float, t_net: float) -> float:
    subs = {SPAR.G: n_tp, SPAR.n_tp: n_tp, SPAR.n_ep: 1, SPAR.x_ep: 0, S.n_l: 126, S.d: 16384,
            SPAR.b_a: 16, SPAR.L_moe: 0, SPAR.t_0: T0, SPAR.t_hop: HOP, SPAR.BW_link: NVLINK_BS,
            SPAR.N_tp: nodes, SPAR.N_ep: 1, SPAR.BW_net: net_bs, SPAR.t_net: t_net}  # fmt: skip
    return float(SPAR.comm_step_s(sp.Float(tokens)).subs(subs))


@pytest.mark.parametrize("tokens", [1, 8, 64, 1024, 65536])  # decode (doubling) to prefill (ring)
def test_a_slower_network_or_more_nodes_is_never_faster(tokens):
    for n_tp in (16, 32, 64):
        nodes = [x for x in (1, 2, 4, 8) if n_tp / x >= 1]
        for a, b in itertools.pairwise(nodes):
            assert _comm_s(tokens, n_tp, b, NIC_BS, NET) >= _comm_s(tokens, n_tp, a, NIC_BS, NET)
        for fast, slow in itertools.pairwise((NVLINK_BS, 100e9, NIC_BS, 25e9, 12.5e9)):
            assert _comm_s(tokens, n_tp, 2, slow, NET) >= _comm_s(tokens, n_tp, 2, fast, NET)
        assert _comm_s(tokens, n_tp, 2, NIC_BS, 5e-6) >= _comm_s(tokens, n_tp, 2, NIC_BS, NET)


def test_expert_all_to_all_over_more_nodes_is_never_faster():
    m = sp.Float(8 * 64 * 7168 * 2)
    subs = {SPAR.t_0: T0, SPAR.t_hop: HOP, SPAR.BW_link: NVLINK_BS, SPAR.t_net: NET,
            SPAR.BW_net: NIC_BS}  # fmt: skip
    times = [float(SPAR.alltoall_s(m, 32, nodes).subs(subs)) for nodes in (1, 2, 4, 8)]
    assert times == sorted(times) and times[0] < times[1]


def test_llama_405b_at_tp16_on_two_h100_nodes_by_hand():
    """A decode step of 8 sequences: 252 all-reduces (2 per layer) of M = 8·16384·2 bytes. Each:
    t_0 + min(ring, doubling) over 16 GPUs on NVLink (doubling: 4·(t_hop + M/B_nvl)), + the
    network phase: each GPU's 1/8 share across 2 nodes, doubling (1·(t_net + M/8/B_nic))."""
    m = 8 * 16384 * 2
    node = T0 + min(30 * HOP + 2 * 15 / 16 * m / NVLINK_BS, 4 * (HOP + m / NVLINK_BS))
    network = min(2 * NET + m / 8 / NIC_BS, NET + m / 8 / NIC_BS)
    assert node == pytest.approx(11.3302e-6, rel=1e-4)
    assert network == pytest.approx(3.35536e-6, rel=1e-5)
    by_hand = 252 * (node + network)
    assert by_hand == pytest.approx(3.7008e-3, rel=1e-4)
    assert _comm_s(8, 16, 2, NIC_BS, NET) == pytest.approx(by_hand, rel=1e-12)
    d = deploy_args(wl.gpu("H100 SXM"), 16)
    assert (d.tp_nodes, d.ep_nodes, d.net_bytes_s) == (2.0, 1.0, NIC_BS)
    got = (d.link_bytes_s, d.collective_latency_s, d.hop_latency_s, d.net_hop_latency_s)
    assert got == pytest.approx((NVLINK_BS, T0, HOP, NET), rel=1e-12)
    values = {k: float(v) for k, v in symbol_values(d).items()}
    assert values["N_TP"] == 2.0 and values["BW_net"] == NIC_BS


def test_sixteen_h100s_answer_and_pay_for_the_network():
    p16 = wl.predict(LLAMA_405B, "H100 SXM", num_gpus=16, batch=8)
    p32 = wl.predict(LLAMA_405B, "H100 SXM", num_gpus=32, batch=8)
    assert math.isfinite(p16.itl_s) and math.isfinite(p32.itl_s)
    assert p32.power_w > p16.power_w  # twice the GPUs draw more
    ep16 = wl.predict("deepseek-ai/DeepSeek-V3", "H200 SXM", parallel=Parallel(ep=16), batch=8)
    assert math.isfinite(ep16.itl_s)


@pytest.mark.parametrize("name", ["H100 SXM", "H200 SXM", "B200", "A100 SXM4 80GB", "MI300X"])
def test_the_documented_networks_are_one_nic_per_gpu_and_slower_than_the_node(name):
    """One NIC of 200 or 400 Gb/s per GPU, below the node's link; a network hop above NVLink's."""
    g = wl.gpu(name)
    net = links.scaleout_bytes_per_s(g)
    assert net in (200e9 / 8, 400e9 / 8) and net < links.link_bytes_per_s(g)
    assert deploy_args(g, 16).net_hop_latency_s > deploy_args(g, 8).hop_latency_s


def test_no_documented_network_keeps_the_refusal_with_the_field_and_the_fix():
    with pytest.raises(InvalidInputError) as err:
        deploy_args(wl.gpu("L40S"), 16)
    text = str(err.value)
    assert "'L40S'" in text and "scaleout_links.csv has no row 'L40S'" in text
    assert "at most 8 GPUs per replica" in text
    assert links.scaleout_bytes_per_s(wl.gpu("H100 NVL")) is None  # a bridge: PCIe beyond it


def test_a_group_that_would_straddle_nodes_unevenly_is_refused():
    with pytest.raises(InvalidInputError, match="tensor-parallel group of 12 GPUs"):
        links.node_split(wl.gpu("H100 SXM"), Parallel(tp=12))
    assert links.node_split(wl.gpu("H100 SXM"), Parallel(tp=4, ep=16))["ep_nodes"] == 2.0


def test_the_gpus_that_now_answer_beyond_one_node_are_those_with_a_documented_network():
    """16 GPUs of an 8-GPU node: answered where data/scaleout_links.csv has the GPU (and its
    spec the node's link), refused elsewhere; the racks and GH200 hold 16 in one domain."""
    answered = set()
    for name in wl.gpus()["name"]:
        g = wl.gpu(name)
        try:
            deploy_args(g, 16)
        except InvalidInputError:
            continue
        if g.link_domain_gpus < 16:
            answered.add(name)
    assert answered == {"A100 SXM4 40GB", "A100 SXM4 80GB", "H100 SXM", "H200 SXM", "B200",
                        "MI300X", "MI325X"}  # fmt: skip
