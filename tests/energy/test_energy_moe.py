"""Mixture-of-experts, precision and several GPUs in physical mode, on a Mixtral-8x7B-shaped model.

Mixtral-8x7B: 32 layers, d 4096, 8 experts of 3·4096·14336 parameters, top-2 (Mistral AI's
config.json and model card: 46.7 B total, 12.9 B active).
"""

import dataclasses

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy.backbone.energy_terms import shipped_constants
from wattgpu_lite.energy.notes import experts_per_step
from wattgpu_lite.errors import InvalidInputError

EXPERT_B = 3 * 4096 * 14336 / 1e9
TABLE_B = 32000 * 4096 / 1e9  # the untied input table: gathered, one row a token
MIXTRAL = wl.LLM(
    name="mixtral-8x7b-shaped", model_type="mixtral", n_layers=32, hidden_size=4096,
    intermediate_size=14336, n_heads=32, n_kv_heads=8, head_dim=128, vocab_size=32000,
    context_length=32768, tie_embeddings=False, mlp_type="gated", params_b=46.70,
    params_nominal_b=46.7, in_wattgpu=False, source="test", params_active_b=46.70 - 32 * 6 *
    EXPERT_B - TABLE_B, n_experts=8, n_experts_active=2, n_moe_layers=32, params_expert_b=EXPERT_B,
)  # fmt: skip
UNIT_HW = (0.0, 1.0, 1e30, 1e30, 1e30, 0.0, 0.0, 1e30)  # energy terms are bit counts


def _bits(llm, batch, t_out=100, weights=None):
    return P.physical_evaluate(P.llm_args(llm, weights), (50, t_out, batch), UNIT_HW, kappa=1.0)[0]


def test_batch_of_one_reads_the_active_parameters_per_step():
    per_step = float(_bits(MIXTRAL, 1)["decode", "parameter_reads"]) / 100 / 16
    assert per_step == pytest.approx(MIXTRAL.params_always_b * 1e9 + 32 * 2 * EXPERT_B * 1e9 + 4096)
    assert per_step == pytest.approx(MIXTRAL.params_active_b * 1e9 + 4096)  # + the row gathered


def test_a_large_batch_reads_every_expert_and_shares_it():
    per_step = float(_bits(MIXTRAL, 4096)["decode", "parameter_reads"]) / 100 / 16 * 4096
    assert per_step == pytest.approx((MIXTRAL.params_b - TABLE_B) * 1e9 + 4096 * 4096)
    assert experts_per_step(MIXTRAL, 1) == pytest.approx(2)
    assert experts_per_step(MIXTRAL, 4) == pytest.approx(8 * (1 - 0.75**4))


def test_flops_follow_the_active_parameters():
    dense = dataclasses.replace(MIXTRAL, name="dense", n_experts=0, n_experts_active=0,
                                n_moe_layers=0, params_expert_b=0.0, params_active_b=0.0)  # fmt: skip
    per_token = {m.name: float(P.physical_evaluate(P.llm_args(m), (1, 1, 1), (1.0, 0, 1e30, 1e30,
                 1e30, 0.0, 1.0, 1e30), kappa=1.0)[0]["decode", "compute"]) for m in (MIXTRAL, dense)}  # fmt: skip
    attention = 4 * 32 * 4096 * 1  # one token attending to the one-token prompt
    assert per_token[MIXTRAL.name] == pytest.approx(2 * MIXTRAL.params_active_b * 1e9 + attention)
    assert per_token[MIXTRAL.name] < per_token["dense"] / 3


def test_every_expert_active_is_the_dense_model_numerically():
    """E → k on the argument tuples: all 8 of 8 experts active = a dense model of 46.7 B."""
    moe, dense = list(P.llm_args(MIXTRAL)), list(P.llm_args(MIXTRAL))
    streamed = (MIXTRAL.params_b - TABLE_B) * 1e9
    moe[0], moe[3] = streamed, 8.0  # N_act = N − the input table, k = E
    dense[0] = dense[1] = streamed
    dense[2:6] = [1.0, 1.0, 0.0, 0.0]
    hw = P.gpu_args(wl.gpu("H100 SXM"), 0.19, "spec")
    for batch in (1, 7, 256):
        a, b = (P.physical_evaluate(x, (500, 300, batch), hw, kappa=1.4)[0] for x in (moe, dense))
        # one closed-form expression, no fit: the two argument tuples differ only by rounding
        assert all(np.isclose(float(a[k]), float(b[k]), rtol=1e-12) for k in a)


def test_weight_bytes_scale_with_the_format():
    bf16 = float(_bits(MIXTRAL, 8)["decode", "parameter_reads"])
    assert float(_bits(MIXTRAL, 8, weights="fp8")["decode", "parameter_reads"]) == pytest.approx(
        bf16 / 2)  # fmt: skip
    assert float(_bits(MIXTRAL, 8, weights="fp4")["decode", "parameter_reads"]) == pytest.approx(
        bf16 * 4.25 / 16)  # fmt: skip
    kv = [float(_bits(MIXTRAL, 8, weights=w)["decode", "kv_writes"]) for w in ("bf16", "int4")]
    assert kv[0] == kv[1]  # the KV cache stays at 16 bits


def test_estimate_names_the_peak_and_notes_the_experts():
    est = wl.estimate_energy(
        MIXTRAL, "H100 SXM", t_in=500, t_out=300, batch=4, num_gpus=2, weights="fp8"
    )
    assert (est.weights, est.compute_peak, est.compute_peak_tflops) == ("fp8", "fp8", 1979.0)
    assert any("routed experts" in n for n in est.notes) and est.num_gpus == 2
    fp4 = wl.estimate_energy(
        MIXTRAL, "H100 SXM", t_in=500, t_out=300, batch=4, num_gpus=2, weights="fp4"
    )
    assert fp4.compute_peak == "fp16" and any("weight-only" in n for n in fp4.notes)
    b200 = wl.estimate_energy(MIXTRAL, "B200", t_in=500, t_out=300, batch=4, weights="fp4")
    assert (b200.compute_peak, b200.compute_peak_tflops) == ("fp4", 9000.0)


def test_experts_on_the_tensor_parallel_gpus_change_only_the_expert_groups_term():
    """vLLM's TP + --enable-expert-parallel: the same two all-reduces per layer; each GPU runs
    the grouped GEMM of its E/8 whole experts instead of a slice of every touched expert, so the
    expert-group time t_grp·(E_B − k) per MoE layer and step is divided by 8."""
    tp = wl.estimate_energy(MIXTRAL, "H100 SXM", t_in=500, t_out=300, batch=64, num_gpus=8)
    ep = wl.estimate_energy(MIXTRAL, "H100 SXM", t_in=500, t_out=300, batch=64, num_gpus=8,
                            expert_parallel=True)  # fmt: skip
    assert ep.expert_parallel and not tp.expert_parallel and (ep.tp, ep.ep) == (8, 8)
    same = ("compute", "parameter_reads", "kv_writes", "attention_reads", "static")
    assert all(ep.components_j[c] == pytest.approx(tp.components_j[c]) for c in same)
    c = shipped_constants()  # the replica idles at 8 × (idle_w + idle_fraction · TDP)
    t_grp, p_replica = c.expert_group_s, 8 * (c.idle_w + c.idle_fraction * 700)
    assert t_grp > 1e-7  # the shipped constants carry an expert-group time
    touched = {n: 8 * (1 - (1 - 2 / 8) ** n) for n in (64, 64 * 500)}
    per_step = {n: 32 * t_grp * (e - 2) * (1 - 1 / 8) for n, e in touched.items()}
    saved_s = 300 * per_step[64] / 64 + per_step[64 * 500] / 64
    diff = (tp.components_j["communication"] - ep.components_j["communication"]) / p_replica
    assert diff == pytest.approx(saved_s, rel=1e-6)


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(llm="meta-llama/Llama-3.1-8B-Instruct", num_gpus=2, expert_parallel=True), "dense"),
    (dict(llm=MIXTRAL, num_gpus=16, expert_parallel=True), "at least as many experts"),
    (dict(llm=MIXTRAL, num_gpus=3), "divide 32"),
    (dict(llm=MIXTRAL, gpu="MI250", num_gpus=2), "interconnect_gbs"),
    (dict(llm=MIXTRAL, weights="fp3"), "close matches"),
    (dict(llm=MIXTRAL, num_gpus=0), "num_gpus"),
])  # fmt: skip
def test_deployments_that_make_no_sense_are_refused(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        wl.estimate_energy(**({"gpu": "H100 SXM"} | kwargs))


def test_more_gpus_than_kv_heads_is_noted():
    est = wl.estimate_energy("meta-llama/Llama-3.1-8B-Instruct", "GB200", num_gpus=16)  # NVL72
    assert any("replicates KV heads" in n for n in est.notes)
    assert not wl.estimate_energy("meta-llama/Llama-3.1-8B-Instruct", "H100 SXM", num_gpus=8).notes
