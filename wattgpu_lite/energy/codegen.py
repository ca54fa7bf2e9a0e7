"""The numeric functions of both modes, generated from the sympy terms and kept as Python source.

Physical mode's terms live in :mod:`wattgpu_lite.energy.symbolic_physical`. ``lambdify(...,
cse=True)`` turns them into one numpy function; building the expressions and lambdifying them takes
about a second, so the generated source is written once to
:mod:`wattgpu_lite.energy._physical_generated` and imported from there — a prediction never imports
sympy. Paper mode's printed equations (:mod:`wattgpu_lite.energy.symbolic`) go the same way to
:mod:`wattgpu_lite.energy._paper_generated`, and the step's pieces in B
(:mod:`wattgpu_lite.energy.symbolic_step`, for the backbone's solves) to
:mod:`wattgpu_lite.energy._step_generated`, so an estimate in either mode runs on numpy alone
(sympy is in the ``[lab]`` extra). Each generated function is written twice (:func:`_by_nodes`):
the expressions at one node (N_TP = N_EP = 1: the collectives before nodes existed, their numbers
to the bit) and the full ones, used for rows whose groups span several nodes. The derivation
stays the code: ``tests/energy/test_energy_codegen.py``
regenerates both sources and fails if a file differs.

    .venv/bin/python -m wattgpu_lite.energy.codegen      # after changing an equation
"""

from __future__ import annotations

from pathlib import Path

import sympy as sp
from sympy.printing.numpy import NumPyPrinter

from wattgpu_lite.energy import (
    coefficients,
    symbolic,
    symbolic_parallel,
    symbolic_physical,
    symbolic_step,
)
from wattgpu_lite.energy.codegen_text import function_source, split_at_loads

ARGS, COMPONENTS, PHASES = (
    symbolic_physical.ARGS,
    symbolic_physical.COMPONENTS,
    symbolic_physical.PHASES,
)
KEYS = tuple((phase, comp) for phase in PHASES for comp in COMPONENTS)
#: word sizes substituted into the expressions: activations sent between GPUs at 16 bits (the
#: KV cache's bits, b_kv, stay an argument: the served KV format, energy.args.ModelRecord.kv_bits)
WORDS = {symbolic_physical.b_a: coefficients.value("bits_per_activation", "physical")}
TARGET = Path(__file__).with_name("_physical_generated.py")
#: the arguments a load sets (the tokens and the batch): the rest are its configuration's
LOADS = tuple(str(a) for a in (symbolic.T_in, symbolic.T_out, symbolic.B))
PAPER_TARGET = Path(__file__).with_name("_paper_generated.py")
STEP_TARGET = Path(__file__).with_name("_step_generated.py")
#: paper mode's arguments: model, workload, the two energy coefficients, then the Table 1-2 constants
PAPER_ARGS = (
    symbolic.N,
    symbolic.n_l,
    symbolic.d,
    symbolic.T_in,
    symbolic.T_out,
    symbolic.alpha,
    symbolic.e_mem,
    *symbolic.PAPER_CONSTANTS,
)
#: a generated function of more arguments than this takes them by keyword only
KEYWORD_ONLY_OVER = 4
PAPER_TERMS = ("compute_prefill", "compute_decode", "parameter_reads", "kv_writes",
               "attention_reads")  # fmt: skip


class _Printer(NumPyPrinter):
    """NumPy code with Max / Min as nested ``numpy.maximum`` / ``numpy.minimum`` (no stacking
    into a temporary array, so scalars and arrays mix)."""

    def _nested(self, expr, func: str) -> str:
        out = self._print(expr.args[0])
        for arg in expr.args[1:]:
            out = f"{self._module_format(func)}({out}, {self._print(arg)})"
        return out

    def _print_Max(self, expr) -> str:
        return self._nested(expr, "numpy.maximum")

    def _print_Min(self, expr) -> str:
        return self._nested(expr, "numpy.minimum")


#: a replica inside one node: energy.symbolic_parallel.across_nodes_s is exactly 0 there, and
#: the expressions at these values are the one-node model's, generated with their own cse
ONE_NODE = {symbolic_parallel.N_tp: 1, symbolic_parallel.N_ep: 1}


def _by_nodes(name: str, args: tuple, exprs: list, prologue: str = "") -> str:
    """``def name(*, args)``: the one-node expressions' function on rows inside one node (its
    code, cse included, that of the model before nodes existed: their numbers unchanged to the
    bit), the full expressions' where a row's groups span several nodes (numpy.where)."""
    one = _function(f"_{name}_one_node", args, [e.subs(ONE_NODE) for e in exprs], cse=True)
    full = _function(f"_{name}_nodes", args, exprs, cse=True)
    kw = ", ".join(f"{a}={a}" for a in args)
    body = (
        f"def {name}(*, {', '.join(map(str, args))}):\n{prologue}"
        f"    one = _{name}_one_node({kw})\n"
        "    inside = (N_TP == 1) & (N_EP == 1)\n"
        "    if numpy.all(inside):\n        return one\n"
        f"    full = _{name}_nodes({kw})\n"
        "    return [numpy.where(inside, a, b) for a, b in zip(one, full, strict=True)]"
    )
    return "\n\n\n".join([one, full, body])


def generated_expressions() -> list[sp.Expr]:
    """The expressions the generated function returns: every term of KEYS, then both phase times."""
    terms = {ph: symbolic_physical.phase_terms(ph) for ph in PHASES}
    exprs = [terms[ph][c] for ph, c in KEYS] + [symbolic_physical.phase_time(ph) for ph in PHASES]
    return [e.subs(WORDS) for e in exprs]


def source() -> str:
    """The text of the generated module."""
    exprs = generated_expressions()
    body = _by_nodes("evaluate", ARGS, exprs)
    # the split serves rows inside one node (energy.physical.configured_symbols)
    one_node = [e.subs(ONE_NODE) for e in exprs]
    fn = sp.lambdify(ARGS, one_node, "numpy", printer=_Printer, cse=True)
    parts, outputs = split_at_loads(fn, LOADS, ("configured", "at_load"))
    return (
        '"""Generated by wattgpu_lite.energy.codegen from energy.symbolic_physical: do not edit.\n\n'
        "evaluate(**ARG_NAMES), every argument by keyword, returns every (phase, component) term\n"
        "of KEYS (J per request of the replica), then the prefill and decode times (s per\n"
        "request). The same for rows inside one node (N_TP = N_EP = 1) in two parts:\n"
        "configured(every argument but LOADS) returns the\n"
        "values CONFIGURED, which at_load(**CONFIGURED, **LOADS) reads (a configuration's\n"
        'values kept, each load evaluates its part alone)."""\n\n'
        "import numpy\n\n"
        f"ARG_NAMES = {tuple(str(a) for a in ARGS)!r}\n"
        f"PHASES = {tuple(PHASES)!r}\n"
        f"COMPONENTS = {tuple(COMPONENTS)!r}\n"
        f"KEYS = {KEYS!r}\n"
        f"LOADS = {LOADS!r}\n"
        f"CONFIGURED = {outputs!r}\n\n\n"
        "# fmt: off\n" + body.rstrip() + "\n\n\n" + parts.rstrip() + "\n# fmt: on\n"
    )


def step_expressions(
    words: dict | None = None,
) -> tuple[tuple[tuple[str, int], ...], list[sp.Expr]]:
    """(the groups' (op, size), the expressions ``coefficients`` returns): the four coefficients
    (a_0, a_B, a_T, a_1) of :func:`~wattgpu_lite.energy.symbolic_step.affine_form` of each product
    of each group of :func:`~wattgpu_lite.energy.symbolic_step.switches`, then of the remainder R,
    then of N; ``words`` substituted first (default :data:`WORDS`)."""
    words = WORDS if words is None else words
    remainder, groups = symbolic_step.switches(symbolic_step.batch_time().subs(words))
    exprs = [e for _, args in groups for e in args] + [
        remainder,
        symbolic_step.batch_dynamic().subs(words),
    ]
    return tuple((op, len(args)) for op, args in groups), [
        x for e in exprs for x in symbolic_step.affine_form(e)
    ]


#: the step's coefficients do not depend on the batch: every argument but B
STEP_ARGS = tuple(a for a in ARGS if a != symbolic.B)
#: the step's coefficients are generated at this b_kv (16.0, the paper's and a 16-bit cache's),
#: the argument w_kv then standing for w_kv·b_kv/16 (:func:`kv_folded`): a 16-bit cache runs
#: the very operations it ran when the width was a constant, and an 8-bit one the same on w_kv
#: halved (a power of two, exact)
KV_BITS_FOLDED = coefficients.value("bits_per_kv")


def kv_folded(expr: sp.Expr) -> sp.Expr:
    """``expr`` at b_kv = :data:`KV_BITS_FOLDED`, after checking that b_kv enters it only in the
    product b_kv·w_kv, so that the result at w_kv·b_kv/16 is ``expr`` exactly (ValueError if
    not)."""
    if expr.subs(symbolic.w_kv, sp.Dummy("w") / symbolic.b_kv).has(symbolic.b_kv):
        raise ValueError("b_kv enters the step other than as b_kv·w_kv: generate it with b_kv")
    return expr.subs(symbolic.b_kv, KV_BITS_FOLDED)


def step_source() -> str:
    """The text of the generated step-coefficients module (b_kv folded: :func:`kv_folded`)."""
    for whole in (symbolic_step.batch_time(), symbolic_step.batch_dynamic()):
        kv_folded(whole)
    groups, exprs = step_expressions({**WORDS, symbolic.b_kv: KV_BITS_FOLDED})
    scale = f"    w_kv = w_kv*(b_kv/{KV_BITS_FOLDED!r})  # b_kv enters as b_kv·w_kv only (codegen.kv_folded)\n"
    body = _by_nodes("coefficients", STEP_ARGS, exprs, scale)
    return (
        '"""Generated by wattgpu_lite.energy.codegen from energy.symbolic_step: do not edit.\n\n'
        "coefficients(**ARG_NAMES), every argument by keyword, returns (a_0, a_B, a_T, a_1),\n"
        "e = a_0 + a_B·B + a_T·ρ^(T_in·B) + a_1·ρ^B with ρ = 1 − k/E, of: the products of every\n"
        "group of GROUPS (op, size), then the remainder R, then N. W(B) = B·t_req(B) = R + Σ op(products) over the groups (s(B) =\n"
        'W / T_out + c_step); N(B) = B · the dynamic J per request."""\n\n'
        "import numpy\n\n"
        "# fmt: off\n"
        f"ARG_NAMES = {tuple(str(a) for a in STEP_ARGS)!r}\n"
        f"GROUPS = {groups!r}\n\n\n" + body.rstrip() + "\n# fmt: on\n"
    )


def paper_expressions() -> dict[str, list[sp.Expr] | sp.Expr]:
    """Paper mode's expressions: the five terms of PAPER_TERMS, E_out/token, and M(T_in)."""
    return {
        "terms": [
            symbolic.alpha * symbolic.flops_prefill,
            symbolic.alpha * symbolic.flops_decode,
            symbolic.energy_params,
            symbolic.energy_kv_write,
            symbolic.energy_attn_read,
        ],
        "out_per_token": symbolic.energy_out_per_token,
        "prefill_multiplier": symbolic.prefill_multiplier(coefficients.prefill_buckets()),
    }


def _function(name: str, args, expr, cse: bool = False) -> str:
    """The source of ``expr`` as ``def name(...)``; more than four arguments are keyword-only."""
    fn = sp.lambdify(args, expr, "numpy", printer=_Printer, cse=cse)
    many = isinstance(args, tuple) and len(args) > KEYWORD_ONLY_OVER
    head = f"def {name}(*, " if many else f"def {name}("
    return function_source(fn).replace("def _lambdifygenerated(", head, 1).rstrip()


def paper_source() -> str:
    """The text of the generated paper-mode module."""
    exprs = paper_expressions()
    bodies = [
        _function("terms", PAPER_ARGS, exprs["terms"], cse=True),
        _function("out_per_token", PAPER_ARGS, exprs["out_per_token"]),
        _function("prefill_multiplier", symbolic.T_in, exprs["prefill_multiplier"]),
    ]
    return (
        '"""Generated by wattgpu_lite.energy.codegen from energy.symbolic (paper mode): do not edit.\n\n'
        "terms(**ARG_NAMES) returns the TERMS (J per request), out_per_token(**ARG_NAMES)\n"
        "E_out/token (J), both by keyword, prefill_multiplier(T_in) M(T_in) of the shipped prefill\n"
        'buckets. The Table 1-2 constants are the arguments named in CONSTANT_NAMES."""\n\n'
        "import numpy\n\n"
        f"ARG_NAMES = {tuple(str(a) for a in PAPER_ARGS)!r}\n"
        f"CONSTANT_NAMES = {tuple(str(a) for a in symbolic.PAPER_CONSTANTS)!r}\n"
        f"TERMS = {PAPER_TERMS!r}\n\n\n"
        "# fmt: off\n" + "\n\n\n".join(bodies) + "\n# fmt: on\n"
    )


def main() -> None:
    TARGET.write_text(source())
    PAPER_TARGET.write_text(paper_source())
    STEP_TARGET.write_text(step_source())
    print(f"wrote {TARGET}, {PAPER_TARGET} and {STEP_TARGET}")


if __name__ == "__main__":
    main()
