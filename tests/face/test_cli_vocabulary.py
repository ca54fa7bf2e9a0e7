"""One vocabulary: the same flag means the same thing in every command.

Read from the parser ``main()`` builds, so a flag added to any command is held the day it lands:
each help string names only flags its command has; a concept (a dest) has one spelling, one
default, one type and one requiredness wherever it appears (the exceptions below, each with its
reason); every flag but :data:`~wattgpu_lite.face.cli.config.NOT_CONFIG` is a config-file key
that sets the same value as the flag.
"""

from __future__ import annotations

import argparse
import json
import re

import pytest

from wattgpu_lite.face.cli.config import (
    NO_CONFIG_COMMANDS,
    NOT_CONFIG,
    command_keys,
    flag_key,
    known_keys,
    subcommands,
    with_config,
)
from wattgpu_lite.face.cli.defaults import BY_KEY, apply_defaults
from wattgpu_lite.face.cli.main import build_parser, main

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
MOE = "Qwen/Qwen1.5-MoE-A2.7B-Chat"
PARSER = build_parser()
COMMANDS = subcommands(PARSER)
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]")
# a dest whose default or requiredness differs between commands, and why
DIFFERS = {
    # estimate has one load, a batch (default 1, as wl.estimate_energy); predict, explain and
    # rank take one of --rate-qps, --batch, --scenario, none by default
    "batch": "estimate's only load",
    # llms lists the catalog unless --llm names one model to show
    "llm": "llms shows one model when given, else lists",
}


def _visible(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.help != argparse.SUPPRESS]


def _texts(name: str, parser: argparse.ArgumentParser) -> list[str]:
    """Every text its --help shows: each flag's help (defaults filled), the summary, the
    example — without a quoted call of another command (```llms --aliases```), whose flags are
    that command's."""
    helps = [a.help % {"default": a.default} for a in _visible(parser) if a.help]
    texts = [*helps, parser.description or "", parser.epilog or ""]
    other = r"`(?:wattgpu-lite )?(?:" + "|".join(c for c in COMMANDS if c != name) + r")\b[^`]*`"
    return [re.sub(other, "", t) for t in texts]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_help_names_only_flags_its_command_has(name):
    parser = COMMANDS[name]
    own = {o for a in _visible(parser) for o in a.option_strings}
    for text in _texts(name, parser):
        named = set(FLAG.findall(text))
        assert named <= own, f"{name}: {sorted(named - own)} named in {text!r}"


def test_rank_help_for_tp_names_no_num_gpus():
    tp = next(a for a in COMMANDS["rank"]._actions if "--tp" in a.option_strings)
    assert "--num-gpus" not in tp.help and "--gpu-counts" in tp.help


def _shape(action: argparse.Action) -> tuple:
    return (tuple(action.option_strings), action.default, action.required, action.type,
            tuple(action.choices or ()), type(action).__name__)  # fmt: skip


def test_each_concept_has_one_spelling_one_default_and_one_requiredness():
    seen: dict[str, tuple[str, tuple]] = {}
    spelled: dict[str, str] = {}
    for name, parser in COMMANDS.items():
        for action in _visible(parser):
            if action.dest == "help":
                continue
            for flag in action.option_strings:  # one concept per spelling, too
                assert spelled.setdefault(flag, action.dest) == action.dest, flag
            shape = _shape(action)
            first = seen.setdefault(action.dest, (name, shape))
            if action.dest in DIFFERS:
                assert shape[0] == first[1][0], f"{action.dest}: two spellings"
                continue
            assert shape == first[1], f"{action.dest}: {name} {shape} != {first[0]} {first[1]}"
    assert len(DIFFERS) == 2  # each exception above is a decision; a new one is a test change


@pytest.mark.parametrize("name", ["estimate", "predict", "explain"])
def test_gpu_is_required_wherever_one_gpu_answers(name):
    gpu = next(a for a in COMMANDS[name]._actions if a.dest == "gpu")
    assert gpu.required and gpu.default is None


@pytest.mark.parametrize("where", ["wl", "energy"])
def test_python_requires_the_gpu_as_the_cli_does_and_says_how_to_pass_it(where):
    """``wl.estimate_energy`` defaulted to the H100 NVL while ``estimate`` required ``--gpu``."""
    import wattgpu_lite as wl
    from wattgpu_lite.energy import estimate

    call = wl.estimate_energy if where == "wl" else estimate.estimate_energy
    with pytest.raises(wl.errors.InvalidInputError) as err:
        call(LLAMA, t_in=500, t_out=300)
    text = str(err.value)
    assert (
        text.startswith("estimate_energy needs gpu") and 'estimate_energy(llm, "H100 NVL")' in text
    )
    assert 'gpu="H100 NVL"' in text and "wl.gpus()" in text and "--gpu" in text
    assert call(LLAMA, "A30", t_in=500, t_out=300).gpu == "A30"


def _sample(action: argparse.Action):
    """A valid config value for a flag, and the value the flag parses to."""
    if action.dest == "pue":
        return 1.2, 1.2
    if action.dest == "region":
        return "FR", "FR"
    if action.dest == "workload":
        return "azure-conv-2023", "azure-conv-2023"
    if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
        return True, not action.default
    if action.choices:
        choice = sorted(map(str, action.choices))[-1]
        return choice, choice
    if action.type is int:
        return 2, 2
    if action.type is float:
        return 0.5, 0.5
    return "A30", "A30"


def _line(parser: argparse.ArgumentParser, skip: set[str]) -> list[str]:
    """The least a command needs on its line, but the dests of ``skip``."""
    words = []
    for group in parser._mutually_exclusive_groups:
        dests = {a.dest for a in group._group_actions}
        if group.required and not dests & skip:
            action = group._group_actions[0]
            words += [action.option_strings[0], str(_sample(action)[0])]
    for action in parser._actions:
        if action.required and action.dest not in skip:
            words += [action.option_strings[0], str(_sample(action)[0])]
    return words


CONFIG_FLAGS = [(name, key) for name, sub in COMMANDS.items() if name not in NO_CONFIG_COMMANDS
                for key in command_keys(sub)]  # fmt: skip


@pytest.mark.parametrize(("name", "key"), CONFIG_FLAGS, ids=[f"{n} {k}" for n, k in CONFIG_FLAGS])
def test_every_flag_is_a_config_key_that_sets_what_the_flag_sets(tmp_path, name, key):
    parser = COMMANDS[name]
    action = command_keys(parser)[key]
    value, parsed = _sample(action)
    (tmp_path / "wattgpu-lite.toml").write_text(f"{key} = {json.dumps(value)}\n")
    group = next((g for g in parser._mutually_exclusive_groups if action in g._group_actions), None)
    skip = {a.dest for a in group._group_actions} if group else {action.dest}
    words, used, from_file = with_config(build_parser, [name, *_line(parser, skip)], environ={},
                                         cwd=tmp_path)  # fmt: skip
    args = build_parser().parse_args(words)
    if key in BY_KEY or key == "region":  # the defaults, the environment between flag and file
        used = apply_defaults(args, environ={}, cwd=tmp_path, from_file=from_file)
    assert getattr(args, action.dest) == parsed
    assert used[key] == {"value": value, "source": f"config {tmp_path / 'wattgpu-lite.toml'}"}


def test_only_the_documented_flags_are_no_config_keys():
    left_out = {a.option_strings[0][2:] for sub in COMMANDS.values() for a in _visible(sub)
                if flag_key(a) is None and a.dest != "help"}  # fmt: skip
    assert {f.replace("-", "_") for f in left_out} <= set(NOT_CONFIG)
    assert {"region", "num_gpus", "tp", "ep", "llm", "gpu", "rate_qps", "gpus"} <= known_keys(
        PARSER
    )


def _doc(capsys, argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_a_region_in_the_config_file_sets_the_grid(capsys, tmp_path, monkeypatch):
    """``region = "FR"`` in wattgpu-lite.toml is accepted."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wattgpu-lite.toml").write_text('region = "FR"\nnum_gpus = 2\n')
    doc = _doc(capsys, ["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5"])
    assert doc["wall"]["grid_source"].startswith("France (FR)") and doc["inputs"]["num_gpus"] == 2
    assert doc["defaults"]["region"]["source"].startswith("config ")
    # a flag of the grid's group wins over the file's region, as a flag over any key
    doc = _doc(capsys, ["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5",
                        "--grid-gco2-per-kwh", "100"])  # fmt: skip
    assert doc["wall"]["grid_gco2_per_kwh"] == 100 and "region" not in doc["defaults"]


def test_a_file_with_two_keys_of_one_group_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wattgpu-lite.toml").write_text("rate_qps = 1\nbatch = 4\n")
    assert main(["predict", "--llm", LLAMA, "--gpu", "A30"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "batch or rate_qps, not both" in err


@pytest.mark.parametrize(("text", "words"), [('num_gpus = "two"\n', ["num_gpus", "whole number"]),
                                             ('weights = "fp9"\n', ["weights", "bf16"]),
                                             ("no_correction = 1\n", ["true or false"]),
                                             ("rate-qps = 1\n", ["did you mean 'rate_qps'"])])  # fmt: skip
def test_a_bad_key_or_value_names_the_file_and_the_key(capsys, tmp_path, monkeypatch, text, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wattgpu-lite.toml").write_text(text)
    assert main(["predict", "--llm", LLAMA, "--gpu", "A30", "--batch", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "wattgpu-lite.toml" in err
    assert all(w in err for w in words), err


def test_predict_takes_the_layout_as_estimate_does(capsys):
    """``--tp 2 --ep 2``: whole experts on 2 tensor-parallel GPUs, in predict as in estimate."""
    new = _doc(capsys, ["predict", "--llm", MOE, "--gpu", "H100 SXM", "--rate-qps", "0.5",
                        "--tp", "2", "--ep", "2"])  # fmt: skip
    assert (new["inputs"]["tp"], new["inputs"]["ep"]) == (2, 2)
    est = _doc(capsys, ["estimate", "--llm", MOE, "--gpu", "H100 SXM", "--tp", "2", "--ep", "2"])
    assert (est["num_gpus"], est["tp"], est["ep"]) == (2, 2, 2)


def test_llms_takes_llm_as_every_command(capsys):
    new = _doc(capsys, ["llms", "--llm", MOE])
    assert new["kind"] == "llm_config" and new["name"] == MOE
