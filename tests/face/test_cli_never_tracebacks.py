"""CLI bad-input probes beyond tests/face/test_cli_bad_input.py: option combinations,
files of the new refusals (no model_type, a misspelt family, recurrent classes, a folder for a
file), option values in another case, defaults files and environment variables, and tampered or
missing data files for more commands. A data or input error is one ``error:`` line on stderr,
exit code 2, naming the field or file and the fix; never a traceback. The inputs next to them
that are valid are answered (exit 0).
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
MIXTRAL = json.loads((FIXTURES / "configs" / "mistralai__Mixtral-8x7B-v0.1.json").read_text())


def _cfg(base: dict = LLAMA, drop: tuple[str, ...] = (), **change) -> str:
    out = {k: v for k, v in copy.deepcopy(base).items() if k not in drop}
    out.update(change)
    return json.dumps(out)


FILES = {
    "no_type.json": _cfg(drop=("model_type",)),
    "empty_type.json": _cfg(model_type=""),
    "neox.json": _cfg(model_type="gpt-neox"),
    "spaced.json": _cfg(model_type="llama "),
    "mamba_class.json": _cfg(architectures=["MambaForCausalLM"]),
    "t5_encoder.json": _cfg(architectures=["T5EncoderModel"]),
    "one_expert.json": _cfg(MIXTRAL, num_local_experts=1),
    "big_eps.json": _cfg().replace('"rms_norm_eps": 1e-05', '"rms_norm_eps": 1e400'),
    "unknown_type.json": _cfg(model_type="foobar"),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("never_tracebacks")
    for name, text in FILES.items():
        (folder / name).write_text(text)
    (folder / "model").mkdir()
    (folder / "model" / "config.json").write_text(json.dumps(LLAMA))
    (folder / "empty_dir").mkdir()
    (folder / "unknown_key.toml").write_text("tin = 5\n")
    (folder / "bad_value.toml").write_text("pue = 0.5\n")
    (folder / "twice.toml").write_text("t_in = 5\nt_in = 6\n")
    return folder


COMMANDS = {
    "estimate": ["estimate", "--gpu", "H100 SXM", "--llm"],
    "predict": ["predict", "--rate-qps", "0.1", "--gpu", "L4", "--llm"],
    "explain": ["explain", "--batch", "8", "--gpu", "L4", "--llm"],
}
CONFIG_PROBES = [
    ("no_type.json", ["'model_type'", '"model_type": "llama"']),
    ("empty_type.json", ["'model_type'", "add"]),
    ("neox.json", ["'gpt-neox'", "'gpt_neox'"]),
    ("spaced.json", ["'llama '", "'llama'"]),
    ("mamba_class.json", ["recurrent", "MambaForCausalLM"]),
    ("t5_encoder.json", ["encoder-only", "T5EncoderModel"]),
    ("one_expert.json", ["num_experts_per_tok = 2", "num_local_experts = 1"]),
    ("big_eps.json", ["'rms_norm_eps'", "not a JSON number"]),
    ("model", ["is a folder", "config.json'"]),
    ("empty_dir", ["is a folder", "pass the path"]),
]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(("name", "words"), CONFIG_PROBES, ids=[p[0] for p in CONFIG_PROBES])
def test_a_refused_config_isone_error_line(files, capsys, command, name, words):
    one_error_line(*run_cli([*COMMANDS[command], str(files / name)], capsys), words)


@pytest.mark.parametrize("command", ["estimate", "predict"])
def test_a_gpu_folder_isone_error_line(files, capsys, command):
    load = [] if command == "estimate" else ["--rate-qps", "0.1"]
    argv = [command, "--llm", LLAMA_ID, "--gpu", str(files / "empty_dir"), *load]
    one_error_line(*run_cli(argv, capsys), ["is a folder", "GPU spec .json"])


def test_an_unknown_family_is_answered_and_its_source_says_so(files, capsys):
    code, out, err = run_cli(["llms", "--llm", str(files / "unknown_type.json"), "--json"], capsys)
    assert code == 0, err
    assert "not a family the kit knows" in out


@pytest.mark.parametrize("written", ["FP8", "Fp8", " fp8 ", "BF16", "INT4"])
def test_weights_in_another_case_are_read_as_the_library_reads_them(capsys, written):
    code, out, err = run_cli(
        ["estimate", "--llm", LLAMA_ID, "--gpu", "H100 SXM", "--weights", written, "--json"],
        capsys,
    )
    assert code == 0, err
    assert json.loads(out)["weights"] == written.strip().lower()


OPTION_PROBES = [
    (["--weights", "fp9"], ["weights 'fp9' is not a weight format", "fp8"]),  # the library's
    (["--mode", "Paper"], ["--mode", "'Paper'", "paper"]),
    (["--mode", "paper", "--weights", "fp8"], ["paper mode", "drop them"]),
    (["--tp", "3"], ["tp=3", "divide 32"]),
    (["--ep", "2"], ["ep=2", "dense"]),
    (["--tp", "2", "--num-gpus", "4"], ["layout once", "num_gpus"]),
    (["--t-in", "1e3"], ["--t-in", "'1e3'"]),
    (["--t-in", "200000"], ["t_in", "131072"]),
    (["--region", "Mars"], ["region", "'Mars'", "WORLD"]),
    (["--region", "US", "--grid-gco2-per-kwh", "5"], ["--grid-gco2-per-kwh", "--region"]),
    (["--grid-gco2-per-kwh", "-1"], ["grid_gco2_per_kwh", "0 to 5000"]),
    (["--price-per-kwh", "-1"], ["price_per_kwh", "0 to 100"]),
    (["--output", "x.txt"], ["--output", ".txt", ".csv"]),
    (["--output", "no_such_folder/x.csv"], ["--output", "'no_such_folder' does not exist"]),
    (["--output", ""], ["--output", "no extension"]),
    (["--plot", "x.jpg"], ["--plot", ".png"]),
]


@pytest.mark.parametrize(
    ("extra", "words"), OPTION_PROBES, ids=[" ".join(p[0]) or "empty" for p in OPTION_PROBES]
)
def test_a_bad_option_combination_isone_error_line(capsys, extra, words):
    argv = ["estimate", "--llm", LLAMA_ID, "--gpu", "H100 SXM", *extra]
    one_error_line(*run_cli(argv, capsys), words)


RANK = ["rank", "--llm", LLAMA_ID, "--rate-qps", "0.1"]
RANK_PROBES = [
    ([], ["--itl-sla-ms", "required"]),
    (["--itl-sla-ms", "-1"], ["itl_sla_ms", "-1"]),
    (["--itl-sla-ms", "50", "--gpu-counts", "0"], ["gpu_counts", "1 to 64"]),
    (["--itl-sla-ms", "50", "--gpu-counts", "abc"], ["gpu_counts", "'abc'"]),
    (["--itl-sla-ms", "50", "--gpu-counts", "3"], ["gpu_counts", "tp=3"]),
    (["--itl-sla-ms", "50", "--source", "bogus"], ["--source", "'bogus'"]),
    (["--itl-sla-ms", "50", "--gpus", "L4,banana"], ["unknown GPU 'banana'"]),
]


@pytest.mark.parametrize(
    ("extra", "words"), RANK_PROBES, ids=[" ".join(p[0]) or "none" for p in RANK_PROBES]
)
def test_a_bad_rank_option_isone_error_line(capsys, extra, words):
    one_error_line(*run_cli([*RANK, *extra], capsys), words)


@pytest.mark.parametrize(
    ("name", "words"),
    [("unknown_key.toml", ["'tin'", "did you mean 't_in'"]), ("bad_value.toml", ["pue", "0.5"]),
     ("twice.toml", ["not valid TOML", "line 2"]), ("missing.toml", ["--config", "no such file"])],
)  # fmt: skip
def test_a_bad_defaults_file_isone_error_line(files, capsys, name, words):
    argv = ["--config", str(files / name), "estimate", "--gpu", "H100 NVL", "--llm", LLAMA_ID]
    one_error_line(*run_cli(argv, capsys), words)


@pytest.mark.parametrize(
    ("env", "words"),
    [({"WATTGPU_LITE_T_IN": "abc"}, ["WATTGPU_LITE_T_IN", "'abc'"]),
     ({"WATTGPU_LITE_PUE": "0"}, ["WATTGPU_LITE_PUE", "1 to 3"]),
     ({"WATTGPU_LITE_T_OUT": "-5"}, ["WATTGPU_LITE_T_OUT"])],
)  # fmt: skip
def test_a_bad_environment_default_isone_error_line(capsys, env, words):
    one_error_line(
        *run_cli(["estimate", "--gpu", "H100 NVL", "--llm", LLAMA_ID], capsys, env), words
    )


# --- a tampered or incomplete data folder, in a fresh interpreter ------------------------------
def _data_copy(tmp_path_factory, name: str) -> Path:
    folder = tmp_path_factory.mktemp(name) / "data"
    shutil.copytree(ROOT / "data", folder, ignore=shutil.ignore_patterns("scripts", "__pycache__"))
    return folder


@pytest.fixture(scope="module")
def tampered_llms(tmp_path_factory) -> Path:
    folder = _data_copy(tmp_path_factory, "tampered_llms")
    table = folder / "llms.csv"
    lines = table.read_text().splitlines(keepends=True)
    table.write_text("".join(lines[:-1]))  # the last model removed
    return folder


@pytest.fixture(scope="module")
def missing_gpus(tmp_path_factory) -> Path:
    folder = _data_copy(tmp_path_factory, "missing_gpus")
    (folder / "gpus.csv").unlink()
    return folder


def _shell(data: Path, argv: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, D.ENV_DATA: str(data), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "wattgpu_lite", *argv], capture_output=True,
                          text=True, env=env, timeout=300)  # fmt: skip


@pytest.mark.parametrize(
    "argv",
    [["llms"], ["rank", "--llm", LLAMA_ID, "--rate-qps", "0.1", "--itl-sla-ms", "50"],
     ["explain", "--llm", LLAMA_ID, "--gpu", "L4", "--batch", "8"]],
    ids=["llms", "rank", "explain"],
)  # fmt: skip
def test_a_tampered_llm_table_is_one_error_line_from_the_shell(tampered_llms, argv):
    run = _shell(tampered_llms, argv)
    one_error_line(run.returncode, run.stdout, run.stderr, ["llms.csv", "checksum"])


@pytest.mark.parametrize(
    "argv", [["gpus"], ["estimate", "--llm", LLAMA_ID, "--gpu", "L4"]], ids=["gpus", "estimate"]
)
def test_a_missing_data_file_is_one_error_line_from_the_shell(missing_gpus, argv):
    run = _shell(missing_gpus, argv)
    one_error_line(run.returncode, run.stdout, run.stderr, ["gpus.csv"])
