"""The generated physics' twin on Python floats (energy.float_twin) gives numpy's bits: every
dense configuration of the catalog (sliding windows included) on every GPU, at loads and token
counts drawn at random, evaluated at load on floats equals the arrays' call; the operations it
rewrites are numpy's (a reciprocal and a square where C's pow rounds otherwise, min and max with
numpy's NaN and signed zeros); where Python raises, or a power's base is not 0 or 1 (a MoE), the
arrays are evaluated."""

from __future__ import annotations

import math

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import _physical_generated as G
from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy import float_twin
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.hybrid.predict import bounds
from wattgpu_lite.hybrid.predict.model import HybridState


def configured_of(rows, calls: list[dict]) -> dict:
    """The configured symbols of each call's rows, side by side (one element per row and call)."""
    named = []
    for call in calls:
        one = {"kappa": np.full(len(rows.t_in), call["kappa"], dtype=float)}
        for name in ("model", "hardware", "deploy"):
            one.update(P.symbol_values(P.as_record(name, call[name])))
        named.append(
            {
                k: np.broadcast_to(np.asarray(v, dtype=float), rows.t_in.shape)
                for k, v in one.items()
            }
        )
    return P.configured_symbols({k: np.concatenate([n[k] for n in named]) for k in named[0]})


def catalog_rows(moe: bool, n: int = 2000):
    """Rows of ``n`` (LLM, GPU) pairs of the catalog drawn at random (MoE LLMs or dense ones), at
    token counts drawn at random."""
    llms = [wl.llm(name) for name in wl.llms()["name"]]
    llms = [m for m in llms if (m.n_experts > 1) == moe]
    gpus = [wl.gpu(name) for name in wl.gpus()["name"]]
    rng = np.random.default_rng(3)
    li, gi = rng.integers(0, len(llms), n), rng.integers(0, len(gpus), n)
    rows, _ = R.build([llms[i] for i in li], [gpus[i] for i in gi], rng.integers(1, 30000, n),
                      rng.integers(1, 4000, n))  # fmt: skip
    return rows, rng


def test_every_dense_configuration_at_load_on_floats_gives_the_arrays_bits():
    rows, rng = catalog_rows(moe=False)
    c = HybridState.pretrained().constants
    ones = np.ones(len(rows.t_in))
    configured = configured_of(
        rows, [*bounds.floor_calls(rows, ones), S.request_call(rows, ones, c)]
    )
    flat = P.flat(configured)
    n = flat.shape[0]
    assert isinstance(flat, float_twin.Flat) and flat.elements is not None and n == 6000
    for batch in (rng.uniform(1, 300, n), rng.integers(1, 1024, n).astype(float), np.ones(n)):
        loads = {"T_in": np.tile(rows.t_in, 3), "T_out": np.tile(rows.t_out, 3), "B": batch}
        assert float_twin.twin_values(flat.elements, loads) is not None  # the twin answers
        twin, arrays = P.evaluate_at_load(flat, loads), P.evaluate_at_load(dict(flat), loads)
        for one, other in zip(twin, arrays, strict=True):
            assert one.keys() == other.keys()
            for key in one:
                assert one[key].shape == (n,) and np.array_equal(one[key], other[key]), key


def test_a_moe_configuration_has_no_elements_on_floats():
    rows, _ = catalog_rows(moe=True, n=50)
    c = HybridState.pretrained().constants
    flat = P.flat(configured_of(rows, [S.request_call(rows, np.ones(len(rows.t_in)), c)]))
    assert isinstance(flat, float_twin.Flat) and flat.elements is None  # ρ's powers: numpy's own
    assert float_twin.twin(G.at_load).bases == {"x12"}


def _reciprocal_and_square(*, x, y):
    return [x ** (-1.0), y**2, x**y]


def _with_min_max(*, a, b):
    return [numpy.minimum(a, b), numpy.maximum(a, b), a / b]  # noqa: F821 (the twin's numpy)


def _with_exp(*, a):
    return [numpy.exp(a)]  # noqa: F821


def _with_a_global(*, a):
    return [a * EXACT]  # noqa: F821


def _calling_another(*, a, b):
    return [_with_min_max(a=a, b=b)[0], numpy.log(a)]  # noqa: F821


def _of_a_sum(*, a, b):
    return [(a + b) ** a]


def test_the_rewritten_operations_are_numpys():
    rng = np.random.default_rng(4)
    x, y = rng.uniform(1, 300, 20000), rng.uniform(1, 30, 20000)
    assert any(
        a ** (-1.0) != 1.0 / a for a in x.tolist()
    )  # C's pow would differ: the rewrite shows
    found = float_twin.twin(_reciprocal_and_square)
    assert found.bases == {"x"}
    got = [found.function(x=a, y=b) for a, b in zip(x.tolist(), y.tolist(), strict=True)]
    assert [g[0] for g in got] == (x ** (-1.0)).tolist() and [g[1] for g in got] == (y**2).tolist()
    assert float_twin.twin(_with_exp) is None and float_twin.twin(_of_a_sum) is None
    assert float_twin.twin(_with_a_global) is None  # a global that is no function of its module
    both = float_twin.twin(_calling_another).function(a=0.3, b=0.5)
    assert both == [0.3, float(np.log(0.3))] and type(both[1]) is float


@pytest.mark.parametrize("a, b", [(0.0, -0.0), (-0.0, 0.0), (1.0, math.nan), (math.nan, 1.0),
                                  (2.0, 3.0), (3.0, 2.0), (-math.inf, 1.0)])  # fmt: skip
def test_min_and_max_are_numpys_with_nan_and_signed_zeros(a, b):
    for mine, theirs in ((float_twin.minimum, np.minimum), (float_twin.maximum, np.maximum)):
        want = float(theirs(np.full(7, a), np.full(7, b))[0])
        got = mine(a, b)
        assert (math.isnan(got) and math.isnan(want)) or (
            got == want and math.copysign(1, got) == math.copysign(1, want)
        )


def test_where_python_raises_the_caller_takes_the_arrays():
    configured = {"a": np.array([1.0, 2.0])}
    elements = float_twin.elements_of(_with_min_max, configured, ("b",))
    assert elements is not None and len(elements) == 2
    got = float_twin.twin_values(elements, {"b": np.array([4.0, 8.0])})
    assert got == [[1.0, 4.0, 0.25], [2.0, 8.0, 0.25]]  # min, max, a / b of each element
    assert float_twin.twin_values(elements, {"b": np.array([4.0, 0.0])}) is None  # 2 / 0
    assert float_twin.elements_of(_with_min_max, configured, ("c",)) is None  # not its arguments
    assert float_twin.elements_of(_reciprocal_and_square, {"x": np.array([0.5])}, ("y",)) is None
    assert float_twin.elements_of(_reciprocal_and_square, {"x": np.array([0.0, 1.0])}, ("y",))
    # a power's base among the loads (its value not known here): no twin, not a KeyError
    assert float_twin.elements_of(_reciprocal_and_square, {"y": np.array([1.0])}, ("x",)) is None


def test_the_step_coefficients_of_one_row_on_floats_are_the_arrays():
    """One row's step coefficients (a single predict's: energy.backbone.step_power.pieces_from) from
    the twin of the generated ``coefficients`` equal the arrays' call on many rows: dense and MoE
    LLMs, one GPU and layouts over GPUs and nodes."""
    from wattgpu_lite.energy import _step_generated as SG

    rng = np.random.default_rng(5)
    names = ["meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B", "openai/gpt-oss-20b",
             "google/gemma-3-27b-it", "mistralai/Mistral-7B-Instruct-v0.3"]  # fmt: skip
    layouts = [1, 2, 4, 8, 16, wl.Parallel(ep=4), wl.Parallel(tp=2, ep=2), wl.Parallel(ep=16)]
    n = 120
    rows, _ = R.build([wl.llm(names[i]) for i in rng.integers(0, len(names), n)], [wl.gpu("H100 SXM")] * n,
                      rng.integers(1, 30000, n), rng.integers(1, 4000, n),
                      num_gpus=[layouts[i] for i in rng.integers(0, len(layouts), n)])  # fmt: skip
    arrays = S.step_arguments(rows, HybridState.pretrained().constants)
    many = SG.coefficients(**arrays)
    for i in range(n):
        row = {k: float(np.broadcast_to(v, (n,))[i]) for k, v in arrays.items()}
        one = float_twin.call(SG.coefficients, row)
        assert one is not None
        for k, (a, b) in enumerate(zip(one, many, strict=True)):
            assert float(a) == float(np.broadcast_to(b, (n,))[i]), (i, k)
