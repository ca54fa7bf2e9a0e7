"""FLOPs per tensor group at each group's own compute peak.

The routed experts' FLOPs C_e = 2·k·n_moe·N_e per token run at the peak of the experts' format,
everything else (always-read weights, attention) at the always-read format's peak. A dense model,
or one whose two groups share a format, keeps the one-peak answer; gpt-oss (bf16 attention, MXFP4
experts) on a B200 (FP16 2,250 / FP4 9,000 dense TFLOP/s) times its bf16 FLOPs at the FP16 peak.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import wattgpu_lite as wl
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy import symbolic_physical as SP
from wattgpu_lite.energy.args import expert_flops_per_token, single_gpu
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.energy.precision import served_format, streamed_formats
from wattgpu_lite.errors import InvalidInputError

NO_COMM = single_gpu()._replace(expert_group_s=0.0)  # one GPU, no expert-group time
SAME_FORMAT = [
    ("meta-llama/Llama-3.1-8B-Instruct", "B200"),
    ("meta-llama/Llama-3.1-8B-Instruct", "H100 SXM"),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", "B200"),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", "L40S"),
    ("unsloth/gpt-oss-20b-BF16", "B200"),
    ("openai/gpt-oss-20b", "H100 SXM"),  # no FP4 tensor cores: both groups at the FP16 peak
    ("openai/gpt-oss-120b", "A100 SXM4 80GB"),
]


def _one_peak_hw(llm, gpu) -> tuple[float, ...]:
    """Yesterday's hardware tuple: every FLOP at the served format's peak."""
    return P.gpu_args(gpu, 0.19, "spec", served_format(llm))


@pytest.mark.parametrize(("llm", "gpu"), SAME_FORMAT)
def test_a_model_whose_groups_share_a_peak_keeps_the_one_peak_answer(llm, gpu):
    m, g = wl.llm(llm), wl.gpu(gpu)
    per_group = P.model_gpu_args(m, g, 0.19, "spec")
    assert per_group[6:] == per_group[:1] + per_group[2:3]  # alpha_e = alpha, F_e = F_peak
    for batch in (1, 16, 256):
        work = (np.array([50.0, 2000.0]), np.array([300.0, 800.0]), np.full(2, float(batch)))
        new = P.physical_evaluate(P.llm_args(m), work, per_group, kappa=1.3)
        old = P.physical_evaluate(P.llm_args(m), work, _one_peak_hw(m, g), kappa=1.3)
        for got, want in zip((*new[0].values(), *new[1].values()),
                             (*old[0].values(), *old[1].values()), strict=True):  # fmt: skip
            # the same expression on equal arguments, no fitted value: equal to rounding
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0.0)


def test_gpt_oss_streams_bf16_attention_and_mxfp4_experts():
    m = wl.llm("openai/gpt-oss-20b")
    assert streamed_formats(m) == ("bf16", "mxfp4")
    assert streamed_formats(m, "fp8") == ("fp8", "fp8")  # re-quantised: one format for both
    rows, _ = R.build([m, m], [wl.gpu("B200"), wl.gpu("H100 SXM")], 500, 300)
    assert list(rows.flops) == [2250e12, 989e12]  # gpus.csv dense FP16 peaks
    assert list(rows.flops_expert) == [9000e12, 989e12]  # B200 dense FP4; H100 has none
    assert rows.alpha_expert[0] == pytest.approx(rows.alpha[0] / 4.0, rel=1e-12)


def test_gpt_oss_20b_on_a_b200_computes_its_bf16_share_at_the_fp16_peak():
    """One decode token after a one-token prompt, memory and power unbounded: the rise is
    (2·N_always + 4·n_l·d_q·1)·(1/F_FP16 − 1/F_FP4), N_always counted from config.json."""
    h, layers, d_q, vocab = 2880, 24, 64 * 64, 201088  # openai/gpt-oss-20b config.json
    attention = (
        h * d_q + d_q + 2 * (h * 512 + 512) + d_q * h + h + 64
    )  # q, k, v, o (+biases), sinks
    router, norms = h * 32 + 32, 2 * h
    n_always = layers * (attention + router + norms) + vocab * h + h  # untied LM head, final norm
    assert n_always == 1_218_690_624
    bf16_flops = 2 * n_always + 4 * layers * d_q * 1  # attention over a context of one token
    m, g = wl.llm("openai/gpt-oss-20b"), wl.gpu("B200")
    hw = list(P.model_gpu_args(m, g, 0.0, "spec"))
    hw[3:5] = [1e30, 1e30]  # bandwidth and power limit out of the way: the compute time alone
    old = list(_one_peak_hw(m, g))
    old[3:5] = [1e30, 1e30]
    times = [P.physical_evaluate(P.llm_args(m), (1, 1, 1), x, kappa=1.0, deploy=NO_COMM)[1]["decode"]
             for x in (hw, old)]  # fmt: skip
    rise = bf16_flops * (1 / 2250e12 - 1 / 9000e12)
    assert float(times[0] - times[1]) == pytest.approx(rise, rel=1e-6)
    expert = 2 * 4 * 24 * 24_891_840  # 2·k·n_moe·N_e: top-4 of 32, 3·2880² + 3·2880 each
    assert float(times[0]) == pytest.approx(bf16_flops / 2250e12 + expert / 9000e12, rel=1e-6)


def test_the_expert_flops_in_numbers_are_the_derivation():
    m = wl.llm("openai/gpt-oss-120b")
    args = P.llm_args(m)
    want = SP.expert_flops(1).subs(dict(zip(SP.MODEL, args, strict=True)))
    assert expert_flops_per_token(args) == pytest.approx(float(want), rel=1e-12)
    assert expert_flops_per_token(P.llm_args(wl.llm("meta-llama/Llama-3.1-8B-Instruct"))) == 0.0


def test_the_energy_per_flop_of_each_group_follows_its_peak():
    g = wl.gpu("B200")
    alpha, *_, alpha_e, f_e = P.gpu_args(g, 0.19, "spec", "bf16", expert_weights="mxfp4")
    assert alpha == pytest.approx(g.tdp_w / 2250e12) and f_e == 9000e12
    assert alpha_e == pytest.approx(g.tdp_w / 9000e12)


def test_an_estimate_notes_both_peaks_when_they_differ():
    notes = " ".join(wl.estimate_energy("openai/gpt-oss-20b", "B200").notes)
    assert "FP16 peak (2250 TFLOP/s)" in notes and "FP4 peak (9000 TFLOP/s)" in notes
    plain = " ".join(wl.estimate_energy("openai/gpt-oss-20b", "H100 SXM").notes)
    assert "own peak" not in plain


def test_a_hardware_tuple_of_the_wrong_length_is_refused():
    m = wl.llm("meta-llama/Llama-3.1-8B-Instruct")
    six = P.gpu_args(wl.gpu("A30"), 0.19, "spec")[:6]
    with pytest.raises(
        InvalidInputError, match="hardware has 6 elements.*expects 8.*expert_peak_flops"
    ):
        P.physical_evaluate(P.llm_args(m), (10, 10, 1), six, kappa=1.0)


def test_the_display_names_both_peaks():
    text = sp.latex(SP.compute_s("decode"))
    assert "F_{e}" in text and "F_{peak}" in text
