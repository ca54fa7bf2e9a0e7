"""The Watt Counts sources of ``wl.rank_gpus`` (measured, paper, logo) answer at the runs' own
tokens: a token count they cannot take is refused by name, a count that is no count is refused
as everywhere, and none gives a ranking for other tokens than asked (nor a negative energy)."""

import pandas as pd
import pytest

import wattgpu_lite as wl
from tests.cli_runner import run_cli
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.runs.schema import LAMBDA_QPS
from wattgpu_lite.selection import study

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"
ASK = {"scenario": "server_low", "itl_sla_ms": 50, "candidates": ["A30", "H100 NVL"]}


@pytest.mark.parametrize("source", ["measured", "paper", "logo"])
@pytest.mark.parametrize("bad", [{"t_out": -5}, {"t_out": 0}, {"t_in": 0}, {"t_out": 2.5}])
def test_no_token_count_is_no_ranking(source, bad):
    """t_out=-5 once gave the paper source -1.16e6 J per 1,000 tokens: now the kit's one check."""
    key = next(iter(bad))
    with pytest.raises(InvalidInputError, match=f"{key} must be"):
        wl.rank_gpus(LLAMA8, source=source, **bad, **ASK)


@pytest.mark.parametrize(
    ("source", "asked"),
    [
        ("measured", {"t_in": 5}),
        ("measured", {"t_out": 100}),
        ("paper", {"t_in": 5}),
        ("logo", {"t_in": 500}),
        ("paper", {"workload": "watt-counts"}),
    ],
)
def test_other_tokens_than_the_runs_are_refused_by_name(source, asked):
    ((key, value),) = asked.items()
    with pytest.raises(InvalidInputError) as err:
        wl.rank_gpus(LLAMA8, source=source, **asked, **ASK)
    t_in, t_out = study.runs_tokens(LLAMA8)
    message = str(err.value)
    assert f"{key}={value!r}" in message and f"{t_in} prompt and {t_out} generated" in message
    assert "source='hybrid'" in message


@pytest.mark.parametrize("source", ["measured", "paper", "logo"])
def test_the_runs_own_tokens_are_the_default_answer(source):
    t_in, t_out = study.runs_tokens(LLAMA8)
    keys = ["gpu", "power_w", "itl_s"]
    plain = wl.rank_gpus(LLAMA8, source=source, **ASK)[keys]
    given = wl.rank_gpus(LLAMA8, source=source, t_in=t_in, **ASK)[keys]
    assert given.equals(plain)


@pytest.mark.parametrize("source", ["paper", "logo"])
def test_a_predictor_s_energy_per_token_is_its_power_over_the_tokens_asked(source):
    """Server: E per 1,000 tokens = 1,000 · P̄ / (λ · t_out), so halving t_out doubles it."""
    one, two = (
        wl.rank_gpus(LLAMA8, source=source, t_out=n, **ASK).set_index("gpu") for n in (200, 100)
    )
    ratio = two["energy_per_1k_tokens_j"] / one["energy_per_1k_tokens_j"]
    assert ratio.to_numpy() == pytest.approx(2.0, rel=1e-12)


def test_the_cli_passes_the_tokens_to_every_source(capsys):
    """--source measured --t-in 0 was dropped before the library saw it: now its one check."""
    argv = ["rank", "--llm", LLAMA8, "--scenario", "offline", "--itl-sla-ms", "50"]
    code, _, err = run_cli([*argv, "--source", "measured", "--t-in", "0"], capsys)
    assert code == 2 and "t_in must be from 1" in err


@pytest.mark.parametrize("source", ["measured", "paper", "logo"])
def test_a_rate_above_the_runs_is_refused_not_divided(source):
    """measured at 1,000 req/s on one L4 once gave 0.28 J per 1,000 tokens (71 W / 180,000
    tokens/s, a load no L4 serves): a Watt Counts source stops at the runs' highest rate."""
    top = LAMBDA_QPS["server_high"]
    ask = {k: v for k, v in ASK.items() if k != "scenario"}
    with pytest.raises(InvalidInputError, match=r"rate_qps=1000: .* up to 0\.33 req/s"):
        wl.rank_gpus(LLAMA8, source=source, rate_qps=1000, **ask)
    at_top = wl.rank_gpus(LLAMA8, source=source, rate_qps=top, **ask)
    named = wl.rank_gpus(LLAMA8, source=source, scenario="server_high", **ask)
    keys = ["gpu", "power_w", "energy_per_1k_tokens_j"]
    pd.testing.assert_frame_equal(at_top[keys], named[keys])
