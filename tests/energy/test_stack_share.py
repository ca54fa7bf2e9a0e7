"""The software stack's share of the peaks, r_stack: ROCm's kernels against CUDA's. Derived in
sympy with its limit r_stack → 1 (CUDA, and the model before the term), never above the
datasheet, read per row from the GPU's vendor, and in the backbone a slower step on an AMD GPU
that leaves every NVIDIA GPU's step as it was, to the bit."""

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
from wattgpu_lite.hybrid.predict.model import HybridState

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def test_the_share_is_cudas_in_the_limit_and_never_above_the_datasheet():
    peak = sp.Symbol("P", positive=True)
    half = sp.Rational(1, 2)
    assert SS.achieved_bandwidth(peak).subs({SS.r_stack: 1, SS.eta_bw: half}) == peak / 2
    assert SS.achieved_bandwidth(peak).subs({SS.r_stack: 3, SS.eta_bw: half}) == peak  # capped
    flops = SS.achieved_flops(peak).subs({SS.r_fmt: 1, SS.eta_f: half})
    assert flops.subs(SS.r_stack, 1) == peak / 2 and flops.subs(SS.r_stack, 4) == peak
    c = replace(S.Constants(), eta_flops=0.4, fp8_ratio=1.5)
    for stack in (0.3, 1.0, 2.0):
        expected = float(SS.achieved_flops(peak).subs({SS.eta_f: 0.4, SS.r_fmt: 1.5,
                                                       SS.r_stack: stack, peak: 1}))  # fmt: skip
        assert S.flops_share(np.array([1]), c, stack)[0] == pytest.approx(expected, rel=1e-15)


def test_rows_know_their_stack_from_the_vendor():
    gpus = [wl.gpu(name) for name in ("MI300X", "H100 SXM", "MI250X", "A30")]
    rows, _ = R.build([wl.llm(LLAMA)] * 4, gpus, 500.0, 300.0)
    assert rows.rocm.tolist() == [1.0, 0.0, 1.0, 0.0]


def test_a_lower_rocm_share_slows_only_the_amd_gpu():
    shipped = HybridState.pretrained().constants
    slower = replace(shipped, rocm_ratio=0.5)
    rows, _ = R.build([wl.llm(LLAMA)] * 2, [wl.gpu("MI300X"), wl.gpu("H100 SXM")], 500.0, 300.0)
    before, after = S.achieved_hw(rows, shipped), S.achieved_hw(rows, slower)
    ratio = np.asarray(after.bandwidth_bytes_s) / np.asarray(before.bandwidth_bytes_s)
    assert ratio.tolist() == pytest.approx([0.5, 1.0], rel=1e-12)
    flops = np.asarray(after.peak_flops) / np.asarray(before.peak_flops)
    assert flops.tolist() == pytest.approx([0.5, 1.0], rel=1e-12)
    batch = np.array([1.0, 1.0])
    t0, t1 = S.step_time_s(rows, batch, shipped), S.step_time_s(rows, batch, slower)
    assert t1[1] == t0[1]  # the NVIDIA GPU: to the bit
    assert t1[0] > 1.5 * t0[0]  # batch 1 on the MI300X: bytes-bound, about twice as long


def test_a_fit_on_runs_alone_holds_the_share_and_its_bounds_keep_it_physical():
    assert "rocm_ratio" in F.ACROSS_HARNESSES and "rocm_ratio" not in F.NAMES
    assert F.WITH_STACK == (*F.WITH_COLLECTIVES, "rocm_ratio")
    assert 0 < F.LOWER["rocm_ratio"] < 1 < F.UPPER["rocm_ratio"]
