"""The achieved share of a format's peak FLOP/s, min(η_f · r_fmt, 1): derived in sympy with its
limit r_fmt → 1 (one share for every format, the shipped model), never above the peak, read per
tensor group from the peak its format runs at, and in the backbone a slower compute-bound step of
an FP8 model that leaves a 16-bit model's step as it was. The solves on the step's pieces with
it are checked against the bracketed searches in tests/energy/test_backbone_searches.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import wattgpu_lite as wl
from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy import symbolic_step as SS
from wattgpu_lite.energy.args import model_peak_kinds
from wattgpu_lite.energy.backbone import constants_fit as F
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.hybrid.predict.model import HybridState

FP8_MODEL = "meta-llama/Llama-3.1-405B-FP8"
BF16_MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def test_the_share_is_one_for_every_format_in_the_limit_and_never_above_the_peak():
    peak = sp.Symbol("F_peak", positive=True)
    achieved = SS.achieved_flops(peak).subs(SS.r_stack, 1)  # on CUDA (test_stack_share: ROCm)
    assert (
        sp.simplify(achieved.subs({SS.r_fmt: 1, SS.eta_f: sp.Rational(7, 20)}) - 0.35 * peak) == 0
    )
    assert achieved.subs({SS.eta_f: sp.Rational(3, 4), SS.r_fmt: 2}) == peak  # capped at the peak
    shares = np.array([0.05, 0.35, 0.8])
    for ratio in (0.2, 1.0, 1.7):
        c = replace(S.Constants(), eta_flops=0.5, fp8_ratio=ratio, fp4_ratio=ratio / 2)
        for kind, r in ((0, 1.0), (1, ratio), (2, ratio / 2)):
            expected = [float(achieved.subs({SS.eta_f: s, SS.r_fmt: r, peak: 1})) for s in shares]
            got = [S.flops_share(np.array([kind]), replace(c, eta_flops=s))[0] for s in shares]
            np.testing.assert_allclose(got, expected, rtol=1e-15)


@pytest.mark.parametrize(
    ("model", "gpu", "kinds"),
    [
        (FP8_MODEL, "H100 SXM", ("fp8", "fp8")),
        (FP8_MODEL, "A100 SXM4 80GB", ("fp16", "fp16")),  # no FP8 peak: W8A16 kernels
        (BF16_MODEL, "H100 SXM", ("fp16", "fp16")),
        ("openai/gpt-oss-120b", "H100 SXM", ("fp16", "fp16")),  # MXFP4 without an FP4 peak
        ("openai/gpt-oss-120b", "B200", ("fp16", "fp4")),  # bf16 attention, MXFP4 experts
    ],
)
def test_each_tensor_group_runs_at_the_peak_of_its_format(model, gpu, kinds):
    assert model_peak_kinds(wl.llm(model), wl.gpu(gpu)) == kinds
    rows, _ = R.build([wl.llm(model)], [wl.gpu(gpu)], 500.0, 300.0)
    assert (S.PEAK_KINDS[rows.peak_kind[0]], S.PEAK_KINDS[rows.peak_kind_expert[0]]) == kinds


def test_a_lower_fp8_share_slows_only_the_fp8_model_and_only_where_compute_binds():
    shipped = HybridState.pretrained().constants
    slower = replace(shipped, fp8_ratio=0.3)
    batches = np.array([1.0, 512.0])
    models = [wl.llm(FP8_MODEL), wl.llm(BF16_MODEL)]
    rows, _ = R.build([models[0]] * 2 + [models[1]] * 2, [wl.gpu("H100 SXM")] * 4, 2000.0, 200.0,
                      num_gpus=8)  # fmt: skip
    batch = np.tile(batches, 2)
    before, after = S.step_time_s(rows, batch, shipped), S.step_time_s(rows, batch, slower)
    assert after[2:] == pytest.approx(before[2:], rel=0, abs=0)  # the 16-bit model: unchanged
    assert after[1] > 1.5 * before[1]  # FP8 at batch 512: compute-bound, about 1/0.3 slower
    assert after[0] >= before[0]  # FP8 at batch 1: never faster


def test_the_shipped_fit_holds_the_format_shares_and_the_calibration_frees_fp8_only():
    shipped = HybridState.pretrained().constants
    assert shipped.fp8_ratio == shipped.fp4_ratio == 1.0
    assert not set(F.NAMES) & {"fp8_ratio", "fp4_ratio", "seq_s"}
    assert F.WITH_FORMATS == (*F.WITH_HOST, "fp8_ratio")
    assert F.LOWER["fp8_ratio"] > 0 and F.UPPER["fp8_ratio"] * shipped.eta_flops <= 1.0
