"""A long call of the physics is evaluated in blocks of physical.BLOCK elements (the generated
function's temporaries stay in cache): every term and time equals the one-call values to the bit
(each operation is elementwise), broadcast arguments included; so do the step's coefficients."""

from __future__ import annotations

import numpy as np

import wattgpu_lite as wl
from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy import float_twin
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy.args import Workload
from wattgpu_lite.energy.backbone import achieved_hw
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.energy.backbone import searches as Z
from wattgpu_lite.hybrid.predict.model import HybridState


def test_blocks_give_the_one_call_values(monkeypatch):
    rng = np.random.default_rng(6)
    n = 3 * 1000 + 17  # three blocks and a tail at BLOCK = 1000
    llms = [wl.llm(x) for x in ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B")]
    gpus = [wl.gpu(x) for x in ("L4", "H100 SXM")]
    rows, _ = R.build([llms[k] for k in rng.integers(0, 2, n)], [gpus[k] for k in rng.integers(0, 2, n)],
                      rng.integers(10, 3000, n), rng.integers(10, 800, n),
                      num_gpus=list(rng.choice([1, 2], n)))  # fmt: skip
    c = HybridState.pretrained().constants
    args = (rows.model, Workload(t_in=rows.t_in, t_out=rows.t_out, batch=rng.uniform(1, 300, n)),
            achieved_hw(rows, c))  # fmt: skip
    whole = P.physical_evaluate(*args, kappa=c.kappa, deploy=rows.deploy)
    pieces = S.step_pieces(rows, c)  # the step's generated coefficients, blocked the same way
    monkeypatch.setattr(P, "BLOCK", 1000)
    blocks = P.physical_evaluate(*args, kappa=c.kappa, deploy=rows.deploy)
    again = S.step_pieces(rows, c)
    assert np.array_equal(pieces.coef, again.coef) and np.array_equal(
        pieces.cuts, again.cuts, equal_nan=True
    )
    for one, other in zip(whole, blocks, strict=True):
        assert one.keys() == other.keys()
        for key in one:
            assert one[key].shape == (n,) and np.array_equal(one[key], other[key]), key


def test_switched_in_row_blocks_gives_the_one_call_values(monkeypatch):
    """W and N at many batches per row, a block of rows at a time, dense and MoE rows mixed (a
    block of dense rows alone still adds the curved terms, as the whole call does)."""
    rng = np.random.default_rng(8)
    n = 700
    llms = [wl.llm(x) for x in ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B")]
    picks = np.r_[np.zeros(300, int), rng.integers(0, 2, n - 300)]  # the first block dense
    rows, _ = R.build([llms[k] for k in picks], [wl.gpu("H100 SXM")] * n,
                      rng.integers(10, 3000, n), rng.integers(10, 800, n))  # fmt: skip
    p = S.step_pieces(rows, HybridState.pretrained().constants)
    batch = rng.uniform(1, 512, (n, 5))
    whole = Z.switched(p, batch)
    monkeypatch.setattr(Z, "ROW_BLOCK", 256)
    for one, other in zip(whole, Z.switched(p, batch), strict=True):
        assert one.shape == (n, 5) and np.array_equal(one, other)


def test_a_flat_configuration_gives_the_general_calls_values():
    """A configuration laid out flat (physical.flat: every value a float array of one shape) is
    evaluated at its loads in one call, as they are: the general call's values to the bit; loads
    of another shape or dtype, and a configuration that is not flat, take the general call."""
    rng = np.random.default_rng(7)
    llms = [wl.llm(x) for x in ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B")]
    rows, _ = R.build(llms, [wl.gpu("L4"), wl.gpu("H100 SXM")], [500, 40], [200, 900])
    c = HybridState.pretrained().constants
    call = S.request_call(rows, np.ones(2), c)
    named = {"kappa": np.full(2, call["kappa"])}
    for name in ("model", "hardware", "deploy"):
        named.update(P.symbol_values(P.as_record(name, call[name])))
    configured = P.configured_symbols(
        {k: np.asarray(v, dtype=float) * np.ones(2) for k, v in named.items()}
    )
    flat = P.flat(configured)
    assert isinstance(flat, float_twin.Flat) and flat.shape == (2,) and dict(flat) == configured
    assert not isinstance(P.flat({**configured, "E": np.ones(3)}), float_twin.Flat)
    for loads in ({"T_in": rng.uniform(1, 3000, 2), "T_out": rng.uniform(1, 900, 2), "B": rng.uniform(1, 300, 2)},
                  {"T_in": 500.0, "T_out": np.array([200, 900]), "B": rng.uniform(1, 300, 1)}):  # fmt: skip
        for one, other in zip(
            P.evaluate_at_load(flat, loads), P.evaluate_at_load(configured, loads), strict=True
        ):
            assert one.keys() == other.keys()
            for key in one:
                assert one[key].shape == (2,) and np.array_equal(one[key], other[key]), key
