"""``--help`` of every CLI command shows its defaults and one example that runs; ``--weights`` lists
each format once; errors speak to the shell user (commands and flags, not Python calls)."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from wattgpu_lite.__main__ import build_parser, main
from wattgpu_lite.face.cli.layout import WEIGHT_CHOICES
from wattgpu_lite.face.cli.messages import FOR_SHELL, for_shell

FIXTURES = Path(__file__).parents[1] / "fixtures"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


COMMANDS = _commands()


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.dest != "help"]


def _help_of(action: argparse.Action) -> str:
    return action.help % {"default": action.default} if action.help else ""


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_option_has_help_and_shows_its_default(name):
    for action in _options(COMMANDS[name]):
        text = _help_of(action)
        assert text, f"{name} {action.option_strings[0]} has no help"
        if action.default not in (None, False, argparse.SUPPRESS):
            assert f"default {action.default}" in text or f"default: {action.default}" in text, text


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_help_ends_with_an_example_of_that_command_that_runs(capsys, name, tmp_path,
                                                                  monkeypatch):  # fmt: skip
    """Run in a temporary folder: an example that writes a file (``gpus --output gpus.csv``)
    leaves the working tree as it was."""
    monkeypatch.chdir(tmp_path)
    text = COMMANDS[name].format_help()
    example = re.search(r"\nexample:\n  (wattgpu-lite .+)\n$", text)
    assert example, text[-300:]
    argv = shlex.split(example.group(1))
    assert argv[:2] == ["wattgpu-lite", name]
    assert main([*argv[1:], "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_estimate_help_names_the_hidden_defaults():
    text = " ".join(COMMANDS["estimate"].format_help().split())
    for words in ("prompt tokens per request (default: the workload's, 15 for watt-counts)",
                  "generated tokens per request (default: the workload's, 180 for watt-counts)",
                  "(default physical)", "default watt-counts, the Watt Counts runs' mean request",
                  "physical: the kit's model", "paper: the printed equations"):  # fmt: skip
        assert words in text, words
    for name in ("predict", "rank"):
        text = " ".join(COMMANDS[name].format_help().split())
        assert "15 for watt-counts" in text and "180 for watt-counts" in text


@pytest.mark.parametrize("name", ["estimate", "rank"])
def test_weights_lists_every_format_once(name):
    weights = next(a for a in _options(COMMANDS[name]) if a.dest == "weights")
    assert len(weights.choices) == len(set(weights.choices)) == len(set(WEIGHT_CHOICES))
    listed = re.search(r"one of ([\w, ]+) \(", _help_of(weights)).group(1).split(", ")
    assert listed == list(weights.choices) and listed.count("fp4") == 1


@pytest.mark.parametrize(
    ("argv", "words"),
    [(["estimate", "--llm", LLAMA, "--gpu", "H100X"],
      "Run `wattgpu-lite gpus` to list them, or pass a GPU spec file: --gpu path/to/spec.json."),
     (["estimate", "--gpu", "H100 NVL", "--llm", "llamaX"],
      "Run `wattgpu-lite llms` to list them and `wattgpu-lite llms --aliases` for checkpoint ids"),
     (["predict", "--llm", LLAMA, "--gpu", "A30", "--batch", "4000"], "; pass --batch <= 256"),
     (["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "900"],
      "Pass a lower --rate-qps, or use more replicas (`wattgpu-lite rank` plans them)."),
     (["predict", "--llm", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "T4", "--batch", "1"],
      "pick a GPU with more memory (`wattgpu-lite rank` lists them)"),
     (["rank", "--llm", "Qwen/Qwen1.5-MoE-A2.7B-Chat", "--scenario", "server_low",
       "--itl-sla-ms", "50", "--source", "paper"],
      "Use `wattgpu-lite predict` (the physics backbone answers for it, with wider intervals)"),
     (["estimate", "--llm", LLAMA, "--gpu", str(FIXTURES / "gpu_rtx5090_spec.json"),
       "--num-gpus", "2"], "use --num-gpus 1, or add \"interconnect_gbs\" to the GPU's spec file"),
     (["rank", "--llm", LLAMA, "--rate-qps", "1", "--itl-sla-ms", "50", "--level", "80"],
      "pass --level from 0.5 to 0.999, a fraction: --level 0.8 for an 80 % interval"),
     (["compare", "--llm", LLAMA, "--rate-qps", "1", "--gpus", "A30,L4", "--level", "80"],
      "a fraction: --level 0.8"),
     (["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "1", "--level", "80"],
      "a fraction: --level 0.8")],
)  # fmt: skip
def test_errors_name_commands_and_flags_not_python(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err, err
    assert "wl." not in err and "from_spec" not in err and len(err.splitlines()) == 1


def test_for_shell_rewords_each_phrase_and_leaves_others_alone():
    for python, shell in FOR_SHELL:
        assert for_shell(f"x {python} y") == f"x {shell} y"
        assert "wl." not in shell
    assert for_shell("unknown source 'x'") == "unknown source 'x'"


@pytest.mark.parametrize("name", ["predict", "estimate", "explain", "rank"])
def test_help_shows_the_wall_defaults(name):
    from wattgpu_lite.selection.accounting import (
        DEFAULT_GRID_GCO2_PER_KWH,
        DEFAULT_PRICE_PER_KWH,
        DEFAULT_PUE,
    )

    text = " ".join(COMMANDS[name].format_help().replace("- ", "-").split())
    for words in (f"(default {DEFAULT_PUE:g}, Uptime Institute's 2023 industry average",
                  f"(default {DEFAULT_GRID_GCO2_PER_KWH:g}, Ember world average",
                  f"(default {DEFAULT_PRICE_PER_KWH:g} USD, EIA", "default WORLD, Ember",
                  "WATTGPU_LITE_PUE", "WATTGPU_LITE_GRID_GCO2_PER_KWH",
                  "WATTGPU_LITE_PRICE_PER_KWH", "--region REGION | --grid-gco2-per-kwh"):  # fmt: skip
        assert words in text, (name, words)
