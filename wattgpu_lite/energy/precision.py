"""Weight precision: the stored format, its bits per weight, and the compute peak the kernels use.

``weights`` names a storage format (:data:`wattgpu_lite.specs.llm.WEIGHT_FORMATS`, plus the alias
``"fp4"`` = ``"mxfp4"``, the OCP microscaling format of gpt-oss). Bits per weight, scales included,
come from ``data/energy_coefficients.csv`` (scope ``weights:<format>``, each with its source); a
model's own format keeps the bits its config states (``LLM.weight_bits``). FP32 checkpoints are
*served* at 16 bits: vLLM's ``dtype="auto"`` runs FP32 models in FP16.

**Which compute peak** (:func:`compute_peak_tflops`) — the precision the GEMMs run in:

* bf16 / fp16 / fp32 → the FP16 tensor peak;
* fp8 → the FP8 peak where the GPU has one (W8A8), else FP16 (weight-only: vLLM dequantises FP8
  weights in its Marlin kernels on GPUs without FP8 tensor cores);
* int8 … int2, nf4 → FP16 (weight-only W8A16/W4A16 kernels: GPTQ/AWQ Marlin, GPTQ 2/3-bit and
  the 5–7-bit GPTQ formats, bitsandbytes);
* mxfp4 / nvfp4 → the FP4 peak where the GPU has one (W4A4), else FP16 — vLLM's weight-only FP4
  Marlin path ("Your GPU does not have native support for FP4 computation ... Weight-only FP4
  compression will be used"). Such a combination is computable; the result names the peak used.

**Per tensor group** (:func:`streamed_formats`): the always-read weights with attention, and the
routed experts, each run at the peak of their own format — gpt-oss's bf16 attention at the FP16
peak, its MXFP4 experts at the FP4 peak (where the GPU has one).
"""

from __future__ import annotations

import difflib
import math

from wattgpu_lite.energy import coefficients
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.specs.llm import WEIGHT_FORMATS

ALIASES = {"fp4": "mxfp4", "half": "fp16", "bfloat16": "bf16", "float16": "fp16"}
FP4 = ("mxfp4", "nvfp4")


def canonical_format(weights: str) -> str:
    """The served format of ``weights`` (alias resolved, fp32 → fp16); InvalidInputError if unknown."""
    fmt = ALIASES.get(str(weights).lower(), str(weights).lower())
    if fmt not in WEIGHT_FORMATS:
        names = sorted(WEIGHT_FORMATS | set(ALIASES))
        close = difflib.get_close_matches(fmt, names, n=3)
        raise InvalidInputError(
            f"weights {weights!r} is not a weight format; close matches: {close or 'none'}. "
            f"Pass one of {names}."
        )
    return "fp16" if fmt == "fp32" else fmt


def format_bits(weights: str) -> float:
    """Bits per stored weight of a format, scales included (energy_coefficients.csv)."""
    return coefficients.value("bits_per_weight", f"weights:{canonical_format(weights)}")


def served_format(llm, weights: str | None = None) -> str:
    """The format the weights are served in: ``weights`` if given, else the model's own."""
    return canonical_format(llm.weight_format if weights is None else weights)


def weight_bits(llm, weights: str | None = None) -> float:
    """Bits per weight as served: the model's own ``weight_bits`` for its own format (not FP32,
    which is served at 16), else the format's bits from the table."""
    fmt = served_format(llm, weights)
    own = fmt == llm.weight_format and llm.weight_format != "fp32"
    return float(llm.weight_bits) if own else format_bits(fmt)


def streamed_bits(llm, weights: str | None = None) -> tuple[float, float]:
    """(always-read, routed-expert) bits per weight a decode step streams: the model's own
    ``weight_bits_always`` / ``weight_bits_expert`` for its own format (gpt-oss: 16-bit attention
    and LM head, 4.25-bit experts), else the format's bits for both (``weights`` re-quantises
    every linear layer in this reading, the LM head included)."""
    fmt = served_format(llm, weights)
    if fmt == llm.weight_format and llm.weight_format != "fp32":
        return float(llm.weight_bits_always), float(llm.weight_bits_expert)
    bits = format_bits(fmt)
    return bits, bits


def streamed_formats(llm, weights: str | None = None) -> tuple[str, str]:
    """(always-read, routed-expert) formats the kernels of each tensor group run in: a group
    streamed at 16 bits (gpt-oss keeps attention and the LM head in bf16) runs at 16 bits
    ("bf16"), any other at the served format. With ``weights`` given both groups share it, as
    they do in every dense model (the routed group is then empty)."""
    fmt = served_format(llm, weights)
    return tuple("bf16" if bits >= 16.0 else fmt for bits in streamed_bits(llm, weights))


def compute_peak_tflops(gpu, weight_format: str) -> tuple[float, str]:
    """(dense peak TFLOP/s, which peak: "fp16", "fp8" or "fp4") the kernels of ``weight_format``
    run at on ``gpu`` (rule in the module docstring)."""
    fmt = canonical_format(weight_format)
    if fmt == "fp8" and _has(gpu.fp8_tflops):
        return float(gpu.fp8_tflops), "fp8"
    if fmt in FP4 and _has(gpu.fp4_tflops):
        return float(gpu.fp4_tflops), "fp4"
    return float(gpu.fp16_tflops), "fp16"


def _has(peak: float) -> bool:
    return peak is not None and math.isfinite(peak) and peak > 0
