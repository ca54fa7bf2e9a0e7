"""``level=None`` is no interval level: every entry point that gives intervals refuses it by name
(it once reached the interval tables and ended in numpy's TypeError), while
``wl.estimate_energy``, which asks for no interval, still builds its request without one."""

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"
LOAD = {"rate_qps": 0.1, "level": None}

CALLS = {
    "predict": lambda: wl.predict(LLAMA8, "L4", **LOAD),
    "explain": lambda: wl.explain(LLAMA8, "L4", **LOAD),
    "rank_gpus": lambda: wl.rank_gpus(LLAMA8, itl_sla_ms=50, candidates=["L4"], **LOAD),
    "compare": lambda: wl.compare(LLAMA8, ["L4", "A30"], **LOAD),
}


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_level_none_is_refused_naming_level_and_the_fix(call):
    with pytest.raises(InvalidInputError, match=r"level must be a number, got None") as err:
        call()
    assert "pass level from 0.5 to 0.999" in str(err.value)


def test_an_estimate_asks_no_level_and_still_answers():
    from wattgpu_lite.energy.request import check_request
    from wattgpu_lite.specs.catalog import gpu, llm

    req = check_request(llm(LLAMA8), gpu("L4"), batch=1)
    assert req.level is None
    assert wl.estimate_energy(LLAMA8, "L4").total_j > 0
