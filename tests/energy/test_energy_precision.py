"""Weight precision: bits per weight of each format, and which compute peak the kernels run at."""

import dataclasses

import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy.precision import canonical_format, compute_peak_tflops, weight_bits
from wattgpu_lite.errors import InvalidInputError

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.mark.parametrize(("gpu", "fmt", "peak", "tflops"), [
    ("H100 SXM", "bf16", "fp16", 989.0), ("H100 SXM", "fp8", "fp8", 1979.0),
    ("H100 SXM", "mxfp4", "fp16", 989.0), ("H100 SXM", "int4", "fp16", 989.0),
    ("A100 SXM4 40GB", "fp8", "fp16", 312.0), ("B200", "nvfp4", "fp4", 9000.0),
    ("B200", "fp4", "fp4", 9000.0), ("L4", "fp8", "fp8", 242.5), ("T4", "nf4", "fp16", 65.0),
    ("MI300X", "fp8", "fp8", 2614.9), ("MI300X", "mxfp4", "fp16", 1307.4),
])  # fmt: skip
def test_compute_peak_rule(gpu, fmt, peak, tflops):
    assert compute_peak_tflops(wl.gpu(gpu), fmt) == (tflops, peak)


def test_alpha_is_tdp_over_the_peak_used_in_the_spec_basis():
    g = wl.gpu("H100 SXM")
    assert P.gpu_args(g, 0.19, "spec", "fp8")[0] == pytest.approx(700 / 1979e12)
    assert P.gpu_args(g, 0.19, "spec", "fp8")[2] == pytest.approx(1979e12)
    assert P.gpu_args(g, 0.19, "spec")[0] == pytest.approx(700 / 989e12)
    ant16, ant8 = (P.gpu_args(g, 0.19, "antepara", w)[0] for w in ("bf16", "fp8"))
    assert ant8 == pytest.approx(ant16 * 989 / 1979)


def test_bits_per_weight_of_each_format():
    m = wl.llm(LLAMA)
    got = {f: weight_bits(m, f) for f in ("bf16", "fp16", "fp8", "int8", "int4", "fp4", "nvfp4",
                                          "nf4", "fp32")}  # fmt: skip
    assert got == {"bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4 + 20 / 128,
                   "fp4": 4.25, "nvfp4": 4.5, "nf4": 4.5, "fp32": 16}  # fmt: skip
    own = dataclasses.replace(m, weight_format="int4", weight_bits=4.25)
    assert weight_bits(own) == 4.25 and weight_bits(own, "int4") == 4.25  # the config's own bits
    fp32 = dataclasses.replace(m, weight_format="fp32", weight_bits=32.0)
    assert weight_bits(fp32) == 16  # vLLM serves FP32 checkpoints in FP16


def test_unknown_format_names_close_matches():
    assert canonical_format("FP4") == "mxfp4" and canonical_format("fp32") == "fp16"
    with pytest.raises(InvalidInputError, match="fp8"):
        canonical_format("fp9")
