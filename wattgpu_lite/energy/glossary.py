"""Every symbol of the energy equations: how it prints, its unit, what it is (notebook 01's glossary).

:data:`GLOSSARY` maps each sympy symbol of :mod:`~wattgpu_lite.energy.symbolic` and
:mod:`~wattgpu_lite.energy.symbolic_physical` to (LaTeX, unit, meaning); :func:`latex` prints an
expression with these names (``\\mathrm{}`` for multi-letter subscripts).
"""

from __future__ import annotations

import pandas as pd
import sympy as sp

from wattgpu_lite.energy import coefficients, symbolic, symbolic_parallel, symbolic_physical

GLOSSARY: dict[sp.Symbol, tuple[str, str, str]] = {
    symbolic.N: ("N", "parameters", "parameters of the model (paper: all of them)"),
    symbolic.n_l: (r"n_{\ell}", "1", "transformer layers"),
    symbolic.d: ("d", "1", "hidden (model) width"),
    symbolic.d_q: (r"d_{q}", "1", "query width, attention heads × head dim"),
    symbolic.w_kv: (
        r"w_{\mathrm{kv}}",
        "1",
        "K and V elements cached per token and layer (2·KV heads·head dim, or MLA's latent width)",
    ),
    symbolic.d_ff: (r"d_{\mathrm{ff}}", "1", "MLP intermediate width"),
    symbolic.ctx: ("c", "tokens", "context a decode token attends to"),
    symbolic.T_in: (r"T_{\mathrm{in}}", "tokens", "prompt tokens of a request"),
    symbolic.T_out: (r"T_{\mathrm{out}}", "tokens", "generated tokens of a request"),
    symbolic.B: ("B", "sequences", "sequences sharing each forward step (the batch)"),
    symbolic.K: (
        "K",
        "FLOP/(param·token)",
        "FLOPs per parameter and token (paper 6; forward pass 2)",
    ),
    symbolic.alpha: (r"\alpha", "J/FLOP", "energy per tensor-core FLOP"),
    symbolic.e_mem: ("e", "J/bit", "energy per bit moved from HBM/GDDR"),
    symbolic.b_w: (
        r"b_{w}",
        "bit",
        "bits per stored weight (16 for BF16, 8 for FP8, ~4.25 for MXFP4); physical mode: per always-read weight",
    ),
    symbolic.b_kv: (r"b_{\mathrm{kv}}", "bit", "bits per cached K or V element (16)"),
    symbolic.N0: (
        r"N_{0}",
        "parameters",
        "paper's reference size (24 B) of the calibrated factors",
    ),
    symbolic.gamma0: (r"\gamma_{0}", "1", "share of parameter bits fetched per request at N = N₀"),
    symbolic.gamma_exp: (r"\beta_{\gamma}", "1", "exponent of γ(N)"),
    symbolic.s_coef: (r"c_{s}", "1", "coefficient of the attention-read amplification s_attn(N)"),
    symbolic.s_exp: (r"\beta_{s}", "1", "exponent of s_attn(N)"),
    symbolic.eta_coef: (r"c_{\eta}", "1", "coefficient of the HBM inefficiency η(N)"),
    symbolic.eta_exp: (r"\beta_{\eta}", "1", "exponent of η(N)"),
    symbolic.M: ("M", "1", "prefill multiplier M(T_in) of the simplified estimator"),
    symbolic_physical.N_act: (
        r"N_{\mathrm{act}}",
        "parameters",
        "parameters a token is multiplied by (MoE: active)",
    ),
    symbolic_physical.N_all: (
        r"N_{\mathrm{always}}",
        "parameters",
        "parameters read at every step whatever the routing (a gathered input table aside)",
    ),
    symbolic_physical.b_e: (
        r"b_{e}",
        "bit",
        "bits per routed-expert weight (MXFP4 experts of gpt-oss: 4.25; b_w is then the always-read weights' width)",
    ),
    symbolic_physical.f_sw: (
        r"f_{\mathrm{sw}}",
        "1",
        "share of the layers that attend through a sliding window",
    ),
    symbolic_physical.W_sw: (
        r"W_{\mathrm{sw}}",
        "tokens",
        "sliding window: cached tokens such a layer attends to at most",
    ),
    symbolic_physical.E: ("E", "experts", "routed experts per MoE layer"),
    symbolic_physical.k: ("k", "experts", "experts each token is routed to (top-k)"),
    symbolic_physical.L_moe: (r"n_{\mathrm{moe}}", "layers", "layers with routed experts"),
    symbolic_physical.N_exp: (r"N_{e}", "parameters", "parameters of one routed expert"),
    symbolic_physical.F_peak: (
        r"F_{\mathrm{peak}}",
        "FLOP/s",
        "dense tensor peak of the precision the kernels of the always-read weights and attention use",
    ),
    symbolic_physical.F_e: (
        r"F_{e}",
        "FLOP/s",
        "dense tensor peak of the routed experts' format (gpt-oss on a B200: FP4; = F_peak when both groups share a format)",
    ),
    symbolic_physical.alpha_e: (
        r"\alpha_{e}",
        "J/FLOP",
        "energy per FLOP of the routed experts' kernels (FP16 J/FLOP × FP16 peak / F_e)",
    ),
    symbolic_physical.BW_peak: (r"BW_{\mathrm{peak}}", "B/s", "memory bandwidth of one GPU"),
    symbolic_physical.P_tdp: (r"P_{\mathrm{TDP}}", "W", "power limit of one GPU"),
    symbolic_physical.P_static: (
        r"P_{\mathrm{static}}",
        "W",
        "static (idle-but-awake) power of one GPU",
    ),
    symbolic_physical.kappa: (r"\kappa", "1", "dynamic-energy factor fitted on the measurements"),
    symbolic_physical.b_a: (r"b_{a}", "bit", "bits per activation sent between GPUs (16)"),
    symbolic_physical.G: ("G", "GPUs", "GPUs of the replica, max(tp, ep)"),
    symbolic_parallel.n_tp: (
        r"n_{\mathrm{TP}}",
        "GPUs",
        "tensor-parallel group: GPUs sharing each attention layer",
    ),
    symbolic_parallel.n_ep: (
        r"n_{\mathrm{EP}}",
        "GPUs",
        "expert group: GPUs the routed experts are spread over (1: split like any layer)",
    ),
    symbolic_parallel.t_grp: (
        r"t_{\mathrm{grp}}",
        "s",
        "grouped-GEMM time per routed expert read beyond the k a token needs",
    ),
    symbolic_physical.BW_link: (r"BW_{\mathrm{link}}", "B/s", "GPU-to-GPU bandwidth per direction"),
    symbolic_physical.t_0: (r"t_{0}", "s", "fixed latency of one collective (0 on one GPU)"),
    symbolic_physical.t_hop: (r"t_{\mathrm{hop}}", "s", "latency of one ring step over the link"),
    symbolic_physical.x_ep: (
        r"x_{\mathrm{EP}}",
        "0 or 1",
        "1 if tokens reach their experts by all-to-all (expert parallel with data-parallel attention)",
    ),
    symbolic_parallel.N_tp: (
        r"N_{\mathrm{TP}}",
        "nodes",
        "nodes one tensor-parallel group spans (1 inside one link domain)",
    ),
    symbolic_parallel.N_ep: (
        r"N_{\mathrm{EP}}",
        "nodes",
        "nodes the expert group spans (1 inside one link domain)",
    ),
    symbolic_parallel.BW_net: (
        r"BW_{\mathrm{net}}",
        "B/s",
        "scale-out network bandwidth of one GPU's own NIC per direction, between nodes",
    ),
    symbolic_parallel.t_net: (
        r"t_{\mathrm{net}}",
        "s",
        "latency of one step between nodes on the scale-out network",
    ),
    symbolic.j: ("j", "1", "decode step, 0 … T_out − 1 (summation index)"),
    symbolic.i: ("i", "1", "prompt position, 1 … T_in (summation index)"),
}
#: quantities defined by an equation rather than a symbol (the paper's calibrated factors, M(T_in))
DERIVED: dict[str, tuple[str, str, str]] = {
    "gamma": (
        r"\gamma(N)",
        "1",
        "share of the parameter bits the paper counts per request, γ₀·(N/N₀)^β_γ",
    ),
    "s_attn": (
        r"s_{\mathrm{attn}}(N)",
        "1",
        "the paper's attention-read amplification, 1 + c_s·(N/N₀)^β_s",
    ),
    "eta": (r"\eta(N)", "1", "the paper's global HBM inefficiency, 1 + c_η·(N/N₀)^β_η"),
    "experts": (
        r"E_{B}",
        "experts",
        "expected distinct experts a step of B tokens reads, E·(1 − (1 − k/E)^B)",
    ),
}
NAMES = {sym: tex for sym, (tex, _, _) in GLOSSARY.items()}


def latex(expr: sp.Expr) -> str:
    """LaTeX of ``expr`` with the glossary's names."""
    return sp.latex(expr, symbol_names=NAMES)


def equation(name: str, expr: sp.Expr) -> str:
    """LaTeX of ``name = expr`` (``name`` in LaTeX, e.g. ``r"E_{\\mathrm{compute}}"``)."""
    return f"{name} = {latex(expr)}"


def glossary_markdown(symbols=None) -> str:
    """The glossary as a Markdown table (symbols in LaTeX), for ``display(Markdown(...))``."""
    return _markdown(glossary_frame(symbols))


def glossary_frame(symbols=None) -> pd.DataFrame:
    """The glossary as a table (symbol as LaTeX, unit, meaning), optionally for ``symbols`` only."""
    rows = [
        (f"${tex}$", unit, text)
        for sym, (tex, unit, text) in GLOSSARY.items()
        if symbols is None or sym in symbols
    ]
    if symbols is None:
        rows += [(f"${tex}$", unit, text) for tex, unit, text in DERIVED.values()]
    return pd.DataFrame(rows, columns=["symbol", "unit", "meaning"])


def paper_constants_frame(hardware: str = "H100") -> pd.DataFrame:
    """Every constant of the paper's E = α·C_TC + e_HBM·Q_HBM·η(N), one row each: symbol (LaTeX),
    value, unit, source and confidence, as data/energy_coefficients.csv holds them (α and e of
    ``hardware``: "H100", Table 1, or "A100", Table 6; the rest Tables 1 and 2)."""
    scope = "paper:A100" if hardware.upper().startswith("A100") else "paper"
    by_name = {str(sym): sym for sym in GLOSSARY}
    wanted = [("alpha_TC", "alpha_pj_per_flop", scope), ("e_HBM", "e_mem_pj_per_bit", scope)]
    wanted += [(sym, row, "paper") for sym, row in coefficients.PAPER_SYMBOLS.items()]
    table = coefficients.coefficients().set_index(["name", "scope"])
    rows = []
    for sym, row, where in wanted:
        r = table.loc[[(row, where)]].squeeze(axis=0)  # one row: a Series on pandas 2.2 too
        rows.append(
            (f"${NAMES[by_name[sym]]}$", float(r["value"]), r["unit"], r["source"], r["confidence"])
        )
    return pd.DataFrame(rows, columns=["symbol", "value", "unit", "source", "confidence"])


def paper_constants_markdown(hardware: str = "H100") -> str:
    """:func:`paper_constants_frame` as a Markdown table, for ``display(Markdown(...))``."""
    return _markdown(paper_constants_frame(hardware))


def _markdown(df: pd.DataFrame) -> str:
    """``df`` as a Markdown table, floats as ``:g``."""
    rows = [[f"{v:g}" if isinstance(v, float) else v for v in r] for r in df.itertuples(False)]
    lines = ["| " + " | ".join(map(str, cells)) + " |" for cells in [df.columns, *rows]]
    return "\n".join([lines[0], "|---" * len(df.columns) + "|", *lines[1:]])
