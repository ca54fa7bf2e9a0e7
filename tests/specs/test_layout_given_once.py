"""A layout given twice names the argument to drop: ``expert_parallel=True`` beside a
``parallel=`` once told the caller to "drop num_gpus", which they had not given."""

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError

QWEN_MOE = "Qwen/Qwen3-30B-A3B"


def test_expert_parallel_beside_a_parallel_says_drop_expert_parallel():
    with pytest.raises(InvalidInputError) as err:
        wl.estimate_energy(QWEN_MOE, "H100 SXM", parallel=wl.Parallel(tp=2), expert_parallel=True)
    message = str(err.value)
    assert "drop expert_parallel" in message and "drop num_gpus" not in message


def test_num_gpus_beside_a_parallel_says_drop_num_gpus():
    with pytest.raises(InvalidInputError, match=r"with num_gpus=4 .*; drop num_gpus\.$"):
        wl.estimate_energy(QWEN_MOE, "H100 SXM", parallel=wl.Parallel(tp=2), num_gpus=4)
