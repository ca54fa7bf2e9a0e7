"""``wl.compare`` (and ``compare --gpus``) with the GPU lists an analyst mistypes: a number or one
spec where a list is expected was a TypeError traceback; an empty name ("A30,,L4", "" or ",") was
looked up as the GPU '' (arbitrary close matches); a reference that is compared but refused was
said to be "not compared here", and the GPUs to pass instead were cut to the close matches of
the reference's name ('T4' offered only 'L4', hiding the A30)."""

from __future__ import annotations

import pytest

import wattgpu_lite as wl
from wattgpu_lite.__main__ import main
from wattgpu_lite.errors import InvalidInputError

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.mark.parametrize("gpus", [5, 2.5, True, {"name": "x", "memory_gb": 8}])
def test_gpus_that_are_no_list_are_refused_by_name(gpus):
    with pytest.raises(InvalidInputError, match=r"gpus must be two or more GPUs.*gpus=\['A30'"):
        wl.compare(LLAMA8, gpus, rate_qps=1)


@pytest.mark.parametrize("gpus", ["", ",", " , ", ["A30", ""]])
def test_empty_names_are_left_out_not_looked_up(gpus):
    with pytest.raises(InvalidInputError, match="give two or more different GPUs") as err:
        wl.compare(LLAMA8, gpus, rate_qps=1)
    assert "unknown GPU ''" not in str(err.value)


def test_an_empty_name_between_two_is_left_out_as_rank_does():
    assert {r["gpu"] for r in wl.compare(LLAMA8, "A30,,L4", rate_qps=1).rows} == {"A30", "L4"}


def test_a_reference_not_compared_names_every_gpu_it_could_be():
    with pytest.raises(InvalidInputError) as err:
        wl.compare(LLAMA8, ["A30", "L4"], rate_qps=1, reference="T4")
    message = str(err.value)
    assert "(it is not among gpus)" in message and "'A30'" in message and "'L4'" in message


def test_a_reference_compared_but_refused_says_why():
    with pytest.raises(InvalidInputError) as err:
        wl.compare("meta-llama/Llama-3.1-70B", ["A30", "H100 SXM"], rate_qps=1, num_gpus=2,
                   reference="A30")  # fmt: skip
    assert "does not fit in memory" in str(err.value) and "['H100 SXM']" in str(err.value)


def test_the_cli_refuses_an_empty_gpu_list_in_one_line(capsys):
    assert main(["compare", "--llm", LLAMA8, "--rate-qps", "1", "--gpus", ","]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: gpus: give two or more different GPUs") and "''" not in err
