"""A ``WATTGPU_LITE_*`` variable the kit does not read is refused, not silently ignored: one line
naming it, its close matches (or the config file, for a flag the environment does not set). And a
config file's [section], which the file does not take, is named as a section."""

from __future__ import annotations

import pytest

from tests.cli_runner import one_error_line, run_cli

ESTIMATE = ["estimate", "--llm", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "A30", "--json"]


@pytest.fixture(autouse=True)
def _in_a_clean_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("WATTGPU_LITE_TIN", ["WATTGPU_LITE_TIN", "did you mean WATTGPU_LITE_T_IN"]),
        ("wattgpu_lite_t_in", ["wattgpu_lite_t_in", "did you mean WATTGPU_LITE_T_IN"]),
        ("WATTGPU_LITE_DATADIR", ["WATTGPU_LITE_DATADIR", "did you mean WATTGPU_LITE_DATA"]),
        ("WATTGPU_LITE_NUM_GPUS", ["--num-gpus", "num_gpus = ... in wattgpu-lite.toml"]),
    ],
)
@pytest.mark.parametrize("argv", [ESTIMATE, ["gpus"]], ids=["estimate", "gpus"])
def test_an_unknown_variable_is_refused(capsys, name, words, argv):
    code, out, err = run_cli(argv, capsys, env={name: "500"})
    one_error_line(code, out, err, [*words, "unset " + name])


def test_the_known_variables_still_work(capsys):
    code, out, err = run_cli(ESTIMATE, capsys, env={"WATTGPU_LITE_T_IN": "500"})
    assert code == 0, err
    assert '"source": "environment WATTGPU_LITE_T_IN"' in out


def test_help_is_shown_whatever_the_environment(capsys):
    code, out, _ = run_cli(["--help"], capsys, env={"WATTGPU_LITE_TIN": "500"})
    assert code == 0 and "usage" in out


@pytest.mark.parametrize("text", ["[predict]\nrate_qps = 2\n", "predict.rate_qps = 2\n"])
def test_a_config_section_is_named_as_one_with_what_the_file_takes(capsys, tmp_path, text):
    """The file takes top-level keys only (README, --config's help): a [predict] section is said
    to be a section, with its keys to move to the top — not a misspelt 'region'."""
    (tmp_path / "wattgpu-lite.toml").write_text(text, encoding="utf-8")
    code, out, err = run_cli(ESTIMATE, capsys)
    words = ["[predict] is a section", "top-level keys only", "write rate_qps = 2 above"]
    one_error_line(code, out, err, words)
    assert "did you mean" not in err


@pytest.mark.parametrize(
    ("text", "flag"), [("json = true\n", "--json"), ('output = "x.csv"\n', "--output")]
)
def test_a_flag_the_file_does_not_set_is_sent_to_the_command_line(capsys, tmp_path, text, flag):
    (tmp_path / "wattgpu-lite.toml").write_text(text, encoding="utf-8")
    code, out, err = run_cli(ESTIMATE, capsys)
    one_error_line(code, out, err, [f"{flag} chooses what one run prints", "command line"])
    assert "did you mean" not in err
