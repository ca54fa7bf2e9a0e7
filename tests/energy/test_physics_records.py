"""The physics takes named records: each field stands for one sympy symbol, the generated functions
take their arguments by keyword only, and no call in the package passes more than four values by
position into the physics."""

from __future__ import annotations

import ast
import inspect

import numpy as np
import pytest
from package_source import package_trees

import wattgpu_lite as wl
from wattgpu_lite.energy import _paper_generated as PG
from wattgpu_lite.energy import _physical_generated as G
from wattgpu_lite.energy import _step_generated as SG
from wattgpu_lite.energy import args as A
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy import symbolic_physical as SP

PHYSICS_CALLS = {"physical_evaluate", "evaluate", "coefficients", "terms",
                 "out_per_token"}  # fmt: skip
MAX_POSITIONAL = 4


def test_each_record_field_stands_for_its_symbol_in_order():
    symbols = {A.ModelRecord: SP.MODEL, A.Workload: SP.WORKLOAD, A.Hardware: SP.HARDWARE,
               A.Deployment: SP.DEPLOY}  # fmt: skip
    for record, expected in symbols.items():
        assert A.SYMBOL_NAMES[record] == tuple(str(s) for s in expected)
        assert len(record._fields) == len(expected)
    names = [n for r in (A.ModelRecord, A.Workload, A.Hardware) for n in A.SYMBOL_NAMES[r]]
    assert (*names, "kappa", *A.SYMBOL_NAMES[A.Deployment]) == G.ARG_NAMES


@pytest.mark.parametrize("fn", [G.evaluate, SG.coefficients, PG.terms, PG.out_per_token])
def test_generated_functions_take_keywords_only(fn):
    params = inspect.signature(fn).parameters.values()
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
    with pytest.raises(TypeError):
        fn(*range(len(params)))


def test_a_record_binds_by_name_whatever_the_order_it_was_built_in():
    m, g = wl.llm("meta-llama/Llama-3.1-8B-Instruct"), wl.gpu("H100 NVL")
    model, hw = A.llm_args(m), A.model_gpu_args(m, g, 0.1)
    shuffled = A.Hardware(**dict(reversed(list(hw._asdict().items()))))
    work = A.Workload(batch=8, t_out=300, t_in=500)
    a = P.physical_evaluate(model, work, shuffled, kappa=1.0)[0]
    b = P.physical_evaluate(model, (500, 300, 8), hw, kappa=1.0)[0]
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert A.symbol_values(work) == {"T_in": 500, "T_out": 300, "B": 8}


def _positional_physics_calls(tree: ast.AST) -> list[tuple[int, str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            positional = sum(0 if isinstance(a, ast.Starred) else 1 for a in node.args)
            starred = any(isinstance(a, ast.Starred) for a in node.args)
            if name in PHYSICS_CALLS and (positional > MAX_POSITIONAL or starred):
                found.append((node.lineno, name, positional))
    return found


def test_no_call_in_the_package_passes_more_than_four_values_by_position_into_the_physics():
    offenders = {}
    for path, tree in package_trees().items():
        calls = _positional_physics_calls(tree)
        if calls:
            offenders[path] = calls
    assert offenders == {}


def test_the_positional_call_search_finds_one():
    tree = ast.parse("P.physical_evaluate(m, w, h, k, d)\nG.evaluate(*args)\nok(1, 2, 3, 4, 5)")
    assert _positional_physics_calls(tree) == [(1, "physical_evaluate", 5), (2, "evaluate", 0)]
