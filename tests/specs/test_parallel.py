"""The layout of a replica (specs.layout) and what it adds to a step (energy.symbolic_parallel).

Limits of the derivation, hand-computed collectives, the layout's validation, memory and KV
capacity, and a ranking the communication terms decide.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import sympy as sp

import wattgpu_lite as wl
from wattgpu_lite.energy import symbolic as S
from wattgpu_lite.energy import symbolic_parallel as SPAR
from wattgpu_lite.energy import symbolic_physical as SP
from wattgpu_lite.energy.args import deploy_args
from wattgpu_lite.energy.occupancy import kv_capacity_seqs, kv_copies, replica_weight_bytes
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.specs.layout import Parallel

QWEN_MOE = "Qwen/Qwen3-30B-A3B"  # 128 experts, top-8, 32 heads / 4 KV heads, 48 layers
TOUCHED = SP.experts_touched(S.B)
ONE_NODE = {
    SPAR.N_tp: 1,
    SPAR.N_ep: 1,
}  # every group inside one node (tests/energy/test_scaleout.py)


def test_one_gpu_of_a_dense_model_adds_nothing_to_todays_step():
    one = {SPAR.G: 1, SPAR.n_tp: 1, SPAR.n_ep: 1, SP.L_moe: 0, **ONE_NODE}
    assert sp.simplify(SPAR.parallel_step_s(S.B, TOUCHED).subs(one)) == 0
    for phase in SP.PHASES:
        assert sp.simplify(SP.comm_s[phase].subs(one)) == 0


def test_one_gpu_of_a_moe_adds_only_the_expert_groups():
    one = {SPAR.G: 1, SPAR.n_tp: 1, SPAR.n_ep: 1, **ONE_NODE}
    step = SPAR.parallel_step_s(S.B, TOUCHED).subs(one)
    assert sp.simplify(step - SP.L_moe * SPAR.t_grp * (TOUCHED - SP.k)) == 0


@pytest.mark.parametrize(
    "layout",
    [
        {SPAR.n_tp: SPAR.G, SPAR.x_ep: 0},  # TP (and TP·EP)
        {SPAR.n_tp: 1, SPAR.n_ep: SPAR.G, SPAR.x_ep: 1},
    ],
)  # DP·EP
def test_ideal_links_give_the_ideal_split(layout):
    """t_0, t_hop → 0 and BW_link → ∞: no collective time, whatever the layout."""
    comm = SPAR.comm_step_s(S.B).subs(layout).subs({SPAR.t_0: 0, SPAR.t_hop: 0, **ONE_NODE})
    assert sp.limit(comm.subs({SPAR.G: 8, SPAR.n_ep: 8}), SPAR.BW_link, sp.oo) == 0


def test_every_expert_active_leaves_no_expert_groups():
    """E → k: a step touches exactly the k experts every token needs: the dense model."""
    term = SPAR.expert_groups_s(TOUCHED).subs(SP.E, SP.k)
    assert sp.simplify(term) == 0


def test_a_batch_of_one_touches_no_further_expert():
    assert sp.simplify(SPAR.expert_groups_s(SP.experts_touched(1))) == 0


def _allreduce_s(message_b: float, n: int, t_0=6.6e-6, hop=0.6e-6, bw=450e9) -> float:
    ring = 2 * (n - 1) * hop + 2 * (n - 1) / n * message_b / bw
    doubling = math.log2(n) * (hop + message_b / bw)
    return t_0 + min(ring, doubling)


def test_small_messages_take_recursive_doubling_and_large_ones_the_ring():
    """The stated rule: at 8 GPUs a decode step's 16 kB goes by recursive doubling (3 hops, not
    14), a prefill's 64 MB by the ring (7/4 of the message per GPU, not 3)."""
    subs = {SPAR.t_0: 6.6e-6, SPAR.t_hop: 0.6e-6, SPAR.BW_link: 450e9}
    for m_b, ring_wins in ((2 * 4096 * 2, False), (4096 * 4096 * 2 * 2, True)):
        got = float(SPAR.allreduce_s(sp.Float(m_b), 8).subs(subs))
        ring = 6.6e-6 + float(SPAR.ring_s(sp.Float(m_b), 8).subs(subs))
        assert got == pytest.approx(_allreduce_s(m_b, 8), rel=1e-12)
        assert (got == pytest.approx(ring, rel=1e-12)) is ring_wins


def test_dp_attention_sends_routed_copies_by_all_to_all():
    """DP8·EP8, per MoE layer and step: dispatch + combine, each GPU sending 7/8 of its k·M/8."""
    subs = {SPAR.G: 8, SPAR.n_tp: 1, SPAR.n_ep: 8, SPAR.x_ep: 1, SP.n_l: 48, SP.L_moe: 48,
            SP.k: 8, SP.d: 2048, SPAR.b_a: 16, SPAR.t_0: 6.6e-6, SPAR.t_hop: 0.6e-6,
            SPAR.BW_link: 450e9, **ONE_NODE}  # fmt: skip
    got = float(SPAR.comm_step_s(sp.Integer(64)).subs(subs))
    a2a = 6.6e-6 + 7 * 0.6e-6 + 7 / 64 * 8 * 64 * 2048 * 2 / 450e9
    assert got == pytest.approx(2 * 48 * a2a, rel=1e-12)  # the attention group of 1 GPU: none


def test_layout_validation_names_the_field_and_the_fix():
    moe, dense = wl.llm(QWEN_MOE), wl.llm("meta-llama/Llama-3.1-8B-Instruct")
    with pytest.raises(InvalidInputError, match="tp=3.*divide 32"):
        Parallel(tp=3).check_for(moe)
    with pytest.raises(InvalidInputError, match="ep=8.*dense"):
        Parallel(ep=8).check_for(dense)
    with pytest.raises(InvalidInputError, match="ep=48.*divide 128"):
        Parallel(tp=1, ep=48).check_for(moe)
    with pytest.raises(InvalidInputError, match="multiple of tp"):
        Parallel(tp=4, ep=6)
    with pytest.raises(InvalidInputError, match="Parallel.tp"):
        Parallel(tp=0)
    with pytest.raises(InvalidInputError, match="give the layout once"):
        wl.predict(QWEN_MOE, "H100 SXM", batch=8, num_gpus=2, parallel=Parallel(tp=4))


def test_layouts_know_their_gpus_and_attention_groups():
    assert (Parallel(tp=4).num_gpus, Parallel(tp=4).dp_attention) == (4, False)
    assert (Parallel(tp=8, ep=8).dp, Parallel(tp=8, ep=8).label) == (1, "TP8·EP8")
    assert (Parallel(ep=8).dp, Parallel(ep=8).label, Parallel(tp=2, ep=8).dp) == (8, "DP8·EP8", 4)
    ep8 = deploy_args(wl.gpu("H100 SXM"), Parallel(ep=8))
    assert (ep8.num_gpus, ep8.tp, ep8.ep) == (8.0, 1.0, 8.0)
    assert ep8.expert_dispatch == 1.0  # all-to-all
    assert deploy_args(wl.gpu("H100 SXM"), Parallel(tp=8, ep=8)).expert_dispatch == 0.0


def test_num_gpus_stays_tensor_parallel():
    a = wl.predict(QWEN_MOE, "H100 SXM", batch=16, num_gpus=4)
    b = wl.predict(QWEN_MOE, "H100 SXM", batch=16, parallel=Parallel(tp=4))
    assert (a.itl_s, a.power_w) == (b.itl_s, b.power_w) and b.inputs.tp == 4
    e = wl.estimate_energy(QWEN_MOE, "H100 SXM", parallel=Parallel(ep=8))
    assert (e.num_gpus, e.tp, e.ep, e.expert_parallel) == (8, 1, 8, True)


def test_memory_follows_the_layout():
    """DP attention keeps dp copies of the always-read weights; TP copies an MLA cache on each
    of its GPUs (DeepSeek-R1) but splits GQA heads up to the KV-head count."""
    ds, qwen = wl.llm("deepseek-ai/DeepSeek-R1"), wl.llm(QWEN_MOE)
    extra = replica_weight_bytes(ds, Parallel(ep=8)) - replica_weight_bytes(ds, Parallel(tp=8))
    held = (ds.params_b - ds.params_routed_b) * 1e9  # every non-expert weight, input table too
    assert extra == pytest.approx(7 * held * ds.weight_bits / 8, rel=1e-9)
    assert (kv_copies(ds, Parallel(tp=8)), kv_copies(ds, Parallel(ep=8))) == (8, 1)
    assert (kv_copies(qwen, Parallel(tp=4)), kv_copies(qwen, Parallel(tp=8))) == (1, 2)
    h200 = wl.gpu("H200 SXM")
    tp_cap = kv_capacity_seqs(ds, h200, 32000, 1000, num_gpus=Parallel(tp=8))
    dp_cap = kv_capacity_seqs(ds, h200, 32000, 1000, num_gpus=Parallel(ep=8))
    assert dp_cap > 3 * tp_cap > 0


def _best(gpu: str, batch: int):
    table = wl.rank_gpus(QWEN_MOE, batch=batch, itl_sla_ms=1000, candidates=[gpu],
                         layouts=[Parallel(tp=8, ep=8), Parallel(ep=8)])  # fmt: skip
    return table.sort_values("energy_per_token_j").set_index("layout")


def test_the_link_decides_between_tp_and_dp_attention_experts():
    """Qwen3-30B-A3B on 8 GPUs at 256 sequences: over NVLink (H100 SXM) TP8·EP8 uses less energy
    per token; over PCIe (L40S) its all-reduces cost more than DP8·EP8's all-to-alls, and DP8·EP8
    wins. At one sequence TP8·EP8 wins on both (no replicated attention weights to read). The
    table says why. (Since the collectives' latency is fitted across harnesses, 16x NCCL's model,
    communication is half the step or more on every layout here.)"""
    nvlink, pcie = _best("H100 SXM", 256), _best("L40S", 256)
    assert nvlink.index[0] == "TP8·EP8" and pcie.index[0] == "DP8·EP8"
    assert pcie.loc["TP8·EP8", "comm_share"] > pcie.loc["DP8·EP8", "comm_share"]
    assert nvlink.loc["TP8·EP8", "comm_share"] < nvlink.loc["DP8·EP8", "comm_share"]
    assert pcie.loc["DP8·EP8", "layout_why"].startswith("DP8·EP8 beats TP8·EP8")
    assert _best("L40S", 1).index[0] == "TP8·EP8"


def test_a_moe_ranking_tries_every_layout_of_every_count():
    table = wl.rank_gpus(QWEN_MOE, batch=64, itl_sla_ms=1000, candidates=["H100 SXM"],
                         gpu_counts=(1, 2))  # fmt: skip
    assert sorted(table["layout"]) == ["DP2·EP2", "TP1", "TP2", "TP2·EP2"]
    assert np.all((table["comm_share"] >= 0) & (table["comm_share"] <= table["layout_share"]))
    assert table.loc[table["layout"] == "TP1", "comm_share"].iloc[0] == pytest.approx(0, abs=1e-12)


def test_predict_many_takes_a_layout_per_row():
    frame = pd.DataFrame({"llm": [QWEN_MOE] * 3, "gpu": ["L40S"] * 3, "batch": [128.0] * 3,
                          "tp": [8, 8, 1], "ep": [1, 8, 8]})  # fmt: skip
    out = wl.predict_many(frame)
    one = wl.predict(QWEN_MOE, "L40S", batch=128, parallel=Parallel(ep=8))
    assert out["itl_s"].iloc[2] == pytest.approx(one.itl_s, rel=1e-12)
    assert out["itl_s"].nunique() == 3 and (out["status"] == "ok").all()
