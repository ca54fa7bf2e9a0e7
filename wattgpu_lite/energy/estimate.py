"""Numeric energy model, generated from :mod:`wattgpu_lite.energy.symbolic` by ``sympy.lambdify``.

Paper mode (Vartziotis et al. 2026) is in :mod:`energy_paper` (re-exported here); physical mode in
:mod:`energy_physical`.
Every ``paper_*`` function broadcasts over numpy arrays (a 10^6-point sweep is one call).
:func:`estimate_energy` is the user entry point: it resolves the LLM and GPU, checks the
workload and returns a tidy breakdown (one row per phase × component, J and Wh).
"""

from __future__ import annotations

import numbers

import pandas as pd

from wattgpu_lite.energy.breakdown import (  # noqa: F401  (re-exported: energy.estimate.*)
    COMPONENTS,
    J_PER_WH,
    breakdown_frame,
    check_tokens,
    components_j,
)
from wattgpu_lite.energy.paper import (  # noqa: F401  (re-exported: the paper-mode API lives in energy.*)
    paper_in_per_token_j,
    paper_out_per_token_j,
    paper_request_j,
    paper_request_simple_j,
    paper_terms_j,
)
from wattgpu_lite.energy.physical import physical_breakdown, resolve
from wattgpu_lite.errors import InvalidInputError


def _paper_breakdown(llm, gpu, t_in: int, t_out: int) -> pd.DataFrame:
    """Paper mode as a breakdown: weights counted once (prefill), no static term."""
    hw = "A100" if gpu.name.upper().startswith("A100") else "H100"
    n = llm.params_nominal_b * 1e9
    t = paper_terms_j(n, llm.n_layers or None, llm.hidden_size or None, t_in, t_out, hw)
    terms = {
        ("prefill", "compute"): t["compute_prefill"],
        ("decode", "compute"): t["compute_decode"],
    }
    terms |= {("prefill", "parameter_reads"): t["parameter_reads"]}
    terms |= {("decode", k): t[k] for k in ("kv_writes", "attention_reads")}
    return breakdown_frame(terms, t_out)


def _bare_paper(params_b: float, t_in: int, t_out: int, mode: str) -> pd.DataFrame:
    """Paper mode from a bare parameter count (billions): dense terms only, with a warning."""
    if mode != "paper" or params_b <= 0:
        raise InvalidInputError(
            "a bare parameter count works only in paper mode and must be > 0; pass an LLM name "
            "or config.json for physical mode."
        )
    t = paper_terms_j(params_b * 1e9, None, None, t_in, t_out)
    terms = {
        ("prefill", "compute"): t["compute_prefill"],
        ("decode", "compute"): t["compute_decode"],
    }
    df = breakdown_frame(terms | {("prefill", "parameter_reads"): t["parameter_reads"]}, t_out)
    df.attrs = dict(llm=f"{params_b:g}B (bare)", gpu="H100", mode=mode, t_in=t_in, t_out=t_out)
    return df


def estimate_energy(llm, gpu="H100 NVL", t_in=500, t_out=500, mode="paper", batch=1):
    """Energy of one request of ``t_in`` prompt and ``t_out`` generated tokens, by component.

    ``llm``: catalog name, :class:`~wattgpu_lite.specs.catalog.LLM`, a config.json path or dict (dense
    only: MoE raises UnsupportedModelError), or in paper mode a bare size in billions (no layers
    or width: dense terms only, with a warning, as the paper does). ``gpu``: catalog name or GPU. ``mode``: "paper"
    (Vartziotis et al., printed equations; GPU only picks H100 vs A100 coefficients; ignores
    ``batch``) or "physical" (:mod:`energy_physical`). Returns a tidy DataFrame (see
    :func:`breakdown_frame`); ``.attrs`` names the llm, gpu, mode and workload.
    """
    t_in, t_out, batch = (check_tokens(n, v) for n, v in (("t_in", t_in), ("t_out", t_out),
                                                            ("batch", batch)))  # fmt: skip
    if mode not in ("paper", "physical"):
        raise InvalidInputError(f"mode must be 'paper' or 'physical', got {mode!r}.")
    if isinstance(llm, numbers.Real) and not isinstance(llm, bool):
        return _bare_paper(float(llm), t_in, t_out, mode)
    llm, gpu = resolve(llm, gpu)
    if mode == "paper":
        df = _paper_breakdown(llm, gpu, t_in, t_out)
    else:
        df = physical_breakdown(llm, gpu, t_in, t_out, batch)
    df.attrs = dict(llm=llm.name, gpu=gpu.name, mode=mode, t_in=t_in, t_out=t_out, batch=batch)
    return df
