"""rank --top below 1 is one error line naming the flag: --top 0 and --top -1 showed one plan, as
--top 1, silently (the view shows max(top, 1)); top = -3 in wattgpu-lite.toml the same."""

from __future__ import annotations

import pytest

from tests.cli_runner import one_error_line, run_cli

RANK = ["rank", "--llm", "llama-3.1-8b", "--itl-sla-ms", "50", "--batch", "8", "--gpus", "A30,L4"]


@pytest.mark.parametrize("top", ["0", "-1"])
def test_top_below_one_is_refused(capsys, top):
    words = [f"top (--top) must be from 1 to 100000, got {top}", "e.g. --top 10"]
    one_error_line(*run_cli([*RANK, "--top", top], capsys), words)


def test_top_in_a_config_file_is_checked_the_same(capsys, tmp_path):
    config = tmp_path / "defaults.toml"
    config.write_text("top = -3\n")
    words = ["top (--top) must be from 1 to 100000, got -3"]
    one_error_line(*run_cli([*RANK, "--config", str(config)], capsys), words)
    code, out, err = run_cli([*RANK, "--top", "1"], capsys)
    assert code == 0, err
