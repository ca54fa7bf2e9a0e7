"""`python -m wattgpu_lite gpus|llms`: JSON and table output, config.json parsing, refusals."""

import json
from pathlib import Path

from wattgpu_lite.__main__ import main

FIXTURES = Path(__file__).parents[1] / "fixtures"
MEASURED = {"V100 SXM2 32GB", "T4", "A100 SXM4 40GB", "A30", "L40S", "L4", "H100 NVL", "H200 NVL"}


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_gpus_json_lists_20_gpus_with_the_8_measured(capsys):
    rows = run_json(capsys, "gpus")["rows"]
    assert len(rows) >= 20
    assert {r["name"] for r in rows if r["measured"]} == MEASURED
    h200 = next(r for r in rows if r["name"] == "H200 NVL")
    assert h200["tdp_w"] == 600 and h200["smi_name"] == "NVIDIA H200"  # NVIDIA: up to 600 W
    assert next(r for r in rows if r["name"] == "B200")["transistors_m"] is None  # NaN -> null


def test_llms_json_lists_60_llms_with_42_from_wattgpu(capsys):
    rows = run_json(capsys, "llms")["rows"]
    assert len(rows) >= 60 and sum(r["in_wattgpu"] for r in rows) == 42


def test_tables_are_readable(capsys):
    assert main(["gpus"]) == 0
    out = capsys.readouterr().out
    assert "H100 NVL" in out and "fp16_tflops" in out
    assert main(["llms"]) == 0
    assert "meta-llama/Llama-3.1-8B-Instruct" in capsys.readouterr().out


def test_llms_config_prints_what_was_understood(capsys):
    assert main(["llms", "--llm", str(FIXTURES / "gpt2.json")]) == 0
    out = capsys.readouterr().out
    assert "params_b" in out and "0.1244" in out and "n_layers" in out
    info = run_json(capsys, "llms", "--llm", str(FIXTURES / "gemma3.json"))
    assert info["head_dim"] == 128 and round(info["params_b"], 2) == 27.01
    assert info["kv_bytes_per_token"] == 2 * 62 * 16 * 128 * 2


def test_recurrent_config_exits_2_with_the_reason(capsys):
    assert main(["llms", "--llm", str(FIXTURES / "mamba.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: recurrent") and "KV cache" in err


def test_missing_config_file_exits_2(capsys):
    assert main(["llms", "--llm", "no/such/config.json"]) == 2
    assert "not found" in capsys.readouterr().err
