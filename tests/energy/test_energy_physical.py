"""Physical mode: hand-computed byte counts, invariants, GPU coefficients, and bad input."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy.estimate import COMPONENTS
from wattgpu_lite.errors import InvalidInputError, UnsupportedModelError

LLAMA2 = "meta-llama/Llama-2-7b-hf"
FIXTURES = Path(__file__).parents[1] / "fixtures"
UNIT_HW = (
    0.0,
    1.0,
    1e30,
    1e30,
    1e30,
    0.0,
    0.0,
    1e30,
)  # alpha 0, e = 1 J/bit: energy terms are bit counts


def _bits(llm, t_in, t_out, batch):
    return P.physical_evaluate(P.llm_args(llm), (t_in, t_out, batch), UNIT_HW, kappa=1.0)[0]


def test_llama2_7b_byte_counts_by_hand():
    m = wl.llm(LLAMA2)
    assert m.kv_bytes_per_token == 2 * 32 * 32 * 128 * 2 == 524_288
    b = _bits(m, 500, 500, 1)
    context = 500 * 500 + 500 * 499 // 2  # tokens attended over the 500 decode steps
    assert float(b["decode", "attention_reads"]) / 8 == pytest.approx(524_288 * context)
    assert float(b["decode", "kv_writes"]) / 8 == pytest.approx(524_288 * 500)
    assert float(b["prefill", "kv_writes"]) / 8 == pytest.approx(524_288 * 500)
    streamed = m.params_b * 1e9 - 32000 * 4096  # the untied input table is gathered, one row
    assert float(b["decode", "parameter_reads"]) / 8 == pytest.approx(2 * (streamed + 4096) * 500)


def test_decode_bytes_at_batch_1_at_least_weight_bytes_per_token():
    for name in (LLAMA2, "meta-llama/Llama-3.1-8B-Instruct"):
        m = wl.llm(name)
        b = _bits(m, 16, 1, 1)
        decode_bytes = sum(float(b["decode", c]) for c in ("parameter_reads", "kv_writes",
                                                          "attention_reads")) / 8  # fmt: skip
        assert decode_bytes >= 2 * m.params_always_b * 1e9  # every streamed weight, once


def test_kv_bytes_scale_with_kv_heads():
    m = wl.llm("meta-llama/Llama-3.1-8B-Instruct")  # 8 KV heads of 32
    mha = dataclasses.replace(m, n_kv_heads=m.n_heads)
    r = float(_bits(mha, 500, 500, 1)["decode", "attention_reads"]) / float(
        _bits(m, 500, 500, 1)["decode", "attention_reads"])  # fmt: skip
    assert r == pytest.approx(m.n_heads / m.n_kv_heads)


def test_weights_are_shared_by_the_batch():
    m = wl.llm(LLAMA2)
    one, many = _bits(m, 100, 100, 1), _bits(m, 100, 100, 64)
    ratio = float(one["decode", "parameter_reads"]) / float(many["decode", "parameter_reads"])
    n, d = m.params_always_b * 1e9, m.hidden_size  # each token gathers its own input row
    assert ratio == pytest.approx(64 * (n + d) / (n + 64 * d), rel=1e-12)
    assert float(one["decode", "attention_reads"]) == float(many["decode", "attention_reads"])


@pytest.mark.parametrize("mode", ["paper", "physical"])
def test_energy_grows_with_tokens_and_size_and_is_never_negative(mode):
    def total(llm="Qwen/Qwen2.5-7B-Instruct", t_in=500, t_out=500):
        est = wl.estimate_energy(llm, "H100 NVL", t_in=t_in, t_out=t_out, mode=mode)
        assert (est.table()["energy_j"] >= 0).all()
        return est.total_j

    base = total()
    assert total(t_in=1000) > base and total(t_out=1000) > base
    assert total(llm="Qwen/Qwen2.5-14B") > base


def test_energy_per_token_falls_with_batch():
    e = [
        wl.estimate_energy(LLAMA2, "A100 SXM4 40GB", t_in=500, t_out=500, batch=b).total_j
        for b in (1, 8, 64)
    ]
    assert e[0] > e[1] > e[2] > 0


def test_breakdown_has_six_components_in_two_phases():
    df = wl.estimate_energy(LLAMA2, "H100 NVL").table()
    assert list(df["component"].unique()) == list(COMPONENTS) and len(COMPONENTS) == 6
    assert set(df["phase"]) == {"prefill", "decode"}
    assert np.allclose(df["energy_wh"] * 3600, df["energy_j"])
    assert (df.loc[df["component"] == "communication", "energy_j"] == 0).all()  # one GPU


def test_gpu_coefficients_measured_and_scaled():
    assert P.gpu_coefficients_j(wl.gpu("H100 NVL"))[:2] == pytest.approx((0.52e-12, 11.68e-12))
    assert P.gpu_coefficients_j(wl.gpu("A100 SXM4 40GB"))[:2] == pytest.approx(
        (0.70e-12, 13.11e-12)
    )
    a, e, basis = P.gpu_coefficients_j(wl.gpu("V100 SXM2 32GB"))  # 12 nm, HBM2
    assert a == pytest.approx(0.70e-12 * 12 / 7) and e == pytest.approx(13.11e-12)
    a, e, basis = P.gpu_coefficients_j(wl.gpu("L4"))  # 5 nm, GDDR6
    assert a == pytest.approx(0.52e-12) and e == pytest.approx(13.11e-12 * 1.92)
    assert "scaled" in basis


def test_spec_sheet_coefficients_are_tdp_over_peak_flops():
    a, e, basis = P.gpu_coefficients_j(wl.gpu("A100 SXM4 40GB"), "spec")
    assert a == pytest.approx(400 / 312e12) and e == pytest.approx(13.11e-12)
    a, e, _ = P.gpu_coefficients_j(wl.gpu("L4"), "spec")  # 72 W, 121 TFLOP/s, GDDR6
    assert a == pytest.approx(72 / 121e12) and e == pytest.approx(13.11e-12 * 1.92)
    assert "spec sheet" in basis
    with pytest.raises(InvalidInputError, match="basis"):
        P.gpu_coefficients_j(wl.gpu("L4"), "guess")


# one engine: dense, MoE, FP8, a tensor-parallel pair, batch 1 to 128
ENGINE_GRID = [
    ("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", 500, 300, 32, 1),
    ("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", 500, 500, 1, 1),
    ("meta-llama/Llama-2-7b-hf", "A100 SXM4 40GB", 500, 500, 8, 1),
    ("Qwen/Qwen3-8B", "L40S", 2000, 200, 4, 1),
    ("openai-community/gpt2", "T4", 15, 180, 128, 1),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", "H100 SXM", 500, 300, 16, 2),
    ("meta-llama/Llama-3.1-70B-Instruct", "B200", 1000, 500, 64, 2),
    ("Qwen/Qwen3-30B-A3B", "H200 SXM", 300, 700, 2, 1),
]


@pytest.mark.parametrize(("llm", "gpu", "t_in", "t_out", "batch", "n"), ENGINE_GRID)
def test_physical_mode_and_the_uncorrected_predictor_are_one_engine(
    llm, gpu, t_in, t_out, batch, n
):
    """Same LLM, GPU, tokens, batch and GPU count: estimate_energy(mode="physical") and
    wl.predict(..., correction=False) give the same power, step time and J per token, and the
    terms add up to power × the request's time (T_out steps of s(B), shared by B sequences)."""
    est = wl.estimate_energy(llm, gpu, t_in=t_in, t_out=t_out, batch=batch, num_gpus=n)
    pred = wl.predict(llm, gpu, t_in=t_in, t_out=t_out, batch=batch, num_gpus=n, correction=False)
    assert np.isfinite([pred.power_w, pred.itl_s]).all()
    assert est.power_w == pytest.approx(pred.power_w, rel=1e-9)
    assert est.step_time_s == pytest.approx(pred.itl_s, rel=1e-9)
    assert est.energy_per_token_j == pytest.approx(pred.energy_per_token_j, rel=1e-9)
    assert est.total_j == pytest.approx(est.power_w * t_out * est.step_time_s / batch, rel=1e-9)
    assert min(est.components_j.values()) >= 0


def test_physical_mode_reports_the_shipped_backbone_constants():
    from wattgpu_lite.energy.backbone.energy_terms import shipped_constants

    c, gpu = shipped_constants(), wl.gpu("A100 SXM4 40GB")
    est = wl.estimate_energy(LLAMA2, gpu, t_in=500, t_out=500, batch=8)
    assert est.kappa == c.kappa and 0 < c.eta_bw <= 1 and 0 < c.eta_flops <= 1
    assert est.static_fraction == pytest.approx(
        (c.idle_w + c.idle_fraction * gpu.tdp_w) / gpu.tdp_w
    )
    assert f"η_bw {c.eta_bw:.3g}" in est.coefficients


def test_phase_times_set_the_static_energy():
    m, gpu, c = wl.llm(LLAMA2), wl.gpu("L40S"), P.defaults("spec")
    args = (P.llm_args(m), (300, 200, 4), P.gpu_args(gpu, c["static_fraction"], "spec"))
    terms, phase_times = P.physical_evaluate(*args, kappa=c["kappa"])
    times = [phase_times[ph] for ph in ("prefill", "decode")]
    static = sum(float(terms[ph, "static"]) for ph in ("prefill", "decode"))
    assert static == pytest.approx(c["static_fraction"] * gpu.tdp_w * sum(map(float, times)))


@pytest.mark.parametrize(
    "kwargs", [dict(t_in=0), dict(t_out=-5), dict(t_in=2.5), dict(t_out="500"), dict(batch=0),
               dict(batch=True), dict(mode="magic"), dict(batch="physical")],
)  # fmt: skip
def test_bad_workload_raises(kwargs):
    with pytest.raises(InvalidInputError):
        wl.estimate_energy(LLAMA2, "H100 NVL", **kwargs)


def test_attention_free_config_is_rejected():
    with pytest.raises(UnsupportedModelError):
        wl.estimate_energy(FIXTURES / "mamba.json", "H100 NVL")


def test_bare_size_paper_mode_warns_and_physical_refuses():
    with pytest.warns(UserWarning, match="dense"):
        est = wl.estimate_energy(8, "H100 NVL", t_in=500, t_out=500, mode="paper")
    assert est.components_j["attention_reads"] == 0.0 and est.notes
    with pytest.raises(InvalidInputError):
        wl.estimate_energy(8, "H100 NVL", mode="physical")


def test_paper_mode_refuses_gpu_counts_and_precisions():
    for kwargs in (dict(num_gpus=2), dict(weights="fp8"), dict(expert_parallel=True)):
        with pytest.raises(InvalidInputError, match="paper mode"):
            wl.estimate_energy(LLAMA2, "H100 NVL", mode="paper", **kwargs)
