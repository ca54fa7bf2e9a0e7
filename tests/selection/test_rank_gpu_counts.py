"""``rank`` / ``rank_gpus`` refuse odd GPU counts and candidates cleanly (one line, exit 2 in the
CLI; the kit's error in Python, naming the field), and a bare GPU name or GPU object is one
candidate."""

from __future__ import annotations

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"

RANK = ["rank", "--llm", LLAMA, "--rate-qps", "0.1", "--itl-sla-ms", "50", "--gpus", "L4"]


@pytest.mark.parametrize(
    ("counts", "fragment"),
    [
        ("a", "gpu_counts must be a number, got 'a'"),
        ("2.5", "gpu_counts must be a whole number, got 2.5"),
        ("1,x", "gpu_counts must be a number, got 'x'"),
        ("0", "gpu_counts must be from 1 to 64, got 0"),
        ("65", "gpu_counts must be from 1 to 64, got 65"),
        ("nan", "gpu_counts must be finite"),
        (",", "gpu_counts is empty"),
        ("3", "no layout of gpu_counts (3,) can serve"),
    ],
)
def test_rank_gpu_counts_errors_are_one_line_exit_2(capsys, counts, fragment):
    from wattgpu_lite.__main__ import main

    assert main([*RANK, "--gpu-counts", counts]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and fragment in err and err.count("\n") == 1, err


def test_rank_a_bare_gpu_name_is_one_candidate():
    one = wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50, candidates="L4", gpu_counts=(1,))
    listed = wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50, candidates=["L4"], gpu_counts=(1,))
    assert one["gpu"].tolist() == ["L4"]
    assert one["energy_per_token_j"].tolist() == listed["energy_per_token_j"].tolist()
    device = wl.gpu("H100 SXM")
    assert wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50, candidates=device,
                        gpu_counts=1)["gpu"].tolist() == ["H100 SXM"]  # fmt: skip


def test_rank_gpu_counts_that_split_no_heads_say_so():
    with pytest.raises(InvalidInputError) as err:
        wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50, candidates=["L4", "H100 SXM"],
                     gpu_counts=(3,))  # fmt: skip
    text = str(err.value)
    assert "no layout of gpu_counts (3,) can serve" in text and "tp must divide 32" in text
    assert "fits no candidate" not in text
    assert text.count("tp=3") == 1  # one reason, not one per GPU


@pytest.mark.parametrize(
    ("counts", "fragment"),
    [((2.5,), "gpu_counts must be a whole number, got 2.5"), ((True,), "must be a number"),
     (object(), "gpu_counts must be GPUs per replica"), ((), "gpu_counts is empty")],
)  # fmt: skip
def test_rank_gpus_checks_gpu_counts_in_python(counts, fragment):
    with pytest.raises(InvalidInputError) as err:
        wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50, candidates="L4", gpu_counts=counts)
    assert fragment in str(err.value)
