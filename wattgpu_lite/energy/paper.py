"""Paper mode numerics: the printed equations of Vartziotis et al. (arXiv 2607.26571v1), generated.

Each function is ``sympy.lambdify`` of an expression of :mod:`wattgpu_lite.energy.symbolic`,
written once as Python source to :mod:`wattgpu_lite.energy._paper_generated` by
:mod:`wattgpu_lite.energy.codegen` (a test regenerates it), so paper mode runs without sympy. The
Table 1-2 constants (K, word sizes, the calibrated factors) are *arguments* of the generated code,
not baked in: every function takes ``constants`` — a {sympy symbol: value} dict, by default
:func:`wattgpu_lite.energy.coefficients.paper_constants` — so changing one (``consts[S.K] = 2``)
changes the result. All broadcast over numpy arrays. Units: ``params`` is N (parameters, not
billions); energies in J.
"""

from __future__ import annotations

import warnings

import numpy as np

from wattgpu_lite.energy import _paper_generated, coefficients
from wattgpu_lite.energy.breakdown import J_PER_WH

TERMS = _paper_generated.TERMS
_TERMS, _OUT_PER_TOKEN, _M = (
    _paper_generated.terms,
    _paper_generated.out_per_token,
    _paper_generated.prefill_multiplier,
)


def _constants(constants: dict | None) -> dict[str, float]:
    """{symbol name: value} of :data:`~wattgpu_lite.energy.symbolic.PAPER_CONSTANTS` from
    ``constants`` (keys: the symbols, matched by name; default: the paper's, read without sympy)."""
    if constants is None:
        return {
            name: coefficients.value(coefficients.PAPER_SYMBOLS[name])
            for name in _paper_generated.CONSTANT_NAMES
        }
    by_name = {str(sym): val for sym, val in constants.items()}
    return {name: float(by_name[name]) for name in _paper_generated.CONSTANT_NAMES}


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


def paper_terms_j(
    params, n_layers, d_model, t_in, *, t_out, hardware: str = "H100", constants: dict | None = None
) -> dict:
    """Per-request energy terms (J) of the printed equations: E = alpha·C + e·Q·eta(N).

    ``params`` is N (parameters, not billions). Keys: :data:`TERMS`. Broadcasts over arrays.
    """
    a, e = coefficients.paper_coefficients_j(hardware)
    n_l, d = _dims(n_layers, d_model)
    args = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (params, n_l, d, t_in, t_out)))
    model = dict(zip(("N", "n_ell", "d", "T_in", "T_out"), args, strict=True))
    out = _TERMS(**model, alpha_TC=a, e_HBM=e, **_constants(constants))
    return {
        k: np.broadcast_to(np.asarray(v, dtype=float), args[0].shape).copy()
        for k, v in zip(TERMS, out, strict=True)
    }


def paper_request_j(
    params, n_layers, d_model, t_in, *, t_out, hardware: str = "H100", constants: dict | None = None
):
    """E_request (J) from the printed equations (the sum of :func:`paper_terms_j`)."""
    return sum(
        paper_terms_j(
            params, n_layers, d_model, t_in, t_out=t_out, hardware=hardware, constants=constants
        ).values()
    )


def paper_out_per_token_j(params, hardware: str = "H100", constants: dict | None = None):
    """Simplified estimator, E_out/token = alpha·K·N (J): 3.12 mJ per B params on H100."""
    a, e = coefficients.paper_coefficients_j(hardware)
    p = np.asarray(params, dtype=float)
    out = _OUT_PER_TOKEN(
        N=p, n_ell=0, d=0, T_in=0, T_out=0, alpha_TC=a, e_HBM=e, **_constants(constants)
    )
    return np.asarray(out, dtype=float)


def paper_in_per_token_j(params, t_in, hardware: str = "H100", constants: dict | None = None):
    """Simplified estimator, E_in/token = M(T_in)·E_out/token (J), M from Eq. 23."""
    m = np.asarray(_M(np.asarray(t_in, dtype=float)), dtype=float)
    return m * paper_out_per_token_j(params, hardware, constants)


def ecologits_j_per_token(params_active_b) -> np.ndarray:
    """EcoLogits' GPU energy per output token, α·e^(β·B)·N_active[B] + γ Wh at its fixed batch
    B = 64, in J: no GPU, no prompt length (as PAPERS.md quotes it; the constants are
    data/energy_coefficients' ``ecologits_*``). The one copy the energy validation (notebook 01b)
    and the hybrid's external check compare against; broadcasts over ``params_active_b``."""
    c = {
        k: coefficients.value(f"ecologits_{k}", "ecologits")
        for k in ("alpha", "beta", "gamma", "batch")
    }
    n_b = np.asarray(params_active_b, dtype=float)
    return (c["alpha"] * np.exp(c["beta"] * c["batch"]) * n_b + c["gamma"]) * J_PER_WH
