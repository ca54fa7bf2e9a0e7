"""A GPU name given as the LLM (or an LLM's as the GPU) says so and that the LLM comes first:
``wl.predict("L4", "meta-llama/Llama-3.1-8B-Instruct")`` was "unknown LLM 'L4'. Close matches:
none", which sends a student to the LLM catalog for a GPU. Names of neither catalog are
refused as before, with their close matches."""

import pytest

import wattgpu_lite as wl
from tests.cli_runner import one_error_line, run_cli
from wattgpu_lite.errors import UnknownGPUError, UnknownLLMError

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: wl.predict("L4", LLAMA8, rate_qps=0.1), UnknownLLMError, "'L4' is a GPU"),
        (
            lambda: wl.predict(LLAMA8, LLAMA8, rate_qps=0.1),
            UnknownGPUError,
            f"'{LLAMA8}' is an LLM",
        ),
        (lambda: wl.estimate_energy("h100 nvl", LLAMA8), UnknownLLMError, "'H100 NVL' is a GPU"),
        (
            lambda: wl.rank_gpus("A30", itl_sla_ms=50, rate_qps=0.1),
            UnknownLLMError,
            "'A30' is a GPU",
        ),
    ],
)
def test_a_name_of_the_other_catalog_says_the_two_were_swapped(call, error, words):
    with pytest.raises(error) as err:
        call()
    assert words in str(err.value) and "swapped? The LLM comes first" in str(err.value)


def test_the_cli_says_it_too(capsys):
    argv = ["predict", "--llm", "L4", "--gpu", LLAMA8, "--rate-qps", "0.1"]
    one_error_line(*run_cli(argv, capsys), ["'L4' is a GPU", "swapped"])


def test_a_name_of_no_catalog_is_refused_with_its_close_matches_only():
    with pytest.raises(UnknownGPUError) as err:
        wl.gpu("H100 SXX")
    assert "swapped" not in str(err.value) and "'H100 SXM'" in str(err.value)
