"""CLI ``predict`` and ``evaluate``: JSON output for a GPU in no table, and the paper's columns."""

from __future__ import annotations

import json
import math
from pathlib import Path

from wattgpu_lite.__main__ import main
from wattgpu_lite.face.cli.output import document

SPEC = Path(__file__).parents[1] / "fixtures" / "gpu_rtx5090_spec.json"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _run_json(capsys, *argv: str):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_predict_json_for_a_gpu_spec_in_no_table(capsys):
    out = _run_json(capsys, "predict", "--llm", LLAMA, "--gpu", str(SPEC), "--scenario", "offline")
    assert out["inputs"]["gpu"] == "RTX 5090" and out["schema_version"] == 1
    for key in ("power_w", "itl_s", "energy_per_token_j"):
        assert math.isfinite(out[key]) and out[key] > 0
    assert out["power_w"] <= 575 and out["power_w_interval"]["basis"] == "new gpu"


def test_predict_json_is_the_predictions_dict_in_the_envelope(capsys):
    import wattgpu_lite as wl

    out = _run_json(capsys, "predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.05",
                    "--t-in", "500", "--t-out", "300")  # fmt: skip
    p = wl.predict(LLAMA, "A30", rate_qps=0.05, t_in=500, t_out=300)
    wall = out.pop("wall")  # energy and CO2e at the wall, beside the prediction (test_cli_explain)
    assert out.pop("defaults")["t_out"] == {"value": 300, "source": "given"}
    expect = document("predict", p.to_dict())
    expect.pop("defaults"), expect.pop("wall")
    assert out == expect and out["kind"] == "predict"
    assert wall["pue"] == 1.58
    assert out["power_w"] == float(f"{p.power_w:.6g}")  # 6 significant figures


def test_predict_moe_answers_from_physics(capsys):
    out = _run_json(capsys, "predict", "--llm", "Qwen/Qwen1.5-MoE-A2.7B-Chat", "--gpu",
                    "H100 NVL", "--scenario", "offline")  # fmt: skip
    assert out["model"] == "physics" and out["power_w_interval"]["basis"] == "physics"


def test_evaluate_json_has_ours_and_the_papers(capsys):
    doc = _run_json(capsys, "evaluate", "--target", "itl", "--strategy", "logo", "--no-progress")
    assert (doc["kind"], doc["model"], doc["target"]) == ("evaluate", "wattgpu", "itl")
    rows = doc["rows"]
    assert {r["model"] for r in rows} == {"xgb", "roofline"}
    roofline = [r for r in rows if r["model"] == "roofline"]
    for r in roofline:  # a non-learning baseline: our data must reproduce the paper's figure
        assert abs(r["mdape_pct"] - r["paper_mdape_pct"]) <= 3.0
