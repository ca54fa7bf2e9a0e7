"""The host's time per decode step, t_host(B) = c_step + c_seq · B: derived in sympy, its limit
c_seq → 0 the fixed cost alone, and in the backbone a longer step at a lower busy power (the GPU
waits for the host). The solves on the step's pieces with it are checked against the bracketed
searches in tests/energy/test_backbone_searches.py (its ``host`` rows)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import wattgpu_lite as wl
from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy import symbolic_step as SS
from wattgpu_lite.energy.backbone import constants_fit as F
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.energy.symbolic import B, T_out

PER_SEQUENCE_S = 4e-5
BATCHES = np.array([1.0, 3.0, 16.0, 64.0, 256.0])


@pytest.fixture(scope="module")
def rows():
    n = len(BATCHES)
    built, _ = R.build([wl.llm("meta-llama/Llama-3.1-8B-Instruct")] * n, [wl.gpu("H100 SXM")] * n,
                       500.0, 300.0)  # fmt: skip
    return built


def test_the_host_time_is_affine_in_the_batch_and_vanishes_to_the_fixed_cost():
    host = SS.host_time()
    assert SS.affine_form(host) == (SS.c_step, SS.c_seq, 0, 0)
    assert sp.simplify(host.subs(SS.c_seq, 0) - SS.c_step) == 0
    assert sp.simplify(SS.step_time() - SS.batch_time() / T_out - host) == 0
    assert sp.diff(SS.step_time() - SS.batch_time() / T_out, B) == SS.c_seq


def test_the_backbone_adds_c_seq_times_the_batch_to_each_step(rows):
    shipped = S.Constants()
    host = replace(shipped, seq_s=PER_SEQUENCE_S)
    extra = S.step_time_s(rows, BATCHES, host) - S.step_time_s(rows, BATCHES, shipped)
    np.testing.assert_allclose(extra, PER_SEQUENCE_S * BATCHES, rtol=1e-9)
    np.testing.assert_array_equal(S.host_step_s(BATCHES, shipped), np.full(5, shipped.step_s))


def test_host_time_lowers_the_busy_power_and_the_capacity(rows):
    """While the host works the GPU waits: the same dynamic energy over a longer step."""
    shipped = S.Constants()
    host = replace(shipped, seq_s=PER_SEQUENCE_S)
    slow, fast = (S.raw_busy_power_w(rows, BATCHES, c) for c in (host, shipped))
    assert np.all(slow < fast) and np.all(slow >= S.idle_power_w(rows, host))
    cap = np.full(len(BATCHES), 256.0)
    assert np.all(S.capacity_qps(rows, cap, host) < S.capacity_qps(rows, cap, shipped))


def test_the_fit_frees_c_seq_only_when_asked():
    """A residual whose minimum lies at c_seq = 2e-5 s and η_bw = 0.7: the shipped set of
    constants keeps c_seq at its start, the set with the host term finds it."""
    target = {"eta_bw": 0.7, "seq_s": 2e-5}

    def residuals(c: S.Constants) -> np.ndarray:
        return np.array([c.eta_bw - target["eta_bw"], (c.seq_s - target["seq_s"]) / 1e-5])

    shipped_set = F.fit_by(residuals)
    assert shipped_set.seq_s == 0.0 and shipped_set.eta_bw == pytest.approx(0.7, rel=1e-6)
    with_host = F.fit_by(residuals, names=F.WITH_HOST)
    assert with_host.seq_s == pytest.approx(2e-5, rel=1e-6)
    assert "seq_s" not in F.NAMES and F.WITH_HOST[-1] == "seq_s"
