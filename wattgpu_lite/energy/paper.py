"""Paper mode numerics: the printed equations of Vartziotis et al. (arXiv 2607.26571v1), lambdified.

Each function is ``sympy.lambdify`` of an expression of :mod:`wattgpu_lite.energy.symbolic` with the Table 1-2
constants substituted (from ``data/energy_coefficients.csv``); all broadcast over numpy arrays.
Units: ``params`` is N (parameters, not billions); energies in J.
"""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp

from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy import symbolic as S

_ARGS = (S.N, S.n_l, S.d, S.T_in, S.T_out, S.alpha, S.e_mem)
_CONST = D.paper_constants()


def _paper_fn(expr: sp.Expr):
    """Lambdify a paper-mode expression of (N, n_l, d, T_in, T_out, alpha, e) once."""
    return sp.lambdify(_ARGS, expr.subs(_CONST), "numpy")


_PAPER_TERMS = {
    "compute_prefill": _paper_fn(S.alpha * S.flops_prefill),
    "compute_decode": _paper_fn(S.alpha * S.flops_decode),
    "parameter_reads": _paper_fn(S.energy_params),
    "kv_writes": _paper_fn(S.energy_kv_write),
    "attention_reads": _paper_fn(S.energy_attn_read),
}
_OUT_PER_TOKEN = _paper_fn(S.energy_out_per_token)
_M = sp.lambdify(S.T_in, S.prefill_multiplier(D.prefill_buckets()), "numpy")


def _dims(n_layers, d_model):
    """(n_l, d) with missing values as 0, so the attention terms vanish (paper: dense terms only)."""
    n_l = np.nan_to_num(np.asarray(n_layers if n_layers is not None else 0, dtype=float))
    d = np.nan_to_num(np.asarray(d_model if d_model is not None else 0, dtype=float))
    if np.any(n_l * d == 0):
        warnings.warn(
            "n_layers or d_model missing: paper mode falls back to the dense K·N terms only "
            "(no attention FLOPs or KV traffic), as the paper does.",
            stacklevel=3,
        )
    return n_l, d


def paper_terms_j(params, n_layers, d_model, t_in, t_out, hardware: str = "H100") -> dict:
    """Per-request energy terms (J) of the printed equations: E = alpha·C + e·Q·eta(N).

    ``params`` is N (parameters, not billions). Keys: compute_prefill, compute_decode,
    parameter_reads, kv_writes, attention_reads. Broadcasts over arrays.
    """
    a, e = D.paper_coefficients_j(hardware)
    n_l, d = _dims(n_layers, d_model)
    args = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (params, n_l, d, t_in, t_out)))
    return {k: np.asarray(f(*args, a, e), dtype=float) for k, f in _PAPER_TERMS.items()}


def paper_request_j(params, n_layers, d_model, t_in, t_out, hardware: str = "H100"):
    """E_request (J) from the printed equations (the sum of :func:`paper_terms_j`)."""
    return sum(paper_terms_j(params, n_layers, d_model, t_in, t_out, hardware).values())


def paper_out_per_token_j(params, hardware: str = "H100"):
    """Simplified estimator, E_out/token = alpha·K·N (J): 3.12 mJ per B params on H100."""
    a, e = D.paper_coefficients_j(hardware)
    p = np.asarray(params, dtype=float)
    return np.asarray(_OUT_PER_TOKEN(p, 0, 0, 0, 0, a, e), dtype=float)


def paper_in_per_token_j(params, t_in, hardware: str = "H100"):
    """Simplified estimator, E_in/token = M(T_in)·E_out/token (J), M from Eq. 23."""
    return np.asarray(_M(np.asarray(t_in, dtype=float)), dtype=float) * paper_out_per_token_j(
        params, hardware
    )


def paper_request_simple_j(params, t_in, t_out, hardware: str = "H100"):
    """Simplified E_request = T_in·E_in/token + T_out·E_out/token (J)."""
    e_in = paper_in_per_token_j(params, t_in, hardware)
    return np.asarray(t_in) * e_in + np.asarray(t_out) * paper_out_per_token_j(params, hardware)
