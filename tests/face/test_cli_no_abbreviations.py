"""No long option is read from a prefix of it (argparse's ``allow_abbrev``, off for the top-level
parser and every command's): ``predict --model wattgpu`` was read as ``--model-dir wattgpu`` and
failed on a missing model folder. A mistyped option is refused by its command's parser, naming
the close matches."""

from __future__ import annotations

import argparse

import pytest

from wattgpu_lite.__main__ import build_parser, main
from wattgpu_lite.face.cli.config import relax, subcommands
from wattgpu_lite.face.cli.messages import unrecognized

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
COMMANDS = subcommands(build_parser())


def _prefixes(parser: argparse.ArgumentParser) -> list[str]:
    """Each long option of ``parser`` less its last letter, where that is no option itself."""
    flags = {o for a in parser._actions for o in a.option_strings}
    return sorted({f[:-1] for f in flags if f.startswith("--") and len(f) > 4} - flags)


def test_the_top_level_and_every_command_parser_take_no_abbreviation():
    assert not build_parser().allow_abbrev
    assert all(not p.allow_abbrev for p in COMMANDS.values())


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_prefix_of_any_long_option_is_left_unread(name):
    # relaxed (nothing required), so only the prefix decides what is left over
    for prefix in _prefixes(COMMANDS[name]):
        _, extra = relax(build_parser()).parse_known_args([name, prefix, "1"])
        assert prefix in extra, (name, prefix)


def test_predict_model_is_refused_with_its_close_match_not_read_as_model_dir(capsys):
    argv = ["predict", "--llm", LLAMA, "--gpu", "A30", "--scenario", "server_low"]
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--model", "wattgpu"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --model wattgpu" in err and "did you mean --model-dir" in err
    assert "predict --help" in err and "state.json" not in err  # no model folder was looked for


@pytest.mark.parametrize(
    ("argv", "near"),
    [(["rank", "--llm", LLAMA, "--rate-qps", "1", "--itl-sla", "50"], "--itl-sla-ms"),
     (["--vers"], "--version")],
)  # fmt: skip
def test_a_mistyped_option_names_its_close_match(capsys, argv, near):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and f"did you mean {near}?" in capsys.readouterr().err


def test_unrecognized_names_no_match_for_a_word_far_from_every_option():
    assert unrecognized(["--zzz", "x"], ["--llm", "--gpu"]) == "unrecognized arguments: --zzz x"
