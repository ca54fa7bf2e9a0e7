"""CLI ``compare``: ``--json`` is ``wl.compare(...).to_json()``, the text view, bad input."""

from __future__ import annotations

import pytest

import wattgpu_lite as wl
from tests.cli_runner import one_error_line, run_cli

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
ARGS = ["compare", "--llm", LLAMA, "--gpus", "A30,A100 SXM4 40GB,H100 SXM", "--scenario",
        "server_low"]  # fmt: skip


def test_json_is_to_json(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no wattgpu-lite.toml: the token counts are the built-in ones
    for key in ("WATTGPU_LITE_T_IN", "WATTGPU_LITE_T_OUT"):
        monkeypatch.delenv(key, raising=False)
    code, out, err = run_cli([*ARGS, "--json"], capsys)
    assert code == 0, err
    c = wl.compare(LLAMA, gpus=["A30", "A100 SXM4 40GB", "H100 SXM"], scenario="server_low")
    assert out.strip() == c.to_json()


def test_text_view_names_the_reference_each_kind_and_why(capsys):
    code, out, err = run_cli(ARGS, capsys)
    assert code == 0, err
    assert "over the A30's" in out and "paired" in out and "unpaired" in out
    assert "H100 SXM: unpaired interval: the paired one is not calibrated" in out
    assert max(len(line) for line in out.splitlines()) <= 100


@pytest.mark.parametrize(("gpus", "words"), [
    ("A30", ["two or more"]), ("A30,H100 SMX", ["H100 SMX", "H100 SXM"]),
])  # fmt: skip
def test_bad_gpus_are_one_line_exit_2(gpus, words, capsys):
    argv = ["compare", "--llm", LLAMA, "--gpus", gpus, "--scenario", "server_low"]
    one_error_line(*run_cli(argv, capsys), words)
