"""The generated numeric functions are the sympy derivation, and neither predicting nor estimating
(physical or paper mode) imports sympy."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from wattgpu_lite.energy import _paper_generated as PG
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
    # a window of 600 tokens over 500 -> 800 of context: the windowed sum's middle branch; a MoE
    # of 8 experts (top-2, 32 layers of 1e8 each) whose experts run at a 4x higher peak
    values = dict(zip(G.ARG_NAMES, [8.4e9, 2e9, 8, 2, 32, 1e8, 32, 4096, 4096, 2048, 0.5, 600, 4.25,
                                    16, 8, 500, 300, 8,
                                    5e-13, 1.2e-11, 4e14, 3e12, 700, 100, 1.25e-13, 1.6e15, 1.2, 2,
                                    2, 1, 4.5e11, 7e-6, 6e-7, 0, 4e-6, 1, 1, 5e10, 2.7e-6],
                                   strict=True))  # fmt: skip
    numeric = G.evaluate(**values)
    subs = {s: values[str(s)] for s in codegen.ARGS}
    for got, expr in zip(numeric, codegen.generated_expressions(), strict=True):
        assert np.isclose(float(got), float(sp.N(expr.xreplace(subs))), rtol=1e-10, atol=1e-15)


def test_the_generated_step_source_is_what_the_equations_give_today():
    assert codegen.STEP_TARGET.read_text() == codegen.step_source(), (
        "wattgpu_lite/energy/_step_generated.py is stale: an equation or a word size changed. "
        "Run `.venv/bin/python -m wattgpu_lite.energy.codegen` and commit the file."
    )


def test_the_step_pieces_add_up_to_the_batch_time_and_dynamic_energy_at_a_point():
    """R + Σ op(products) = B·(t_prefill + t_decode) and N = B·dynamic J, at the point of the test
    above (a MoE on 2 GPUs whose windowed layers and collectives are all in play), at three
    batches either side of the roofline corners."""
    from wattgpu_lite.energy import _step_generated as SG
    from wattgpu_lite.energy import symbolic_step as SS

    values = dict(zip(G.ARG_NAMES, [8.4e9, 2e9, 8, 2, 32, 1e8, 32, 4096, 4096, 2048, 0.5, 600, 4.25,
                                    16, 8, 500, 300, 8,
                                    5e-13, 1.2e-11, 4e14, 3e12, 700, 100, 1.25e-13, 1.6e15, 1.2, 2,
                                    2, 1, 4.5e11, 7e-6, 6e-7, 0, 4e-6, 1, 1, 5e10, 2.7e-6],
                                   strict=True))  # fmt: skip
    coef = np.array(SG.coefficients(**{a: values[a] for a in SG.ARG_NAMES}), dtype=float)
    coef = coef.reshape(-1, 4)
    rho = 1 - values["k"] / values["E"]
    for batch in (1.0, 8.0, 300.0):
        u = np.array([1.0, batch, rho ** (values["T_in"] * batch), rho**batch])
        e, start = coef @ u, 0
        w = e[-2]
        for op, size in SG.GROUPS:
            w += (max if op == "max" else min)(e[start : start + size])
            start += size
        subs = {s: values[str(s)] for s in codegen.ARGS} | {S.B: batch}
        want_w = float(sp.N(SS.batch_time().subs(codegen.WORDS).xreplace(subs)))
        want_n = float(sp.N(SS.batch_dynamic().subs(codegen.WORDS).xreplace(subs)))
        assert w == pytest.approx(want_w, rel=1e-10) and e[-1] == pytest.approx(want_n, rel=1e-10)


def test_the_generated_paper_source_is_what_the_printed_equations_give_today():
    assert codegen.PAPER_TARGET.read_text() == codegen.paper_source(), (
        "wattgpu_lite/energy/_paper_generated.py is stale: a paper equation or the prefill "
        "buckets changed. Run `.venv/bin/python -m wattgpu_lite.energy.codegen` and commit it."
    )


def test_generated_paper_functions_equal_the_sympy_expressions_at_a_point():
    values = dict(zip(PG.ARG_NAMES, [8e9, 32, 4096, 500, 300, 3.1e-13, 5.2e-12], strict=False))
    values |= {str(sym): v for sym, v in paper_constants().items()}
    subs = {s: values[str(s)] for s in codegen.PAPER_ARGS}
    args = {name: values[name] for name in PG.ARG_NAMES}
    exprs = codegen.paper_expressions()
    for got, expr in zip(PG.terms(**args), exprs["terms"], strict=True):
        assert np.isclose(float(got), float(sp.N(expr.xreplace(subs))), rtol=1e-10)
    want = float(sp.N(exprs["out_per_token"].xreplace(subs)))
    assert np.isclose(float(PG.out_per_token(**args)), want, rtol=1e-12)
    for t_in in (1, 2048, 2049, 6000, 20000):
        want = float(exprs["prefill_multiplier"].subs(S.T_in, t_in))
        assert float(PG.prefill_multiplier(np.float64(t_in))) == want


def test_experts_per_step_is_the_derivation_in_numbers():
    from wattgpu_lite.energy import symbolic_physical as SP
    from wattgpu_lite.energy.notes import experts_per_step

    mixtral = type("M", (), {"n_experts": 8, "n_experts_active": 2})()
    for batch in (1, 3, 64):
        want = float(SP.experts_touched(batch).subs({SP.E: 8, SP.k: 2}))
        assert experts_per_step(mixtral, batch) == pytest.approx(want, rel=1e-12)


def test_paper_constants_are_keyed_by_the_symbols_of_the_derivation():
    consts = paper_constants()
    assert consts[S.K] == 6 and consts[S.b_w] == 16 and S.eta_exp in consts


@pytest.mark.parametrize("mode", ["physical", "paper"])
def test_a_cold_estimate_imports_neither_sympy_nor_xgboost(mode):
    code = ("import sys, wattgpu_lite as wl; "
            f"wl.estimate_energy('meta-llama/Llama-3.1-8B-Instruct', 'A30', mode={mode!r}); "
            "print(sorted(m for m in ('sympy', 'xgboost', 'sklearn', 'scipy') if m in sys.modules))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_cold_prediction_imports_neither_sympy_nor_xgboost():
    code = ("import sys, wattgpu_lite as wl; "
            "wl.predict('meta-llama/Llama-3.1-8B-Instruct', 'A30', rate_qps=0.1); "
            "print(sorted(m for m in ('sympy', 'xgboost', 'sklearn') if m in sys.modules))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_each_temporary_of_the_generated_functions_is_deleted_after_its_last_read():
    """codegen_text.freed frees every temporary once no later line of its function reads it: a
    deleted name is never read again, and each one assigned is either deleted or returned."""
    import re

    texts = (G.__loader__.get_source(G.__name__), codegen.STEP_TARGET.read_text())
    functions = [f for text in texts for f in text.split("\ndef ")[1:]
                 if re.search(r"^\s+[xy]\d+ = ", f, flags=re.M)]  # fmt: skip
    # evaluate at one node and over nodes, configured, at_load; coefficients at one node and over
    # nodes (the two dispatchers, evaluate and coefficients, hold no temporary)
    assert len(functions) == 6
    for text in functions:
        lines = text.split("\n")
        deleted: dict[str, int] = {}
        for i, line in enumerate(lines):
            if line.strip().startswith("del "):
                deleted.update((n, i) for n in line.strip()[4:].split(", "))
        read_after = [(n, i) for i, line in enumerate(lines) for n in re.findall(r"\b[xy]\d+\b", line)
                      if n in deleted and i > deleted[n]]  # fmt: skip
        assigned = set(re.findall(r"^\s+([xy]\d+) = ", text, flags=re.M))
        returned = set(re.findall(r"\b[xy]\d+\b", next(x for x in lines if "return " in x)))
        assert deleted and not read_after and assigned <= set(deleted) | returned
        assert not set(deleted) & returned


def test_the_two_parts_give_the_one_functions_values_bit_for_bit():
    """configured (what reads no load) then at_load (the rest) return what evaluate does, to the
    last bit, over random arguments: dense and MoE rows, windowed layers, 1-8 GPUs, batches of
    1-1024 and tokens of 1-10^5, each argument an array, or one value for all rows."""
    from wattgpu_lite.energy import physical

    rng = np.random.default_rng(7)
    n = 400
    values = {a: rng.uniform(0.5, 2.0, n) * 10.0 ** rng.integers(-12, 12, n) for a in G.ARG_NAMES}
    values |= {"E": rng.choice([1.0, 8.0, 64.0], n), "k": rng.choice([1.0, 2.0, 8.0], n),
               "f_sw": rng.choice([0.0, 0.5, 1.0], n), "W_sw": rng.choice([128.0, 4096.0], n),
               "n_TP": rng.choice([1.0, 2.0, 4.0, 8.0], n), "n_EP": rng.choice([1.0, 2.0, 8.0], n),
               "G": rng.choice([1.0, 2.0, 8.0], n), "T_in": rng.integers(1, 100_000, n) * 1.0,
               "T_out": rng.integers(1, 10_000, n) * 1.0, "B": rng.integers(1, 1025, n) * 1.0,
               "kappa": 1.2, "N_TP": 1.0, "N_EP": 1.0}  # fmt: skip
    nodes = values | {"N_TP": rng.choice([1.0, 2.0, 4.0], n), "N_EP": rng.choice([1.0, 2.0], n)}
    for args, split in ((values, True), (nodes, False)):  # rows over nodes: evaluated whole
        with np.errstate(all="ignore"):  # extreme draws overflow alike in both
            whole = G.evaluate(**args)
            kept = physical.configured_symbols({k: v for k, v in args.items() if k not in G.LOADS})
            terms, times = physical.evaluate_at_load(kept, {k: args[k] for k in G.LOADS})
        assert (set(kept) == set(G.CONFIGURED)) is split
        for got, want in zip([*terms.values(), *times.values()], whole, strict=True):
            want = np.broadcast_to(np.asarray(want, dtype=float), (n,))
            assert np.array_equal(got, want, equal_nan=True)
            assert np.array_equal(np.signbit(got), np.signbit(want))
