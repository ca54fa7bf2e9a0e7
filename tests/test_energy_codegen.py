"""The generated numeric function is the sympy derivation, and predicting never imports sympy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import sympy as sp

from wattgpu_lite.energy import _physical_generated as G
from wattgpu_lite.energy import codegen
from wattgpu_lite.energy import symbolic as S
from wattgpu_lite.energy.coefficients import paper_constants


def test_the_generated_source_is_what_the_equations_give_today():
    on_disk = codegen.TARGET.read_text()
    assert on_disk == codegen.source(), (
        "wattgpu_lite/energy/_physical_generated.py is stale: an equation or a word size changed. "
        "Run `.venv/bin/python -m wattgpu_lite.energy.codegen` and commit the file."
    )


def test_generated_function_equals_the_sympy_expressions_at_a_point():
    values = dict(zip(G.ARG_NAMES, [8e9, 8e9, 1, 1, 0, 0, 32, 4096, 4096, 2048, 16, 500, 300, 8,
                                    5e-13, 1.2e-11, 4e14, 3e12, 700, 100, 1.2, 2, 2, 1, 4.5e11,
                                    7e-6, 6e-7, 0, 4e-6], strict=True))  # fmt: skip
    numeric = G.evaluate(*values.values())
    subs = {s: values[str(s)] for s in codegen.ARGS}
    for got, expr in zip(numeric, codegen.generated_expressions(), strict=True):
        assert np.isclose(float(got), float(sp.N(expr.xreplace(subs))), rtol=1e-10, atol=1e-15)


def test_paper_constants_are_keyed_by_the_symbols_of_the_derivation():
    consts = paper_constants()
    assert consts[S.K] == 6 and consts[S.b_w] == 16 and S.eta_exp in consts


def test_a_cold_prediction_imports_neither_sympy_nor_xgboost():
    code = ("import sys, wattgpu_lite as wl; "
            "wl.predict('meta-llama/Llama-3.1-8B-Instruct', 'A30', rate_qps=0.1); "
            "print(sorted(m for m in ('sympy', 'xgboost', 'sklearn') if m in sys.modules))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
