"""symbolic == numeric, and the sympy terms against hand-derived limits.

Limits: E → k (every expert active) gives the dense result; B = 1 reads exactly k
experts per MoE layer; B → ∞ reads all E; G = 1 (no collective) equals the single-GPU model;
the replica's static power is G·P_static; weight bytes scale with b_w.
"""

import numpy as np
import sympy as sp

from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy import estimate as E
from wattgpu_lite.energy import symbolic as S
from wattgpu_lite.energy import symbolic_parallel as SPAR
from wattgpu_lite.energy import symbolic_physical as SP


def _is_zero(expr) -> bool:
    """Whether ``expr`` is identically zero: expanded first (a sum of terms that cancel, seconds
    where ``sp.simplify`` takes a minute), else simplified."""
    return sp.expand(expr) == 0 or sp.simplify(expr) == 0


def _random_inputs(seed: int, n: int = 20):
    rng = np.random.default_rng(seed)
    return (
        rng.uniform(0.1e9, 120e9, n),
        rng.integers(4, 100, n),
        rng.integers(512, 12288, n),
        rng.integers(1, 20000, n),
        rng.integers(1, 20000, n),
    )


def test_paper_terms_match_sympy_on_random_inputs():
    a, e = D.paper_coefficients_j("H100")
    consts = D.paper_constants() | {S.alpha: a, S.e_mem: e}
    for params, n_l, d, t_in, t_out in zip(*_random_inputs(0, 10), strict=True):
        num = E.paper_request_j(params, n_l, d, t_in, t_out=t_out)
        sub = consts | {S.N: params, S.n_l: int(n_l), S.d: int(d), S.T_in: int(t_in),
                        S.T_out: int(t_out)}  # fmt: skip
        exact = float(S.energy_request.subs(sub).evalf(30))
        assert np.isclose(num, exact, rtol=1e-12)


def test_decode_context_is_the_sum_over_steps_and_prefill_the_causal_sum():
    assert _is_zero(S.context_sum - (S.T_out * S.T_in + S.T_out * (S.T_out - 1) / 2))
    exact = sp.expand(S.prefill_attention_exact)  # 2·n_l·d·T_in² + 2·n_l·d·T_in
    assert exact.coeff(S.T_in, 2) == 2 * S.n_l * S.d and exact.coeff(S.T_in, 1) == 2 * S.n_l * S.d
    assert sp.expand(S.flops_prefill).coeff(S.T_in, 2) == exact.coeff(S.T_in, 2)


def test_one_layer_flops_are_two_per_weight_plus_attention():
    f = sp.expand(S.flops_per_token_layer)
    assert f.coeff(S.ctx) == 4 * S.d_q and sp.expand(f - 4 * S.d_q * S.ctx) == sp.expand(
        2 * S.layer_matmul_params)  # fmt: skip


def test_prefill_multiplier_piecewise_matches_table():
    m = S.prefill_multiplier(D.prefill_buckets())
    for t_in, expect in [(1, 1.2), (2048, 1.2), (2049, 1.8), (5120, 1.8), (10240, 3.0),
                         (10241, 4.0)]:  # fmt: skip
        assert float(m.subs(S.T_in, t_in)) == expect


def test_attention_crossover_is_a_root():
    roots = [r for r in S.crossover_output_length() if r.is_real is not False]
    assert roots, "sympy must find the output length where attention reads equal compute"
    diff = S.energy_attn_read - S.energy_compute
    assert sp.simplify(diff.subs(S.T_out, roots[0])) == 0  # expanding a root is slower


def test_physical_flops_are_paper_flops_with_k2_on_active_parameters():
    expect = 2 * SP.N_act * S.T_out + 4 * S.n_l * S.d_q * S.context_sum
    assert _is_zero(SP.flops["decode"].subs(SP.f_sw, 0) - expect)  # no sliding layer
    # every layer sliding, with a window beyond the context: the same FLOPs
    wide = SP.flops["decode"].subs({SP.f_sw: 1, SP.W_sw: S.T_in + S.T_out + 1})
    assert _is_zero(wide - expect)


def test_batch_of_one_reads_exactly_k_experts_and_an_infinite_batch_all():
    assert _is_zero(SP.experts_touched(1) - SP.k)
    assert sp.limit(SP.experts_touched(S.B).subs({SP.E: 8, SP.k: 2}), S.B, sp.oo) == 8
    assert sp.limit(SP.experts_touched(S.B).subs({SP.E: 256, SP.k: 8}), S.B, sp.oo) == 256


def test_every_expert_active_gives_the_dense_model():
    """E → k: all E experts serve every token, so the model is dense with N = N_always + L·E·N_e
    (tensor parallel: expert parallelism has no meaning for a dense model and is refused)."""
    n_total = SP.N_all + SP.L_moe * SP.E * SP.N_exp
    for phase in SP.PHASES:
        no_dp = {SP.x_ep: 0, SPAR.n_tp: SP.G}  # attention split over the replica, no all-to-all
        # one width and one format for every weight (b_e = b_w, F_e = F_peak, alpha_e = alpha)
        one_format = {SP.b_e: S.b_w, SP.F_e: SP.F_peak, SP.alpha_e: S.alpha}
        moe = {c: t.subs(no_dp).subs(one_format) for c, t in SP.phase_terms(phase).items()}
        dense = {c: t.subs(SP.L_moe, 0).subs(SP.N_all, n_total) for c, t in moe.items()}
        for comp in moe:
            assert _is_zero(moe[comp].subs(SP.k, SP.E) - dense[comp].subs(SP.k, SP.E))


def test_one_gpu_without_collectives_equals_the_single_gpu_model():
    one = {
        SP.G: 1,
        SPAR.n_tp: 1,
        SPAR.n_ep: 1,
        SPAR.N_tp: 1,  # one node
        SPAR.N_ep: 1,
        SP.t_0: 0,
        SPAR.t_grp: 0,
        SP.F_e: SP.F_peak,
        SP.alpha_e: SP.alpha,
    }  # one GPU, one format for every tensor group
    for phase in SP.PHASES:
        terms = SP.phase_terms(phase)
        assert _is_zero(terms["communication"].subs(one))
        single = sp.Max(SP.flops[phase] / SP.F_peak, sum(SP.bits[phase].values()) / (8 * SP.BW_peak),
                        SP.kappa * (SP.alpha * SP.flops[phase] + SP.e_mem * sum(
                            SP.bits[phase].values())) / (SP.P_tdp - SP.P_static))  # fmt: skip
        assert _is_zero(terms["static"].subs(one) - SP.P_static * single)


def test_each_tensor_group_is_timed_and_charged_at_its_own_peak():
    """t_C = (C − C_e)/(G·F_peak) + C_e/(G·F_e) with C_e = 2·k·n_moe·N_e per token: the routed
    experts' FLOPs move to F_e and alpha_e, the rest stays; one format gives C/(G·F_peak)."""
    per_token = {"prefill": S.T_in, "decode": S.T_out}
    for phase, tokens in per_token.items():
        c_e = SP.flops_experts[phase]
        assert _is_zero(c_e - 2 * SP.k * SP.L_moe * SP.N_exp * tokens)
        assert sp.diff(SP.compute_s(phase), SP.F_e) == -c_e / (SP.G * SP.F_e**2)
        same = SP.compute_s(phase).subs(SP.F_e, SP.F_peak)
        assert _is_zero(same - SP.flops[phase] / (SP.G * SP.F_peak))
        assert _is_zero(SP.compute_j(phase).subs(SP.alpha_e, S.alpha) - S.alpha * SP.flops[phase])
        assert SP.compute_s(phase).subs(SP.L_moe, 0) == SP.flops[phase].subs(SP.L_moe, 0) / (
            SP.G * SP.F_peak
        )


def test_static_energy_is_the_replica_power_times_the_time():
    for phase in SP.PHASES:
        terms = SP.phase_terms(phase)
        held = terms["static"] + terms["communication"]
        assert _is_zero(held - SP.G * SP.P_static * SP.phase_time(phase))
        assert sp.diff(terms["static"], SP.P_static).has(SP.G)


def test_weight_bytes_scale_with_bits_per_weight():
    for phase in SP.PHASES:
        q = SP.bits[phase]["parameter_reads"].subs(SP.b_e, S.b_w)  # one width for every weight
        assert _is_zero(q.subs(S.b_w, 8) / q.subs(S.b_w, 16) - sp.Rational(1, 2))
        assert _is_zero(sp.diff(q, S.b_w) * S.b_w - q)  # proportional to b_w


def test_tensor_parallel_allreduce_by_hand():
    """Two all-reduces per layer and step, each t_0 + the faster of the ring,
    2(G−1)t_hop + 2(G−1)/G · B·d·2 bytes / BW, and recursive doubling, log2 G·(t_hop + B·d·2 / BW)."""
    tp = {
        SP.x_ep: 0,
        SP.b_a: 16,
        SPAR.n_tp: SP.G,
        SPAR.n_ep: 1,
        SPAR.t_grp: 0,
        SPAR.N_tp: 1,
        SPAR.N_ep: 1,
    }  # fmt: skip  (one node: the scale-out term is tests/energy/test_scaleout.py's)
    step = SP.step_comm_s(S.B).subs(tp)
    msg = S.B * S.d * 2
    ring = 2 * (SP.G - 1) * SP.t_hop + 2 * (SP.G - 1) / SP.G * msg / SP.BW_link
    doubling = sp.log(SP.G, 2) * (SP.t_hop + msg / SP.BW_link)
    by_hand = 2 * S.n_l * sp.Min(1, SP.G - 1) * (SP.t_0 + sp.Min(ring, doubling))
    assert _is_zero(step - by_hand)
