"""The energy equations of LLM inference, once, as sympy expressions (the derivation is the code).

Two readings share the same FLOP terms:

* **paper** — Vartziotis et al., "From Tokens to Watt-hours" (arXiv 2607.26571v1, CC BY 4.0):
  ``E = alpha·C + e·Q·eta(N)`` with ``C`` = prefill + decode FLOPs (``K·N`` per token plus the
  attention terms) and ``Q`` = parameter, KV-write and attention-read bits with the calibrated
  factors ``gamma(N)``, ``s_attn(N)``, ``eta(N)`` of its Table 2; and the simplified estimator
  ``E_out/token = alpha·K·N``, ``E_in/token = M(T_in)·E_out/token``.
* **physical** (:mod:`wattgpu_lite.energy.symbolic_physical`) — the same FLOPs with ``K -> 2``
  from the *active* parameters, weights re-read at every decode step (the experts a batch touches),
  GQA/MLA-aware KV bytes, tensor/expert parallelism over ``G`` GPUs, static power × time.

Units: SI inside — alpha in J/FLOP, e in J/bit, bits, FLOPs, W, s, J. Symbols and their units are
listed in :data:`wattgpu_lite.energy.glossary.GLOSSARY`. The numeric functions are lambdified from
these very objects (:mod:`~wattgpu_lite.energy.paper`, :mod:`~wattgpu_lite.energy.physical`).
"""

from __future__ import annotations

import sympy as sp

_pos = {"positive": True}
# model and workload
N, n_l, d, T_in, T_out, K = sp.symbols("N n_ell d T_in T_out K", **_pos)
B = sp.Symbol("B", **_pos)
#: summation indices: decode step j (0-based), prompt position i (1-based)
j, i = sp.symbols("j i", integer=True, nonnegative=True)
# energy coefficients and word sizes
alpha, e_mem = sp.symbols("alpha_TC e_HBM", **_pos)
b_w, b_kv = sp.symbols("b_w b_kv", **_pos)
# Table 2 calibration constants of the paper
N0, gamma0, gamma_exp = sp.symbols("N_0 gamma_0 beta_gamma", **_pos)
s_coef, s_exp, eta_coef, eta_exp = sp.symbols("c_s beta_s c_eta beta_eta", **_pos)

# --- FLOPs of one token in one layer (a dense decoder) --------------------------------------------
d_q, w_kv, d_ff, ctx = sp.symbols("d_q w_kv d_ff c", **_pos)
#: weights a token multiplies in one layer: Q (d·d_q), K and V (d·w_kv), output (d_q·d), gated MLP
layer_matmul_params = d * d_q + d * w_kv + d_q * d + 3 * d * d_ff
#: 2 FLOPs (multiply + add) per weight, plus q·k over c cached keys and the weighted sum of c values
flops_per_token_layer = 2 * layer_matmul_params + 2 * d_q * ctx + 2 * d_q * ctx

# --- FLOPs of a request (paper Eqs. for C_pre, C_dec) ---------------------------------------------
#: decode step j attends to the prompt and the j tokens generated before it; summed over T_out steps
context_sum = sp.summation(T_in + j, (j, 0, T_out - 1))
#: causal prefill: prompt position i attends to i keys, 4·d FLOPs each; the paper keeps 2·d·T_in²
prefill_attention_exact = n_l * sp.summation(4 * d * i, (i, 1, T_in))
flops_prefill = K * N * T_in + 2 * n_l * d * T_in**2
flops_decode = K * N * T_out + 4 * n_l * d * context_sum

# --- calibrated factors (paper Table 2) -----------------------------------------------------------
gamma = gamma0 * (N / N0) ** gamma_exp  # share of parameter bits fetched per request
s_attn = 1 + s_coef * (N / N0) ** s_exp  # attention read amplification
eta = 1 + eta_coef * (N / N0) ** eta_exp  # global HBM inefficiency

# --- traffic in bits (paper) ----------------------------------------------------------------------
bits_params = b_w * N * gamma
bits_kv_write = 2 * b_kv * d * n_l * T_out
bits_attn_read = s_attn * 2 * b_kv * d * n_l * context_sum

# --- energy (paper Eq. E = alpha·C + e·Q·eta) -----------------------------------------------------
energy_compute = alpha * (flops_prefill + flops_decode)
energy_params = e_mem * eta * bits_params
energy_kv_write = e_mem * eta * bits_kv_write
energy_attn_read = e_mem * eta * bits_attn_read
energy_request = energy_compute + energy_params + energy_kv_write + energy_attn_read

# --- simplified per-token estimator (paper Eqs. 19-23) --------------------------------------------
energy_out_per_token = alpha * K * N
M = sp.Symbol("M", **_pos)  # prefill multiplier M(T_in), a piecewise constant
energy_in_per_token = M * energy_out_per_token
energy_request_simple = T_in * energy_in_per_token + T_out * energy_out_per_token

#: the paper's constants, in the order :func:`wattgpu_lite.energy.paper` takes them as arguments
PAPER_CONSTANTS = (K, b_w, b_kv, N0, gamma0, gamma_exp, s_coef, s_exp, eta_coef, eta_exp)


def prefill_multiplier(buckets: list[tuple[float, float]], t_in: sp.Symbol = T_in) -> sp.Piecewise:
    """M(T_in) as a sympy Piecewise from ``[(upper_bound_tokens, multiplier), ...]`` (Eq. 23)."""
    ordered = sorted(buckets)
    pieces = [(sp.Float(m), t_in <= ub) for ub, m in ordered if ub != float("inf")]
    return sp.Piecewise(*pieces, (sp.Float(ordered[-1][1]), True))


def crossover_output_length() -> list[sp.Expr]:
    """T_out where attention-read energy equals compute energy (paper mode), solved by sympy."""
    return sp.solve(sp.Eq(energy_attn_read, energy_compute), T_out)
