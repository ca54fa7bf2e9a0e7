"""``wl.compare`` takes a replica's layout as ``wl.predict`` does: ``num_gpus`` or ``parallel``,
given once and checked by those names. ``num_gpus=4`` beside ``parallel=wl.Parallel(tp=2)``
was silently dropped (the comparison ran TP2), and a bad ``num_gpus`` was refused as
``gpu_counts``, an argument compare does not have."""

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"
GPUS = ["L4", "A30"]


def test_num_gpus_beside_a_parallel_that_disagrees_is_refused():
    with pytest.raises(InvalidInputError, match=r"give the layout once: .*drop num_gpus"):
        wl.compare(LLAMA8, GPUS, rate_qps=0.1, num_gpus=4, parallel=wl.Parallel(tp=2))


@pytest.mark.parametrize("num_gpus", [0, "4", 2.5, True, None])
def test_a_bad_num_gpus_is_refused_as_num_gpus(num_gpus):
    with pytest.raises(InvalidInputError) as err:
        wl.compare(LLAMA8, GPUS, rate_qps=0.1, num_gpus=num_gpus)
    message = str(err.value)
    assert message.startswith("num_gpus must be") and "gpu_counts" not in message


def test_either_spelling_of_one_layout_compares_the_same():
    by_count = wl.compare(LLAMA8, GPUS, rate_qps=0.1, num_gpus=2)
    by_layout = wl.compare(LLAMA8, GPUS, rate_qps=0.1, parallel=wl.Parallel(tp=2))
    assert by_count.rows == by_layout.rows and by_count.inputs["num_gpus"] == 2
