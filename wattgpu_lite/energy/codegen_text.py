"""The text of the generated functions (:mod:`~wattgpu_lite.energy.codegen`), from lambdify's:
each common subexpression freed after its last read (:func:`freed`), and a function split in two,
the operations that read no load argument and those that do (:func:`split_at_loads`).

Neither changes an operation or its operands: an array operation gives each element the value its
operands' elements give, so the values are those of the one function, bit for bit
(tests/energy/test_energy_codegen.py holds them equal).
"""

from __future__ import annotations

import ast
import inspect
import re

_TEMPORARY = re.compile(r"\b[xy]\d+\b")  # lambdify's common subexpressions x0..., ours y0...
_ASSIGNED = re.compile(r"^(\s+)([xy]\d+) = (.*)$")


def freed(text: str) -> str:
    """``text`` (one function) with each temporary deleted after the last line that reads it
    (``del``): a call over a block of rows holds a few temporaries at a time, not all of them
    (about 60 in the physics, 150 in the step's coefficients, each an array of the block), so
    the memory they take is reused while still in cache, not grown afresh from the system (and
    page-faulted) at every call."""
    lines = text.split("\n")
    assigned = [_ASSIGNED.match(line) for line in lines]
    last = {}
    for i, (line, a) in enumerate(zip(lines, assigned, strict=True)):
        last.update((name, i) for name in _TEMPORARY.findall(a.group(3) if a else line))
    out = []
    for i, (line, a) in enumerate(zip(lines, assigned, strict=True)):
        out.append(line)
        done = sorted((n for n, j in last.items() if j == i), key=lambda n: (n[0], int(n[1:])))
        if a and done:
            out.append(f"{a.group(1)}del {', '.join(done)}")
    return "\n".join(out)


def function_source(fn) -> str:
    """The source of a lambdified function, its temporaries freed (:func:`freed`)."""
    return freed(inspect.getsource(fn))


def split_at_loads(fn, loads: tuple[str, ...], names: tuple[str, str]) -> tuple[str, tuple]:
    """(source, outputs): two functions from the lambdified ``fn``. ``names[0]``, of every
    argument but ``loads``, runs the assignments that read none of ``loads`` and, inside those
    that do, each largest subexpression that reads none (an assignment ``y<k>``), and returns
    the ``outputs`` the rest reads; ``names[1]``, of the outputs and ``loads`` by keyword, runs
    the rest and returns what ``fn`` returns. A configuration evaluates the first once; each
    load, the second."""
    tree = ast.parse(inspect.getsource(fn)).body[0]
    fixed = {a.arg for a in tree.args.args} - set(loads)
    ahead, rest, lifts = [], [], []

    def lifted(node: ast.AST) -> ast.AST:
        read = _read(node)
        if read and read <= fixed and not isinstance(node, ast.Name):
            lifts.append(f"y{len(lifts)}")
            ahead.append(ast.Assign([ast.Name(lifts[-1], ast.Store())], node, lineno=0))
            fixed.add(lifts[-1])
            return ast.Name(lifts[-1], ast.Load())
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                setattr(node, field, lifted(value))
            elif isinstance(value, list):
                setattr(node, field, [lifted(v) if isinstance(v, ast.AST) else v for v in value])
        return node

    for statement in tree.body:
        target = statement.targets[0].id if isinstance(statement, ast.Assign) else None
        if target is not None and _read(statement.value) <= fixed:
            ahead.append(statement)
            fixed.add(target)
        else:
            statement.value = lifted(statement.value)
            rest.append(statement)
    outputs = tuple(sorted({name for s in rest for name in _read(s)} & fixed))
    first = [ast.unparse(s) for s in ahead] + [f"return ({', '.join(outputs)},)"]
    args = [a.arg for a in tree.args.args if a.arg not in loads]
    text = (
        f"def {names[0]}(*, {', '.join(args)}):\n"
        + "".join(f"    {s}\n" for s in first)
        + f"\n\ndef {names[1]}(*, {', '.join((*outputs, *loads))}):\n"
        + "".join(f"    {ast.unparse(s)}\n" for s in rest)
    )
    return freed(text), outputs


def _read(node: ast.AST) -> set[str]:
    """The names an expression reads (``numpy``, the module, apart)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - {"numpy"}
