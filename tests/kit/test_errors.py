"""The error classes themselves: close matches, builtin compatibility, one-line messages."""

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import (
    InvalidInputError,
    UnknownGPUError,
    UnknownLLMError,
    WattGPUError,
    close_matches,
)


def test_close_matches_ranks_near_names_first():
    names = ["H100 NVL", "H100 PCIe", "H200 NVL", "A100 SXM4 40GB", "L4"]
    assert close_matches("h100 nvl", names)[0] == "H100 NVL"
    assert "A100 SXM4 40GB" in close_matches("A100", names)


def test_unknown_gpu_error_lists_matches_and_what_to_do():
    err = UnknownGPUError("H100 NLV", ["H100 NVL", "H200 NVL", "T4"])
    text = str(err)
    assert "'H100 NLV'" in text and "'H100 NVL'" in text
    assert "GPU.from_spec" in text
    assert isinstance(err, KeyError) and isinstance(err, WattGPUError)


def test_unknown_llm_error_points_to_config_parsing():
    err = UnknownLLMError("llama-3.1-8b", ["meta-llama/Llama-3.1-8B-Instruct"])
    assert "from_hf_config" in str(err)
    assert err.matches == ["meta-llama/Llama-3.1-8B-Instruct"]


def test_invalid_input_from_the_kit_is_a_value_error_naming_field_and_fix():
    """A real kit call, caught as the builtin a caller would catch (not the class raising itself)."""
    with pytest.raises(ValueError) as info:
        wl.estimate_energy("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", t_out=0)
    assert type(info.value) is InvalidInputError and isinstance(info.value, WattGPUError)
    assert "t_out" in str(info.value) and "e.g. t_out=500" in str(info.value)
