"""CLI bad-input probes: a bad data file, config.json, GPU spec file or option is one
``error:`` line on stderr naming the field and the fix, exit code 2, never a traceback; the
inputs next to them that are valid (FP8 in upper case, Falcon-7B's RefinedWebModel config) are
answered (exit 0).

The tampered-data probes run ``python -m wattgpu_lite`` in a fresh interpreter (the kit caches
what it has read); the others call :func:`wattgpu_lite.face.cli.main.main` in this one.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import one_error_line, run_cli

from wattgpu_lite import datafiles as D

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
LLAMA_ID = "meta-llama/Llama-3.1-8B-Instruct"
LLAMA = json.loads((FIXTURES / "configs" / "meta-llama__Llama-3.1-8B.json").read_text())
SPEC = json.loads((FIXTURES / "gpu_rtx5090_spec.json").read_text())
FALCON = json.loads((FIXTURES / "falcon.json").read_text())


def _cfg(**change) -> str:
    out = copy.deepcopy(LLAMA)
    out.update(change)
    return json.dumps(out)


def _dup(text: str, key: str, value: str) -> str:
    head, sep, tail = text.partition(f'"{key}":')
    return f'{head}"{key}": {value}, {sep}{tail}'


RW = {k: v for k, v in FALCON.items() if k != "max_position_embeddings"} | {
    "model_type": "RefinedWebModel", "architectures": ["RWForCausalLM"]}  # fmt: skip
FILES = {
    "bert.json": _cfg(architectures=["BertForMaskedLM"]),
    "bertmodel.json": _cfg(architectures=["BertModel"]),
    "t5.json": _cfg(architectures=["T5ForConditionalGeneration"]),
    "twice.json": _cfg(n_layer=12),
    "hd1.json": _cfg(head_dim=1),
    "hdhuge.json": _cfg(head_dim=10**6),
    "hidden.json": _cfg(hidden_size=9_999_999, head_dim=128),
    "mtnum.json": _cfg(model_type=5),
    "mtcase.json": _cfg(model_type="GEMMA2"),
    "archstr.json": _cfg(architectures="LlamaForCausalLM"),
    "bnb_both.json": _cfg(quantization_config={"quant_method": "bitsandbytes",
                                               "load_in_4bit": True, "load_in_8bit": True}),
    "mtnc_num.json": _cfg(quantization_config={"quant_method": "awq", "bits": 4,
                                               "modules_to_not_convert": 5}),
    "fp9.json": _cfg(quantization_config={"quant_method": "fp9"}),
    "group.json": _cfg(quantization_config={"quant_method": "awq", "bits": 4, "group_size": 2.5}),
    "cfg_dup.json": _dup(_cfg(), "num_hidden_layers", "16"),
    "cfg_nan.json": _cfg().replace('"hidden_size": 4096', '"hidden_size": NaN'),
    "fp8_upper.json": _cfg(quantization_config={"quant_method": "FP8"}),
    "falcon_rw.json": json.dumps(RW),
    "gpu_fp8.json": json.dumps(SPEC | {"fp8_tflops": 100}),
    "gpu_fp4.json": json.dumps(SPEC | {"fp8_tflops": 419, "fp4_tflops": 300}),
    "gpu_banana.json": json.dumps(SPEC | {"memory_type": "banana"}),
    "gpu_memnum.json": json.dumps(SPEC | {"memory_type": 7}),
    "gpu_dir.json": json.dumps(SPEC | {"interconnect_direction": "sideways"}),
    "gpu_dup.json": _dup(json.dumps(SPEC), "tdp_w", "450"),
    "gpu_nan.json": json.dumps(SPEC).replace('"tdp_w": 575', '"tdp_w": NaN'),
    "gpu_ok_lower.json": json.dumps(SPEC | {"memory_type": "gddr7", "fp8_tflops": 419}),
}  # fmt: skip


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bad_input")
    for name, text in FILES.items():
        (folder / name).write_text(text)
    return folder


EST = ["estimate", "--gpu", "H100 SXM", "--llm"]
PRED = ["predict", "--rate-qps", "0.1", "--gpu", "L4", "--llm"]
CONFIG_PROBES = [
    ("bert.json", ["encoder-only", "BertForMaskedLM"]),
    ("bertmodel.json", ["encoder-only", "BertModel"]),
    ("t5.json", ["encoder-decoder", "T5ForConditionalGeneration"]),
    ("twice.json", ["'num_hidden_layers' = 32", "'n_layer' = 12"]),
    ("hd1.json", ["'head_dim'", "16 to 1,024"]),
    ("hdhuge.json", ["'head_dim'", "1000000"]),
    ("hidden.json", ["'hidden_size'", "9999999"]),
    ("mtnum.json", ["'model_type'", "text"]),
    ("mtcase.json", ["'GEMMA2'", "'gemma2'"]),
    ("archstr.json", ["'architectures'", "list"]),
    ("bnb_both.json", ["load_in_4bit", "load_in_8bit"]),
    ("mtnc_num.json", ["'modules_to_not_convert'"]),
    ("fp9.json", ["'fp9'", "'fp8'"]),
    ("group.json", ["'group_size'", "2.5"]),
    ("cfg_dup.json", ["'num_hidden_layers'", "twice"]),
    ("cfg_nan.json", ["NaN"]),
]


@pytest.mark.parametrize("command", [EST, PRED], ids=["estimate", "predict"])
@pytest.mark.parametrize(("name", "words"), CONFIG_PROBES, ids=[p[0] for p in CONFIG_PROBES])
def test_a_bad_config_json_isone_error_line(files, capsys, command, name, words):
    one_error_line(*run_cli([*command, str(files / name)], capsys), words)


GPU_PROBES = [
    ("gpu_fp8.json", ["'fp8_tflops'", "fp16_tflops 209.5"]),
    ("gpu_fp4.json", ["'fp4_tflops'", "fp8_tflops 419"]),
    ("gpu_banana.json", ["'memory_type'", "'banana'"]),
    ("gpu_memnum.json", ["'memory_type'", "7"]),
    ("gpu_dir.json", ["'interconnect_direction'", "'sideways'"]),
    ("gpu_dup.json", ["'tdp_w'", "twice"]),
    ("gpu_nan.json", ["NaN"]),
]


@pytest.mark.parametrize("command", ["estimate", "predict", "explain"])
@pytest.mark.parametrize(("name", "words"), GPU_PROBES, ids=[p[0] for p in GPU_PROBES])
def test_a_bad_gpu_spec_file_isone_error_line(files, capsys, command, name, words):
    load = [] if command == "estimate" else ["--rate-qps", "0.1"]
    argv = [command, "--llm", LLAMA_ID, "--gpu", str(files / name), *load]
    one_error_line(*run_cli(argv, capsys), [name, *words])


OPTION_PROBES = [
    (["--num-gpus", "0"], ["num_gpus"]),
    (["--tp", "0"], ["tp"]),
    (["--batch", "nan"], ["batch", "finite"]),
    (["--batch", "2.5"], ["batch", "whole"]),
    (["--pue", "nan"], ["pue", "finite"]),
    (["--price-per-kwh", "inf"], ["price_per_kwh", "finite"]),
    (["--t-in", "0"], ["t_in"]),
    (["--mode", "paper", "--num-gpus", "2"], ["paper mode"]),
]


@pytest.mark.parametrize(
    ("extra", "words"), OPTION_PROBES, ids=[" ".join(p[0]) for p in OPTION_PROBES]
)
def test_a_bad_option_isone_error_line(capsys, extra, words):
    one_error_line(
        *run_cli(["estimate", "--llm", LLAMA_ID, "--gpu", "H100 SXM", *extra], capsys), words
    )


@pytest.mark.parametrize(
    ("name", "expect"),
    [("fp8_upper.json", {"weights": "fp8"}), ("falcon_rw.json", {"llm": "tiiuae/falcon-7b"})],
)
def test_a_valid_config_next_to_the_bad_ones_is_answered(files, capsys, name, expect):
    code, out, err = run_cli([*EST, str(files / name), "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert {k: doc[k] for k in expect} == expect


def test_a_spec_with_memory_type_in_lower_case_is_answered(files, capsys):
    code, out, err = run_cli(["estimate", "--llm", LLAMA_ID, "--gpu", str(files / "gpu_ok_lower.json"),
                           "--json"], capsys)  # fmt: skip
    assert code == 0, err
    assert "GDDR7" in json.loads(out)["coefficients"]


# --- a tampered data folder, in a fresh interpreter ------------------------------------------
@pytest.fixture(scope="module")
def tampered(tmp_path_factory) -> Path:
    copy_ = tmp_path_factory.mktemp("tampered") / "data"
    shutil.copytree(ROOT / "data", copy_, ignore=shutil.ignore_patterns("scripts", "__pycache__"))
    table = copy_ / "gpus.csv"
    text = table.read_text()
    assert ",70.0,65.0," in text
    table.write_text(text.replace(",70.0,65.0,", ",75.0,65.0,", 1))  # the T4's TDP
    return copy_


@pytest.mark.parametrize(
    "argv",
    [["predict", "--llm", LLAMA_ID, "--gpu", "L4", "--rate-qps", "0.1"],
     ["estimate", "--llm", LLAMA_ID, "--gpu", "L4"],
     ["gpus"],
     ["predict", "--help"]],
    ids=["predict", "estimate", "gpus", "help"],
)  # fmt: skip
def test_a_tampered_data_file_is_one_error_line_from_the_shell(tampered, argv):
    env = {**os.environ, D.ENV_DATA: str(tampered), "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "wattgpu_lite", *argv], capture_output=True,
                         text=True, env=env, timeout=300)  # fmt: skip
    one_error_line(run.returncode, run.stdout, run.stderr, ["gpus.csv", "checksum", "copy"])
