"""symbolic == numeric: the lambdified functions evaluate the very sympy expressions."""

import numpy as np
import sympy as sp

from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy import estimate as E
from wattgpu_lite.energy import symbolic as S


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
        num = E.paper_request_j(params, n_l, d, t_in, t_out)
        sub = consts | {S.N: params, S.n_l: int(n_l), S.d: int(d), S.T_in: int(t_in),
                        S.T_out: int(t_out)}  # fmt: skip
        exact = float(S.energy_request.subs(sub).evalf(30))
        assert np.isclose(num, exact, rtol=1e-12)


def test_prefill_multiplier_piecewise_matches_table():
    m = S.prefill_multiplier(D.prefill_buckets())
    for t_in, expect in [
        (1, 1.2),
        (2048, 1.2),
        (2049, 1.8),
        (5120, 1.8),
        (10240, 3.0),
        (10241, 4.0),
    ]:
        assert float(m.subs(S.T_in, t_in)) == expect


def test_attention_crossover_is_a_root():
    roots = [r for r in S.crossover_output_length() if r.is_real is not False]
    assert roots, "sympy must find the output length where attention reads equal compute"
    diff = S.energy_attn_read - S.energy_compute
    assert sp.simplify(diff.subs(S.T_out, roots[0])) == 0


def test_physical_flops_are_paper_flops_with_k2():
    expect = 2 * S.N * S.T_out + 4 * S.n_l * S.d_q * S.context_sum
    assert sp.simplify(S.flops["decode"] - expect) == 0
