"""CLI ``predict`` and ``evaluate``: JSON output for a GPU in no table, and the paper's columns."""

from __future__ import annotations

import json
import math
from pathlib import Path

from wattgpu_lite.__main__ import main

SPEC = Path(__file__).parent / "fixtures" / "gpu_rtx5090_spec.json"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _run_json(capsys, *argv: str):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_predict_json_for_a_gpu_spec_in_no_table(capsys):
    out = _run_json(capsys, "predict", "--llm", LLAMA, "--gpu", str(SPEC), "--scenario", "offline")
    assert out["gpu"] == "RTX 5090"
    for key in ("power_w", "itl_s", "energy_per_token_j"):
        assert math.isfinite(out[key]) and out[key] > 0
    assert out["power_w"] < 1.2 * 575


def test_predict_moe_is_refused_with_exit_code_2(capsys):
    argv = [
        "predict",
        "--llm",
        "Qwen/Qwen1.5-MoE-A2.7B-Chat",
        "--gpu",
        "L4",
        "--scenario",
        "offline",
    ]
    assert main(argv) == 2
    assert "dense models only" in capsys.readouterr().err


def test_evaluate_json_has_ours_and_the_papers(capsys):
    rows = _run_json(capsys, "evaluate", "--target", "itl", "--strategy", "logo", "--no-progress")
    assert {r["model"] for r in rows} == {"xgb", "roofline"}
    roofline = [r for r in rows if r["model"] == "roofline"]
    for r in roofline:  # a non-learning baseline: our data must reproduce the paper's figure
        assert abs(r["mdape_pct"] - r["paper_mdape_pct"]) <= 3.0
