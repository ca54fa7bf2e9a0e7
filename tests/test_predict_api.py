"""``wl.predict`` and ``predict --rate/--batch``: intervals at any load, and the paper's model one
argument away."""

from __future__ import annotations

import json
import math

import pytest

import wattgpu_lite as wl
from wattgpu_lite.__main__ import main
from wattgpu_lite.errors import InvalidInputError

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _bracketed(result: dict, column: str) -> bool:
    lo, value, hi = (result[f"{column}{s}"] for s in ("_lo", "", "_hi"))
    return all(map(math.isfinite, (lo, value, hi))) and 0 < lo <= value <= hi


@pytest.mark.parametrize("flag", [["--rate", "0.1"], ["--batch", "32"]])
def test_cli_predict_at_a_rate_or_batch_returns_intervals(capsys, flag):
    assert main(["predict", "--llm", LLAMA, "--gpu", "L4", *flag, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert _bracketed(out, "power_w") and _bracketed(out, "itl_s")
    assert out["interval_basis"] == "cv"  # both L4 and Llama-3.1-8B are in the training runs


def test_wider_level_gives_wider_intervals():
    narrow = wl.predict(LLAMA, "A30", rate=0.1, level=0.8)
    wide = wl.predict(LLAMA, "A30", rate=0.1, level=0.9)
    assert wide["power_w_hi"] - wide["power_w_lo"] > narrow["power_w_hi"] - narrow["power_w_lo"]
    assert wide["power_w"] == narrow["power_w"]


def test_more_load_draws_more_power():
    idle = wl.predict(LLAMA, "A30", rate=0.017)
    busy = wl.predict(LLAMA, "A30", batch=64)
    assert busy["power_w"] > idle["power_w"]
    assert busy["time_per_token_s"] < idle["time_per_token_s"]


def test_paper_config_is_the_published_model():
    paper = wl.predict(LLAMA, "L4", "server_low", config="paper")
    assert paper == wl.WattGPU.pretrained().predict(LLAMA, "L4", "server_low") | {"config": "paper"}


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"rate": 0.1, "config": "paper"}, "three Watt Counts scenarios"),
        ({}, "scenario=, rate="),
        ({"rate": -1.0}, "rate must be a positive number"),
        ({"rate": 0.1, "batch": 4.0}, "not both"),
        ({"scenario": "offline", "config": "best"}, "config must be"),
    ],
)
def test_bad_load_or_config_is_refused(kwargs, words):
    with pytest.raises(InvalidInputError, match=words):
        wl.predict(LLAMA, "L4", **kwargs)
