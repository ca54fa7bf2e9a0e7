"""Defaults from ``wattgpu-lite.toml``, ``--config FILE`` and ``WATTGPU_LITE_*`` variables: flag >
environment > file > built-in, each value echoed with its source; a malformed file or value is a
one-line error naming the key."""

from __future__ import annotations

import json

import pytest

from wattgpu_lite.__main__ import main
from wattgpu_lite.face.cli.defaults import BUILT_IN, DEFAULTS
from wattgpu_lite.selection.accounting import (
    DEFAULT_GRID_GCO2_PER_KWH,
    DEFAULT_PRICE_PER_KWH,
    DEFAULT_PUE,
)
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT, DEFAULT_WORKLOAD, workload

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
ESTIMATE = ["estimate", "--llm", LLAMA, "--gpu", "A30"]
RANK = ["rank", "--llm", LLAMA, "--scenario", "server_low", "--itl-sla-ms", "30", "--gpus", "A30,L4",
        "--gpu-counts", "1"]  # fmt: skip


@pytest.fixture(autouse=True)
def _in_a_clean_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def _doc(capsys, argv):
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _error(capsys, argv) -> str:
    assert main(argv) == 2
    out = capsys.readouterr()
    assert out.out == ""
    (line,) = out.err.splitlines()
    return line


def test_without_file_or_environment_the_built_in_defaults_are_echoed(capsys):
    doc = _doc(capsys, RANK)
    assert doc["defaults"] == {
        "t_in": {"value": DEFAULT_T_IN, "source": BUILT_IN},
        "t_out": {"value": DEFAULT_T_OUT, "source": BUILT_IN},
        "workload": {
            "value": DEFAULT_WORKLOAD,
            "source": BUILT_IN,
            "reference": workload(DEFAULT_WORKLOAD).source,
        },
        "grid_gco2_per_kwh": {"value": DEFAULT_GRID_GCO2_PER_KWH, "source": BUILT_IN},
        "price_per_kwh": {"value": DEFAULT_PRICE_PER_KWH, "source": BUILT_IN},
        "pue": {"value": DEFAULT_PUE, "source": BUILT_IN},
    }


def test_flag_beats_environment_beats_file_beats_built_in(capsys, tmp_path, monkeypatch):
    (tmp_path / "wattgpu-lite.toml").write_text(
        "t_in = 400\nt_out = 200\ngrid_gco2_per_kwh = 250.5\n"
    )
    monkeypatch.setenv("WATTGPU_LITE_T_OUT", "300")
    monkeypatch.setenv("WATTGPU_LITE_T_IN", "450")
    doc = _doc(capsys, [*RANK, "--t-in", "500"])
    used = {k: (v["value"], v["source"]) for k, v in doc["defaults"].items()}
    assert used == {
        "t_in": (500, "given"),  # a flag's source, as a Python argument's
        "t_out": (300, "environment WATTGPU_LITE_T_OUT"),
        "grid_gco2_per_kwh": (250.5, f"config {tmp_path / 'wattgpu-lite.toml'}"),
        "price_per_kwh": (DEFAULT_PRICE_PER_KWH, BUILT_IN),
        "pue": (DEFAULT_PUE, BUILT_IN),
    }


def test_the_values_are_the_ones_the_command_used(capsys, tmp_path, monkeypatch):
    (tmp_path / "wattgpu-lite.toml").write_text("t_in = 400\n")
    monkeypatch.setenv("WATTGPU_LITE_T_OUT", "300")
    doc = _doc(capsys, ESTIMATE)
    assert (doc["t_in"], doc["t_out"]) == (400, 300)
    assert _doc(capsys, [*ESTIMATE, "--t-out", "20"])["t_out"] == 20
    monkeypatch.setenv("WATTGPU_LITE_GRID_GCO2_PER_KWH", "0")
    rows = _doc(capsys, RANK)["rows"]
    assert rows and all(r["kg_co2e_per_mtok"] in (0, None) for r in rows)
    assert any(r["kg_co2e_per_mtok"] == 0 for r in rows)


def test_config_flag_replaces_the_folder_file_before_or_after_the_command(capsys, tmp_path):
    (tmp_path / "wattgpu-lite.toml").write_text("t_in = 400\n")
    other = tmp_path / "other.toml"
    other.write_text("t_in = 40\n")
    for argv in ([*ESTIMATE, "--config", str(other)], ["--config", str(other), *ESTIMATE]):
        assert _doc(capsys, argv)["defaults"]["t_in"] == {"value": 40, "source": f"config {other}"}


def test_every_command_echoes_its_defaults_and_the_text_view_ends_with_them(capsys):
    assert _doc(capsys, ["gpus"])["defaults"] == {}
    assert main(ESTIMATE) == 0
    out = capsys.readouterr().out
    last = " ".join(out[out.rindex("\ndefaults: ") :].split())  # folded at 100 columns
    assert last == (
        f"defaults: t_in {DEFAULT_T_IN} (built-in), t_out {DEFAULT_T_OUT} (built-in), "
        f"workload {DEFAULT_WORKLOAD} (built-in), "
        f"grid_gco2_per_kwh {DEFAULT_GRID_GCO2_PER_KWH:g} (built-in), "
        f"price_per_kwh {DEFAULT_PRICE_PER_KWH:g} (built-in), pue {DEFAULT_PUE:g} (built-in)"
    )
    assert max(len(line) for line in out.splitlines()) <= 100


def test_sources_without_tokens_echo_no_token_default(capsys):
    doc = _doc(capsys, [*RANK[:-4], "--source", "measured"])
    assert set(doc["defaults"]) == {"grid_gco2_per_kwh", "price_per_kwh", "pue"}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("t_in = \n", ["not valid TOML at line 1", "t_in ="]),
        ("t_out = 100\nt_in = abc\n", ["line 2", "t_in = abc"]),
        ('t_in = "many"\n', ["t_in must be a whole number", "'many'"]),
        ("t_out = 0\n", ["t_out", "from 1"]),
        ("t_in = 2.5\n", ["t_in"]),
        ("grid_gco2_per_kwh = -3\n", ["grid_gco2_per_kwh"]),
        ("pue = 0.9\n", ["pue"]),
        ('pue = "1.2"\n', ["pue must be a number"]),
        ("t_input = 100\n", ["unknown key 't_input'", "did you mean 't_in'"]),
    ],
)
def test_a_malformed_file_is_one_line_naming_the_key(capsys, tmp_path, text, words):
    (tmp_path / "wattgpu-lite.toml").write_text(text)
    line = _error(capsys, ESTIMATE)
    assert line.startswith("error: config file") and "wattgpu-lite.toml" in line
    for word in words:
        assert word in line, line


@pytest.mark.parametrize(("name", "value"), [("WATTGPU_LITE_T_IN", "lots"), ("WATTGPU_LITE_T_OUT", "0"),
                                             ("WATTGPU_LITE_PRICE_PER_KWH", "cheap"),
                                             ("WATTGPU_LITE_PUE", "4")])  # fmt: skip
def test_a_malformed_environment_value_is_one_line_naming_the_variable(
    capsys, monkeypatch, name, value
):
    monkeypatch.setenv(name, value)
    line = _error(capsys, RANK)
    assert name in line and name.removeprefix("WATTGPU_LITE_").lower() in line


def test_a_missing_config_file_is_one_line(capsys, tmp_path):
    line = _error(capsys, [*ESTIMATE, "--config", str(tmp_path / "nope.toml")])
    assert "nope.toml" in line and "no such file" in line


def test_the_commands_without_defaults_ignore_a_broken_file(capsys, tmp_path):
    (tmp_path / "wattgpu-lite.toml").write_text("this is not toml\n")
    assert main(["gpus", "--json"]) == 0


def test_help_names_the_sources_of_each_default(capsys):
    with pytest.raises(SystemExit):
        main(["rank", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for d in DEFAULTS:
        assert d.env in text.replace("- ", "-"), d.env
    assert "wattgpu-lite.toml" in text and "flag >" in text


PREDICT = ["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5"]
EXPLAIN = ["explain", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5"]


@pytest.mark.parametrize("argv", [ESTIMATE, PREDICT, EXPLAIN, RANK],
                         ids=["estimate", "predict", "explain", "rank"])  # fmt: skip
def test_pue_flag_beats_environment_beats_file_beats_built_in(capsys, tmp_path, monkeypatch, argv):
    def pue_used() -> tuple[float, str, float]:
        doc = _doc(capsys, argv)
        wall = doc["rows"][0]["pue"] if "rows" in doc and "wall" not in doc else doc["wall"]["pue"]
        return doc["defaults"]["pue"]["value"], doc["defaults"]["pue"]["source"], wall

    assert pue_used() == (DEFAULT_PUE, BUILT_IN, DEFAULT_PUE)
    (tmp_path / "wattgpu-lite.toml").write_text("pue = 1.2\n")
    assert pue_used() == (1.2, f"config {tmp_path / 'wattgpu-lite.toml'}", 1.2)
    monkeypatch.setenv("WATTGPU_LITE_PUE", "1.3")
    assert pue_used() == (1.3, "environment WATTGPU_LITE_PUE", 1.3)
    argv = [*argv, "--pue", "1.1"]
    assert pue_used() == (1.1, "given", 1.1)


def test_pue_default_shows_in_the_text_view(capsys, monkeypatch):
    monkeypatch.setenv("WATTGPU_LITE_PUE", "1.25")
    assert main(ESTIMATE) == 0
    out = capsys.readouterr().out
    assert "at the wall: PUE 1.25;" in out
    last = " ".join(out[out.rindex("\ndefaults: ") :].split())  # folded at 100 columns
    assert last.endswith("pue 1.25 (environment WATTGPU_LITE_PUE)")


@pytest.mark.parametrize("argv", [ESTIMATE, PREDICT, EXPLAIN, RANK],
                         ids=["estimate", "predict", "explain", "rank"])  # fmt: skip
@pytest.mark.parametrize(("key", "built_in", "values"),
                         [("grid_gco2_per_kwh", DEFAULT_GRID_GCO2_PER_KWH, (250, 300, 350)),
                          ("price_per_kwh", DEFAULT_PRICE_PER_KWH, (0.12, 0.15, 0.2))])  # fmt: skip
def test_grid_and_price_flag_beat_environment_beat_file_beat_built_in(
    capsys, tmp_path, monkeypatch, argv, key, built_in, values
):
    flag, env = "--" + key.replace("_", "-"), "WATTGPU_LITE_" + key.upper()

    def used() -> tuple[float, str, float]:
        doc = _doc(capsys, argv)
        wall = doc["wall"] if "wall" in doc else doc["rows"][0]  # rank: every row carries it
        return doc["defaults"][key]["value"], doc["defaults"][key]["source"], wall[key]

    assert used() == (built_in, BUILT_IN, built_in)
    in_file, in_env, in_flag = values
    (tmp_path / "wattgpu-lite.toml").write_text(f"{key} = {in_file}\n")
    assert used() == (in_file, f"config {tmp_path / 'wattgpu-lite.toml'}", in_file)
    monkeypatch.setenv(env, str(in_env))
    assert used() == (in_env, f"environment {env}", in_env)
    argv = [*argv, flag, str(in_flag)]
    assert used() == (in_flag, "given", in_flag)


@pytest.mark.parametrize("argv", [ESTIMATE, PREDICT], ids=["estimate", "predict"])
def test_a_region_flag_decides_the_grid_over_environment_and_file(capsys, tmp_path, monkeypatch,
                                                                   argv):  # fmt: skip
    (tmp_path / "wattgpu-lite.toml").write_text("grid_gco2_per_kwh = 250\n")
    monkeypatch.setenv("WATTGPU_LITE_GRID_GCO2_PER_KWH", "300")
    doc = _doc(capsys, [*argv, "--region", "NO"])
    assert (
        doc["wall"]["grid_gco2_per_kwh"] == 30 and doc["wall"]["grid_source"] == "Norway (NO), 2023"
    )
    assert doc["defaults"]["grid_gco2_per_kwh"] == {"value": 30, "source": "region NO"}
    doc = _doc(capsys, argv)  # without it the environment's number, named as such
    assert doc["wall"]["grid_source"] == "given by environment WATTGPU_LITE_GRID_GCO2_PER_KWH"


@pytest.mark.parametrize(("text", "words"), [("grid_gco2_per_kwh = -5\n", ["grid_gco2_per_kwh"]),
                                             ("price_per_kwh = -1\n", ["price_per_kwh"]),
                                             ("pue = 0\n", ["pue", "from 1 to 3"])])  # fmt: skip
def test_predict_refuses_a_bad_wall_value_from_the_file(capsys, tmp_path, text, words):
    (tmp_path / "wattgpu-lite.toml").write_text(text)
    line = _error(capsys, PREDICT)
    assert line.startswith("error: config file") and all(w in line for w in words), line
