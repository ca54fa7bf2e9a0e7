"""The step time and the dynamic energy of a batch as functions of the batch B, in pieces.

:mod:`wattgpu_lite.energy.symbolic_physical` gives the time of one request per phase, the batch's
time divided by B. The backbone (:mod:`wattgpu_lite.energy.backbone`) needs it per step:

* ``batch_time`` W(B) = B · (t_prefill + t_decode), so that the step time is
  s(B) = W(B) / T_out + t_host(B), t_host = c_step + c_seq·B the host's time (:func:`host_time`). B times a max is the max of B times its arguments (B > 0), and
  every ``Max`` / ``Min`` of W that depends on B enters W linearly, with a coefficient
  c ≥ 0 (B for the roofline, the layout's count of all-reduces for ring versus doubling):
  W = R(B) + Σ_g c_g(B)·op_g(args_g) = R(B) + Σ_g op_g(c_g·args_g). :func:`switches` splits W
  into that remainder R and those groups of products c_g·arg.
* ``batch_dynamic`` N(B) = B · (dynamic J per request): the numerator of the busy power
  P = P_idle + N(B) / (T_out · s(B)) (no max inside).

Every product, R and N is affine in B and in the two powers u_T = ρ^(T_in·B) and u_1 = ρ^B,
ρ = 1 − k/E (the experts a prefill and a decode step leave untouched, E·u of them):
e(B) = a_0 + a_B·B + a_T·u_T + a_1·u_1 (:func:`affine_form`; the products of one group belong to
one phase and share one power). A dense model has k = E, ρ = 0, u = 0: every piece is affine in
B, s(B) is piecewise affine with breakpoints where two products of a group are equal, and N/s is
monotone on each piece (a Möbius function): the peak of the busy power is at a breakpoint or an
end, and the load in flight at a rate solves a linear equation on its piece. A MoE adds the
concave E·(1 − u) experts touched (positive coefficients in R, N and the roofline's products).
"""

from __future__ import annotations

import sympy as sp

from wattgpu_lite.energy import symbolic_physical
from wattgpu_lite.energy.symbolic import B, T_in, T_out

OPS = {sp.Max: "max", sp.Min: "min"}
#: the powers of ρ = 1 − k/E that carry B: the untouched share of the experts after a prefill
#: step (T_in·B tokens) and a decode step (B tokens)
u_T, u_1 = sp.symbols("u_T u_1", nonnegative=True)
RHO = 1 - symbolic_physical.k / symbolic_physical.E


def batch_time() -> sp.Expr:
    """W(B) = B · (prefill + decode time per request): the time of the batch's requests' steps
    in total per generated token of one, s(B) = W / T_out + t_host(B) [s]."""
    return B * (symbolic_physical.phase_time("prefill") + symbolic_physical.phase_time("decode"))


#: the host's time per step: a fixed cost and a cost per sequence in flight [s]
c_step, c_seq = sp.symbols("c_step c_seq", nonnegative=True)


def host_time() -> sp.Expr:
    """t_host(B) = c_step + c_seq · B [s]: what the engine's host spends per decode step
    (scheduling, batching the inputs, sampling and detokenising each sequence); affine in B, so
    it keeps every piece of s(B) affine (a dense model) and the breakpoints of W where they are.
    c_seq → 0 gives the fixed cost alone (:func:`wattgpu_lite.energy.backbone.host_step_s`)."""
    return c_step + c_seq * B


#: the achieved share of the FP16 peak and a format's ratio to it (FP8 or FP4 kernels); the
#: software stack's ratio to CUDA's (ROCm's kernels), on the FLOP/s and the bandwidth alike
eta_f, r_fmt, r_stack = sp.symbols("eta_f r_fmt r_stack", positive=True)
eta_bw = sp.Symbol("eta_bw", positive=True)


def achieved_flops(peak: sp.Expr) -> sp.Expr:
    """F_achieved = min(η_f · r_fmt · r_stack, 1) · F_peak [FLOP/s]: the compute rate a tensor
    group's kernels reach at its format's peak ``peak``, r_fmt = 1 on the FP16 peak: the FP8 or
    FP4 kernels' share relative to the 16-bit ones; r_stack = 1 on CUDA, the ROCm kernels' share
    relative to CUDA's on an AMD GPU; never above the peak
    (:func:`wattgpu_lite.energy.backbone.flops_share`). r_fmt, r_stack → 1 give the one share η_f
    of the model before either."""
    return sp.Min(eta_f * r_fmt * r_stack, 1) * peak


def achieved_bandwidth(peak: sp.Expr) -> sp.Expr:
    """BW_achieved = min(η_bw · r_stack, 1) · BW_peak [B/s]: the bandwidth the kernels reach, at
    r_stack on ROCm as on the FLOP/s (:func:`wattgpu_lite.energy.backbone.achieved_hw`), never
    above the datasheet's; r_stack → 1 gives η_bw · BW_peak (CUDA, and the model before it)."""
    return sp.Min(eta_bw * r_stack, 1) * peak


def step_time() -> sp.Expr:
    """s(B) = W(B) / T_out + t_host(B) [s]: one decode step of B sequences."""
    return batch_time() / T_out + host_time()


def batch_dynamic() -> sp.Expr:
    """N(B) = B · Σ over both phases of the dynamic terms (compute, parameter reads, KV writes,
    attention reads) [J]: the batch's dynamic energy per request-set."""
    dynamic = ("compute", "parameter_reads", "kv_writes", "attention_reads")
    terms = {ph: symbolic_physical.phase_terms(ph) for ph in symbolic_physical.PHASES}
    return B * sum(terms[ph][comp] for ph in symbolic_physical.PHASES for comp in dynamic)


def switches(expr: sp.Expr) -> tuple[sp.Expr, list[tuple[str, list[sp.Expr]]]]:
    """(R, [(op, [c·arg, ...]), ...]): ``expr`` = R + Σ op(c·args) over its Max / Min nodes that
    depend on B, each entering linearly with a coefficient c (checked: no node inside another,
    none squared); groups in sympy's default sort order of the nodes (deterministic)."""
    nodes = sorted((n for n in expr.atoms(sp.Max, sp.Min) if n.has(B)), key=sp.default_sort_key)
    dummies = [sp.Dummy(f"switch{i}") for i in range(len(nodes))]
    flat = expr.xreplace(dict(zip(nodes, dummies, strict=True)))
    groups = []
    for node, dummy in zip(nodes, dummies, strict=True):
        if any(other.has(B) for arg in node.args for other in arg.atoms(sp.Max, sp.Min)):
            raise ValueError(f"a switch inside a switch: {node}")
        coef = sp.diff(flat, dummy)
        if any(coef.has(d) for d in dummies):
            raise ValueError(f"a switch that does not enter linearly: {node}")
        groups.append((OPS[type(node)], [coef * arg for arg in node.args]))
    remainder = flat.subs({d: 0 for d in dummies})
    return remainder, groups


def affine_form(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]:
    """(a_0, a_B, a_T, a_1) with ``expr`` = a_0 + a_B·B + a_T·u_T + a_1·u_1 (module docstring);
    ValueError if ``expr`` is not of that form (another power of B, a product B·u)."""
    powers = {RHO ** (B * T_in): u_T, RHO**B: u_1}
    flat = sp.expand(expr.xreplace(powers))
    slopes = [sp.diff(flat, v) for v in (B, u_T, u_1)]
    const = flat.subs({u_T: 0, u_1: 0}).subs(B, 0)
    if any(x.has(v) for x in (*slopes, const) for v in (B, u_T, u_1)):
        raise ValueError(f"not affine in B, u_T and u_1: {expr}")
    return const, *slopes
