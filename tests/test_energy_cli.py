"""``python -m wattgpu_lite estimate``: --json returns the five components."""

import json

import pytest

from wattgpu_lite.__main__ import main
from wattgpu_lite.energy.estimate import COMPONENTS


def test_estimate_json_has_five_components(capsys):
    code = main(["estimate", "--llm", "meta-llama/Llama-2-7b-hf", "--gpu", "H100 NVL",
                 "--t-in", "500", "--t-out", "500", "--mode", "physical", "--json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert all(out[f"{c}_j"] >= 0 for c in COMPONENTS)
    assert out["total_j"] == pytest.approx(sum(out[f"{c}_j"] for c in COMPONENTS))


def test_estimate_bad_tokens_exit_2(capsys):
    code = main(["estimate", "--llm", "meta-llama/Llama-2-7b-hf", "--t-out", "0"])
    assert code == 2 and "t_out" in capsys.readouterr().err
