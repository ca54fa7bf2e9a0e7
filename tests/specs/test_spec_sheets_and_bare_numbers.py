"""GPU spec sheets (a misspelt key, a
required field given as unknown, memory types) and the bare arguments of ``estimate_energy``
(a bare model size of any numeric type, the GPU it is asked about, ``llm`` of the wrong type,
``mode``). Each probe asserts the error class and that the message names the field, the value
and the fix, or asserts the answer. Deterministic: no random draws.
"""

from __future__ import annotations

import json
import math
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from config_fixtures import FIX

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError, SpecError, UnknownGPUError, WattGPUError
from wattgpu_lite.specs.resolve import resolve_gpu

FIXTURES = Path(__file__).parents[1] / "fixtures"
SPEC = json.loads((FIXTURES / "gpu_rtx5090_spec.json").read_text())
LLAMA_ID = "meta-llama/Llama-3.1-8B-Instruct"


def _refused(error: type[WattGPUError], words: list[str], call) -> str:
    with pytest.raises(WattGPUError) as caught:
        call()
    message = str(caught.value)
    assert isinstance(caught.value, error), (type(caught.value).__name__, message)
    missing = [w for w in words if w not in message]
    assert not missing, f"{missing} not in: {message}"
    assert FIX.search(message), f"no fix in: {message}"
    assert "\n" not in message
    return message


def _paper(size, gpu="H100 SXM"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "dense terms only"
        return wl.estimate_energy(size, gpu, mode="paper")


# --- GPU spec: a key the kit does not know names the key meant --------------------------------
@pytest.mark.parametrize(
    ("written", "meant"),
    [("tdp", "tdp_w"), ("TDP_W", "tdp_w"), ("bandwith_gbs", "bandwidth_gbs"),
     ("fp16_tflop", "fp16_tflops"), ("memory", "memory_gb"), ("release", "release_year"),
     ("fp8_tflop", "fp8_tflops"), ("idle_w", "idle_power_w")],
)  # fmt: skip
def test_a_misspelt_spec_key_names_the_key_meant(written, meant):
    spec = {k: v for k, v in SPEC.items() if k != meant} | {written: SPEC.get(meant, 100)}
    message = _refused(SpecError, [repr(written), "did you mean", repr(meant)],
                       lambda: wl.GPU.from_spec(spec))  # fmt: skip
    assert "valid keys" in message


def test_an_unknown_key_like_no_valid_one_lists_the_valid_keys():
    message = _refused(
        SpecError, ["'zzzz'", "valid keys"], lambda: wl.GPU.from_spec(SPEC | {"zzzz": 1})
    )
    assert "did you mean" not in message


# --- GPU spec: a required field given as unknown ----------------------------------------------
@pytest.mark.parametrize(
    ("field", "value"),
    [("tdp_w", math.nan), ("memory_gb", math.nan), ("bandwidth_gbs", math.nan),
     ("fp16_tflops", math.nan), ("release_year", math.nan), ("name", "  "), ("memory_type", "")],
)  # fmt: skip
def test_a_required_spec_field_given_as_unknown_says_what_it_got(field, value):
    _refused(SpecError, [repr(field), "required", f"got {value!r}", "unknown", "spec sheet"],
             lambda: wl.GPU.from_spec(SPEC | {field: value}))  # fmt: skip


def test_a_required_spec_field_left_out_says_it_is_missing():
    spec = {k: v for k, v in SPEC.items() if k != "tdp_w"}
    message = _refused(
        SpecError, ["'tdp_w'", "required but missing"], lambda: wl.GPU.from_spec(spec)
    )
    assert "got" not in message


# --- GPU spec: memory types ---------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["HBM5", "SRAM", "eDRAM", "GDDR8X", "DDR3", "HBM3f", "unknown"])
def test_a_memory_type_no_accelerator_has_is_refused_listing_the_valid_ones(bad):
    _refused(SpecError, ["'memory_type'", repr(bad), "HBM3e", "GDDR7", "LPDDR5X"],
             lambda: wl.GPU.from_spec(SPEC | {"memory_type": bad}))  # fmt: skip


@pytest.mark.parametrize(
    ("given", "stored"),
    [("GDDR6 X", "GDDR6X"), ("hbm", "HBM"), ("hbm-3e", "HBM3e"), ("ddr5", "DDR5")],
)
def test_a_memory_type_in_another_spacing_is_stored_in_its_spelling(given, stored):
    assert wl.GPU.from_spec(SPEC | {"memory_type": given}).memory_type == stored


def test_a_gpu_spec_folder_asks_for_the_file(tmp_path):
    _refused(SpecError, [repr(str(tmp_path)), "is a folder", "GPU spec .json"],
             lambda: resolve_gpu(str(tmp_path)))  # fmt: skip


# --- estimate_energy: a bare model size and the GPU it is asked about ---------------------------
@pytest.mark.parametrize(
    ("gpu", "table"),
    [("A100 SXM4 80GB", "Table 6 (A100)"), ("A100 SXM4 40GB", "Table 6 (A100)"),
     ("A100 PCIe 80GB", "Table 6 (A100)"), ("H100 SXM", "Table 1 (H100)"),
     ("H100 NVL", "Table 1 (H100)")],
)  # fmt: skip
def test_a_bare_size_takes_the_paper_table_of_the_gpu_asked(gpu, table):
    est = _paper(8, gpu)
    assert est.gpu == gpu and est.coefficients == f"paper {table}"


def test_a_bare_size_on_an_a100_is_not_the_h100_answer():
    a100, h100 = _paper(8, "A100 SXM4 80GB"), _paper(8, "H100 SXM")
    assert a100.total_j > h100.total_j * 1.2  # the A100's coefficients, not the H100's


@pytest.mark.parametrize("gpu", ["banana", "A100"])
def test_a_bare_size_on_an_unknown_gpu_is_refused(gpu):
    with pytest.raises(UnknownGPUError, match=repr(gpu)):
        _paper(8, gpu)


@pytest.mark.parametrize(
    "size",
    [np.float64("nan"), np.float32("inf"), np.int64(0), Fraction(1, 1000), -0.0, 1e-3,
     np.float64(2e5), -np.inf],
    ids=["np-nan", "np32-inf", "np-zero", "fraction", "minus-zero", "1e-3", "2e5", "-inf"],
)  # fmt: skip
def test_a_bare_size_of_any_numeric_type_outside_its_range_is_refused(size):
    _refused(InvalidInputError, ["llm", "billion", "0.01 to 100,000"], lambda: _paper(size))


@pytest.mark.parametrize(
    "size",
    [np.int64(8), Fraction(8), np.float32(8.0), 8.0],
    ids=["np-int", "fraction", "np32", "float"],
)
def test_a_bare_size_of_any_numeric_type_inside_its_range_is_answered_as_8(size):
    assert _paper(size).to_dict()["total_j"] == _paper(8).to_dict()["total_j"]


@pytest.mark.parametrize(
    "llm",
    [True, 8j, None, b"x.json", [8], Decimal("8"), {8}],
    ids=["bool", "complex", "none", "bytes", "list", "decimal", "set"],
)  # fmt: skip
def test_an_llm_of_the_wrong_type_says_what_to_pass(llm):
    _refused(InvalidInputError, ["llm", type(llm).__name__, "catalog name", "config.json"],
             lambda: wl.estimate_energy(llm, "H100 SXM"))  # fmt: skip


# --- estimate_energy: mode and the options paper mode has not -----------------------------------
@pytest.mark.parametrize(
    ("mode", "meant"),
    [("Paper", "paper"), ("PHYSICAL", "physical"), (" paper", "paper"), ("fizz", "physical"),
     (5, "physical"), (None, "physical")],
)  # fmt: skip
def test_a_mode_the_kit_has_not_names_the_mode_to_pass(mode, meant):
    _refused(InvalidInputError, ["mode", repr(mode), f"mode={meant!r}"],
             lambda: wl.estimate_energy(LLAMA_ID, "H100 SXM", mode=mode))  # fmt: skip


@pytest.mark.parametrize(
    "option",
    [{"num_gpus": 2}, {"weights": "fp8"}, {"parallel": wl.Parallel(tp=2)}],
    ids=["num_gpus", "weights", "parallel"],
)
def test_paper_mode_options_say_to_drop_them(option):
    _refused(InvalidInputError, ["paper mode", "drop them", "mode='physical'"],
             lambda: wl.estimate_energy(LLAMA_ID, "H100 SXM", mode="paper", **option))  # fmt: skip
