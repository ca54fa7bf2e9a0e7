"""Every ``--weights`` choice the CLI offers works end to end (estimate and rank), at the bits per
weight data/energy_coefficients.csv gives it; fewer bits store fewer bytes."""

from __future__ import annotations

import math

import pytest

import wattgpu_lite as wl

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"

# bits per weight each offered choice is served at (data/energy_coefficients.csv, weights:<fmt>)
CHOICE_BITS = {"bf16": 16, "fp16": 16, "fp32": 16, "fp8": 8, "int8": 8, "int7": 7 + 23 / 128,
               "int6": 6 + 22 / 128, "int5": 5 + 21 / 128, "int4": 4 + 20 / 128,
               "int3": 3 + 19 / 128, "int2": 2 + 18 / 128, "fp4": 4.25, "mxfp4": 4.25,
               "nvfp4": 4.5, "nf4": 4.5}  # fmt: skip


def test_the_offered_weight_choices_are_the_ones_tested():
    from wattgpu_lite.face.cli.layout import WEIGHT_CHOICES

    assert set(WEIGHT_CHOICES) == set(CHOICE_BITS)


@pytest.mark.parametrize("weights", sorted(CHOICE_BITS))
def test_estimate_serves_each_offered_weight_choice(capsys, weights):
    import json

    from wattgpu_lite.__main__ import main
    from wattgpu_lite.energy.precision import canonical_format

    assert (
        main(["estimate", "--gpu", "H100 NVL", "--llm", LLAMA, "--weights", weights, "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["weights"] == canonical_format(weights)
    assert out["weight_bits"] == pytest.approx(CHOICE_BITS[weights], rel=1e-5)  # 6 figures
    assert math.isfinite(out["total_j"]) and out["total_j"] > 0


@pytest.mark.parametrize("weights", sorted(CHOICE_BITS))
def test_rank_serves_each_offered_weight_choice(capsys, weights):
    import json

    from wattgpu_lite.__main__ import main
    from wattgpu_lite.energy.occupancy import weight_bytes
    from wattgpu_lite.energy.precision import canonical_format

    argv = ["rank", "--llm", LLAMA, "--rate-qps", "0.1", "--itl-sla-ms", "50", "--gpus",
            "H100 SXM", "--gpu-counts", "1", "--weights", weights, "--json"]  # fmt: skip
    assert main(argv) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert row["weights"] == canonical_format(weights) and row["fits"]
    gb = weight_bytes(wl.llm(LLAMA), weights) / 1e9
    assert row["weights_per_gpu_gb"] == pytest.approx(gb, rel=1e-5)  # JSON at 6 figures
    assert math.isfinite(row["energy_per_token_j"]) and row["energy_per_token_j"] > 0


def test_fewer_bits_store_fewer_bytes_for_the_int_formats():
    from wattgpu_lite.energy.occupancy import weight_bytes

    sizes = [weight_bytes(wl.llm(LLAMA), w) for w in ("int2", "int3", "int4", "int8")]
    assert sizes == sorted(sizes) and sizes[0] < 0.15 * weight_bytes(wl.llm(LLAMA), "bf16")


def test_every_storage_format_can_be_served():
    from wattgpu_lite.energy.precision import weight_bits
    from wattgpu_lite.specs.llm import WEIGHT_FORMATS

    bits = {f: weight_bits(wl.llm(LLAMA), f) for f in WEIGHT_FORMATS}
    assert bits == {f: pytest.approx(CHOICE_BITS[f], rel=1e-12) for f in WEIGHT_FORMATS}
