"""The energy equations of LLM inference, once, as sympy expressions (the derivation is the code).

Two readings share the same FLOP terms:

* **paper** — Vartziotis et al., "From Tokens to Watt-hours" (arXiv 2607.26571v1, CC BY 4.0):
  ``E = alpha·C + e·Q·eta(N)`` with ``C`` = prefill + decode FLOPs (``K·N`` per token plus the
  attention terms) and ``Q`` = parameter, KV-write and attention-read bits with the calibrated
  factors ``gamma(N)``, ``s_attn(N)``, ``eta(N)`` of its Table 2; and the simplified estimator
  ``E_out/token = alpha·K·N``, ``E_in/token = M(T_in)·E_out/token``.
* **physical** — the same FLOPs with ``K -> 2`` (forward pass) and ``d -> n_heads·head_dim``;
  KV bytes from ``n_kv_heads·head_dim`` (GQA); weights re-read at every decode step and shared by
  the ``B`` sequences of a batch; static power × time, time from a roofline with a power limit.

Units: SI inside — alpha in J/FLOP, e in J/bit, bits, FLOPs, W, s, J.
:mod:`wattgpu_lite.energy.estimate` lambdifies these very objects; notebook 01 displays them.
"""

from __future__ import annotations

import sympy as sp

_pos = {"positive": True}
# model and workload
N, n_l, d, T_in, T_out, K = sp.symbols("N n_ell d T_in T_out K", **_pos)
d_q, d_kv, B = sp.symbols("d_q d_kv B", **_pos)
# energy coefficients and word sizes
alpha, e_mem = sp.symbols("alpha_TC e_HBM", **_pos)
b_w, b_kv = sp.symbols("b_w b_kv", **_pos)
# Table 2 calibration constants of the paper
N0, gamma0, gamma_exp = sp.symbols("N_0 gamma_0 beta_gamma", **_pos)
s_coef, s_exp, eta_coef, eta_exp = sp.symbols("c_s beta_s c_eta beta_eta", **_pos)
# physical mode: GPU peak rates, power, dynamic-energy factor kappa
F_peak, BW_peak, P_tdp, P_static, kappa = sp.symbols("F_peak BW_peak P_TDP P_static kappa", **_pos)

# --- FLOPs (paper Eqs. for C_pre, C_dec) ----------------------------------------------------------
#: sum over the T_out decode steps of the context each new token attends to
context_sum = T_out * T_in + T_out * (T_out - 1) / 2
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


def prefill_multiplier(buckets: list[tuple[float, float]], t_in: sp.Symbol = T_in) -> sp.Piecewise:
    """M(T_in) as a sympy Piecewise from ``[(upper_bound_tokens, multiplier), ...]`` (Eq. 23)."""
    ordered = sorted(buckets)
    pieces = [(sp.Float(m), t_in <= ub) for ub, m in ordered if ub != float("inf")]
    return sp.Piecewise(*pieces, (sp.Float(ordered[-1][1]), True))


# --- physical mode, per request, prefill and decode apart -----------------------------------------
_phys = {K: 2, d: d_q}
flops = {"prefill": flops_prefill.subs(_phys), "decode": flops_decode.subs(_phys)}
bits = {
    "prefill": {
        "parameter_reads": b_w * N / B,  # one pass over the weights, shared by the batch
        "kv_writes": 2 * b_kv * d_kv * n_l * T_in,
        "attention_reads": sp.Integer(0),  # flash attention keeps prompt K/V on chip
    },
    "decode": {
        "parameter_reads": b_w * N * T_out / B,  # all weights re-read at every step
        "kv_writes": 2 * b_kv * d_kv * n_l * T_out,
        "attention_reads": 2 * b_kv * d_kv * n_l * context_sum,
    },
}


def phase_terms(phase: str) -> dict[str, sp.Expr]:
    """Energy terms of one phase (J per request): compute, the three traffic terms, static.

    dynamic = kappa·(alpha·C + e·Q);  time = max(C/F_peak, Q/(8·BW_peak), dynamic/(P_TDP − P_static))
    (a roofline with a power ceiling: the GPU cannot draw more than its TDP);  static = P_static·time.
    Times are per request: the batch's step time divided by its B sequences.
    """
    q = bits[phase]
    terms = {"compute": kappa * alpha * flops[phase]}
    terms |= {name: kappa * e_mem * bits_ for name, bits_ in q.items()}
    dynamic = sum(terms.values())
    traffic = sum(q.values())
    time = sp.Max(flops[phase] / F_peak, traffic / (8 * BW_peak), dynamic / (P_tdp - P_static))
    terms["static"] = P_static * time
    return terms


def phase_time(phase: str) -> sp.Expr:
    """Roofline time of one phase (s per request) — the ``time`` of :func:`phase_terms`."""
    return phase_terms(phase)["static"] / P_static


def crossover_output_length() -> list[sp.Expr]:
    """T_out where attention-read energy equals compute energy (paper mode), solved by sympy."""
    return sp.solve(sp.Eq(energy_attn_read, energy_compute), T_out)
