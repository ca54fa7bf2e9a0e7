"""A generated function of the physics on Python floats, one element at a time: its twin.

A single predict evaluates the physics at load (``_physical_generated.at_load``) on a few
elements, and the step's coefficients (``_step_generated.coefficients``) on one row; on arrays
that short, or on numpy scalars, every operation costs its call, not its arithmetic. The twin is
the same generated source, compiled once with each operation written as numpy computes it on
float64 arrays, so each element gets the same IEEE operations in the same order, hence the same
bits:

- ``x + y``, ``x - y``, ``x * y``, ``x / y``: IEEE double in both (no fused operation);
- ``x ** -1.0`` is numpy's reciprocal ``1.0 / x``, ``x ** 2`` its square ``x * x`` (numpy's
  power of an array by those scalars, ``fast_scalar_power``; C's ``pow``, which Python's ``**``
  calls, may round them differently);
- ``numpy.minimum(a, b)``, ``numpy.maximum(a, b)``: a NaN of either, else the smaller (larger),
  ``b`` when they are equal (numpy's choice between 0.0 and -0.0), :func:`minimum`, :func:`maximum`;
  ``numpy.log``: numpy's value, as a float (:func:`log`); ``numpy.all``, ``numpy.where``: numpy's;
- any other power ``x ** y`` is kept only when ``x`` is an argument of the function (its
  ``bases``): the caller takes the twin only where each such argument is 0.0 or 1.0, whose
  powers every ``pow`` gives exactly (numpy's own ``power`` of other bases may differ from C's
  in the last bit);
- another function of the same module it calls is that one's twin (if it has one without
  bases; else itself); any other global, or another numpy function, leaves it without a twin.

Python raises where numpy gives inf or NaN (a division by zero, an overflowing power): then
:func:`twin_values` and :func:`call` return None and the caller evaluates the arrays.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import types
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import numpy as np

EXACT_BASES = (0.0, 1.0)  # a power of these is exact in every pow: 0 ** y, 1 ** y
TWINS_CACHED = 8  # generated functions whose twins are kept (:func:`twin`; a predict uses 4)


def minimum(a, b):
    """numpy.minimum of two floats: a NaN of either, else the smaller, ``b`` if equal."""
    return a if a < b or a != a else b


def maximum(a, b):
    """numpy.maximum of two floats: a NaN of either, else the larger, ``b`` if equal."""
    return a if a > b or a != a else b


def log(a) -> float:
    """numpy.log's value as a Python float (numpy computes it; the float holds its bits)."""
    return float(np.log(a))


class _Numpy:
    """The ``numpy`` a twin reads: minimum and maximum on floats, log's value as a float, and
    numpy's own ``all`` and ``where`` (a branch for rows across nodes, on numpy's values)."""

    minimum, maximum, log = staticmethod(minimum), staticmethod(maximum), staticmethod(log)
    all, where = staticmethod(np.all), staticmethod(np.where)


class Flat(dict):
    """A configuration's arguments of a generated function, each a float array of one ``shape``
    (n,) (:func:`flat`), evaluated at loads of that shape as they are, on floats where the
    function has a twin (``elements``: :func:`elements_of`, else None)."""

    __slots__ = ("elements", "shape")


def flat(configured: dict, fn: Callable, *, loads: tuple[str, ...], most: int) -> dict:
    """``configured`` as a :class:`Flat` when every value is a float64 array of one shape (n,),
    n <= ``most`` (its elements: :func:`elements_of` ``fn`` at ``loads``); else itself."""
    shapes = {
        v.shape if type(v) is np.ndarray and v.dtype == np.float64 else None
        for v in configured.values()
    }
    (shape,) = shapes if len(shapes) == 1 else (None,)
    if shape is None or len(shape) != 1 or shape[0] > most:
        return configured
    out = Flat(configured)
    out.shape, out.elements = shape, elements_of(fn, configured, loads)
    return out


class Twin(NamedTuple):
    """A generated function on floats and the arguments whose powers it takes (``bases``)."""

    function: Callable
    bases: frozenset[str]


class _AsNumpy(ast.NodeTransformer):
    """``x ** -1.0`` → ``1.0 / x``, ``x ** 2`` → ``x * x``; other powers kept, their bases noted
    (None when a base is not a plain name); the numpy functions read noted."""

    def __init__(self) -> None:
        self.bases: set[str] | None = set()
        self.numpy: set[str] = set()

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "numpy":
            self.numpy.add(node.attr)
        return self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        node = self.generic_visit(node)
        if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Pow):
            return node
        exponent = _constant(node.right)
        if exponent == -1.0:
            return ast.BinOp(ast.Constant(1.0), ast.Div(), node.left)
        if exponent == 2.0:
            return ast.BinOp(node.left, ast.Mult(), node.left)
        if isinstance(node.left, ast.Name) and self.bases is not None:
            self.bases.add(node.left.id)
        else:
            self.bases = None
        return node


def _constant(node: ast.AST) -> float | None:
    """The value of a numeric constant (a negated one too), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    return None


@lru_cache(maxsize=TWINS_CACHED)
def twin(fn: Callable) -> Twin | None:
    """The :class:`Twin` of the generated function ``fn`` (module docstring), None when it has
    none (another numpy function, a power of an expression, no source)."""
    try:  # the function's lines alone (its module's source): the def and the lines indented below
        lines, first = inspect.findsource(fn)
        lines = [x.rstrip("\n") for x in lines[first:]]
        end = next((i for i, x in enumerate(lines) if i and x and not x[0].isspace()), None)
        found = ast.parse("\n".join(lines[:end])).body
    except (OSError, TypeError, SyntaxError):
        return None
    if len(found) != 1 or not isinstance(found[0], ast.FunctionDef):
        return None
    if found[0].name != fn.__name__ or found[0].decorator_list:
        return None
    rewrite = _AsNumpy()
    tree = ast.fix_missing_locations(rewrite.visit(ast.Module(body=found, type_ignores=[])))
    scope = _scope(fn, found[0])
    if scope is None or rewrite.bases is None or not rewrite.numpy <= NUMPY:
        return None
    exec(compile(tree, f"<float twin of {fn.__qualname__}>", "exec"), scope)  # noqa: S102
    return Twin(scope[fn.__name__], frozenset(rewrite.bases))


NUMPY = {"minimum", "maximum", "log", "all", "where"}  # the numpy functions a twin may read


def _scope(fn: Callable, node: ast.FunctionDef) -> dict | None:
    """The globals of ``fn``'s twin: :class:`_Numpy` as numpy, and each other function of its
    module it calls (by name) as that one's twin where it has one without bases, else itself;
    None when it reads any other global (a name that is not a builtin)."""
    own = {a.arg for a in (*node.args.args, *node.args.kwonlyargs)}
    own |= {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    scope: dict = {"numpy": _Numpy}
    for name in {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - own - {"numpy"}:
        g = fn.__globals__.get(name)
        if name in vars(builtins) and g is None:
            continue
        if not (inspect.isfunction(g) and g.__module__ == fn.__module__ and g is not fn):
            return None
        found = twin(g)
        scope[name] = found.function if found is not None and not found.bases else g
    return scope


def call(fn: Callable, values: dict) -> list | None:
    """``fn(**values)`` of Python floats from its twin, when it has one without bases (module
    docstring); None when it has none or Python raises (the caller's call gives numpy's
    values, or raises as it does)."""
    found = twin(fn)
    if found is None or found.bases:
        return None
    try:
        return found.function(**values)
    except ArithmeticError:
        return None


def elements_of(fn: Callable, configured: dict, loads: tuple[str, ...]) -> list[Callable] | None:
    """``fn``'s twin once per element of ``configured`` (float arrays of one length by argument
    name), each with that element's values as Python floats for keyword defaults, so it is
    called with the ``loads`` (the arguments ``configured`` lacks) alone; None when ``fn`` has
    no twin, ``configured`` and ``loads`` are not its arguments, or a base is not one of
    ``configured`` or not 0.0 or 1.0 there."""
    found = twin(fn)
    code = found and found.function.__code__
    if not code or set(code.co_varnames[: code.co_kwonlyargcount]) != {*configured, *loads}:
        return None
    columns = {k: v.tolist() for k, v in configured.items()}
    if not found.bases <= set(columns):  # a power of a load or of a temporary: no twin here
        return None
    if any(x not in EXACT_BASES for name in found.bases for x in columns[name]):
        return None
    out = []
    for i in range(len(next(iter(columns.values()), ()))):
        one = types.FunctionType(code, found.function.__globals__, found.function.__name__)
        one.__kwdefaults__ = {k: v[i] for k, v in columns.items()}
        out.append(one)
    return out


def twin_values(elements: list[Callable], loads: dict) -> list[list] | None:
    """The outputs of the twins ``elements`` (:func:`elements_of`) at ``loads`` (float arrays of
    one value per element, by name): one list of its outputs per element; None where Python
    raises (a division by zero, an overflow: numpy's inf or NaN there, the caller's arrays)."""
    names, columns = list(loads), zip(*(v.tolist() for v in loads.values()), strict=True)
    try:
        return [
            one(**dict(zip(names, at, strict=True)))
            for one, at in zip(elements, columns, strict=True)
        ]
    except ArithmeticError:
        return None
