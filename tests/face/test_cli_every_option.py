"""Every offered option works, end to end through the CLI.

The choices are not listed here: they are read from the parser ``main()`` builds
(:func:`wattgpu_lite.face.cli.main.build_parser`), so a choice added to any command is run by this
file the day it is offered. Each choice goes through ``main([...])`` with otherwise minimal valid
arguments (MINIMAL), once with ``--json`` and once for the text view, and must exit 0 with the
envelope (``schema_version`` 1, ``kind`` the command), echo the choice it was given (the option
was not silently ignored) and carry finite, positive numbers where the command answers one.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math

import pytest

from wattgpu_lite.energy.precision import canonical_format
from wattgpu_lite.face.cli.main import build_parser, main

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
# the least each command needs to run; a choice of a mutually exclusive group replaces its
# member given here (e.g. --scenario replaces --rate-qps)
MINIMAL = {
    "gpus": [],
    "llms": [],
    "rank": [
        "--llm",
        LLAMA,
        "--itl-sla-ms",
        "200",
        "--rate-qps",
        "0.5",
        "--gpus",
        "A30,L4,H100 NVL",
        "--gpu-counts",
        "1,2",
    ],
    "compare": ["--llm", LLAMA, "--gpus", "A30,L4", "--rate-qps", "0.5"],
    "estimate": ["--llm", LLAMA, "--gpu", "H100 NVL"],
    "predict": ["--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5"],
    "explain": ["--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5"],
    "evaluate": ["--no-progress"],
}
# options the walk below must find (a walk finding nothing would pass nothing)
NAMED = {("rank", "--source"), ("rank", "--scenario"), ("rank", "--weights"),
         ("predict", "--scenario"), ("explain", "--scenario"), ("explain", "--weights"),
         ("estimate", "--mode"), ("estimate", "--weights"), ("evaluate", "--model"),
         ("evaluate", "--target"), ("evaluate", "--strategy")}  # fmt: skip


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _choice_actions(sub: argparse.ArgumentParser):
    return [a for a in sub._actions
            if a.choices is not None and not isinstance(a, argparse._SubParsersAction)]  # fmt: skip


COMMANDS = _subparsers(build_parser())
CASES = [(name, action.option_strings[-1], action.dest, choice)
         for name, sub in COMMANDS.items() for action in _choice_actions(sub)
         for choice in action.choices]  # fmt: skip


def _argv(command: str, option: str, choice: str) -> list[str]:
    """MINIMAL for ``command`` with ``option choice``; the option's group mates given there dropped."""
    sub, words = COMMANDS[command], list(MINIMAL[command])
    action = next(a for a in sub._actions if option in a.option_strings)
    for group in sub._mutually_exclusive_groups:
        if action in group._group_actions:
            for mate in group._group_actions:
                for flag in set(mate.option_strings) & set(words):
                    i = words.index(flag)
                    del words[i : i + 2]
    if (command, option) == ("rank", "--source") and choice != "hybrid":
        # a Watt Counts source refuses what it cannot answer: plans of several GPUs, and rates
        # above the runs' highest (server_high's 0.33 req/s)
        i = words.index("--gpu-counts")
        del words[i : i + 2]
        words[words.index("--rate-qps") + 1] = "0.33"
    if (command, option, choice) == ("evaluate", "--strategy", "loso"):
        words.extend(["--model", "hybrid"])  # one source of another harness out: the hybrid's
    return [command, *words, option, str(choice)]


def _values(doc, key: str) -> list:
    """Every value stored under ``key`` anywhere in a JSON document (rows included)."""
    if isinstance(doc, dict):
        return [v for k, v in doc.items() if k == key] + [
            x for v in doc.values() for x in _values(v, key)
        ]
    if isinstance(doc, list):
        return [x for v in doc for x in _values(v, key)]
    return []


def _positive(value, where: str) -> None:
    assert isinstance(value, int | float) and not isinstance(value, bool), (where, value)
    assert math.isfinite(value) and value > 0, (where, value)


def _check_numbers(command: str, doc: dict) -> None:
    """The numbers each command answers: finite and positive."""
    if command == "estimate":
        for key in ("total_j", "total_wh"):
            _positive(doc[key], key)
    elif command == "predict":
        for key in ("power_w", "itl_s", "energy_per_token_j"):
            _positive(doc[key], key)
    elif command == "explain":
        for key in ("power_w", "itl_s", "energy_per_token_j"):
            _positive(doc["prediction"][key], f"prediction.{key}")
        _positive(doc["busy_power_w"], "busy_power_w")
    elif command == "rank":
        fitting = [row for row in doc["rows"] if row.get("fits")]
        assert fitting, "no plan fits"
        for row in fitting:
            if row["itl_ms"] is None:  # the paper's trees below the physical floor: refused
                assert "physical floor" in row["why_not"], row
                continue
            for key in ("power_w", "itl_ms", "energy_per_1k_tokens_j", "energy_per_request_j"):
                _positive(row[key], f"{row['gpu']}: {key}")
        assert any(row["itl_ms"] is not None for row in fitting), "no plan answered"
    elif command == "evaluate":
        rows = doc["pooled"] if doc["model"] == "hybrid" else doc["rows"]
        assert rows
        for row in rows:  # the nested tables' MdAPE; the LOSO table's, after calibration
            _positive(row.get("mdape_pct", row.get("mdape_after")), "MdAPE")
    else:  # the catalogs
        assert doc["rows"]


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_the_walk_finds_every_named_option():
    assert NAMED <= {(c, o) for c, o, _, _ in CASES}
    assert set(MINIMAL) == set(COMMANDS), "a command without minimal arguments here"


@pytest.mark.parametrize(("command", "option", "dest", "choice"), CASES,
                         ids=[f"{c} {o} {v}" for c, o, _, v in CASES])  # fmt: skip
def test_every_choice_runs(command, option, dest, choice, capsys):
    argv = _argv(command, option, choice)
    rc, out, err = _run([*argv, "--json"], capsys)
    assert rc == 0, f"{' '.join(argv)} --json exited {rc}: {err.strip()}"
    doc = json.loads(out)
    assert doc["schema_version"] == 1 and doc["kind"] == command
    expected = canonical_format(choice) if dest == "weights" else choice
    assert expected in _values(doc, dest), f"{option} {choice} is not echoed as {dest!r}"
    _check_numbers(command, doc)
    rc, out, err = _run(argv, capsys)  # the text view of the same choice
    assert rc == 0 and out.strip(), f"{' '.join(argv)} (text) exited {rc}: {err.strip()}"
    assert "error" not in err


@pytest.mark.parametrize("command", [c for c in COMMANDS if not _choice_actions(COMMANDS[c])])
def test_every_command_without_choices_runs(command, capsys):
    rc, out, err = _run([command, *MINIMAL[command], "--json"], capsys)
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["schema_version"] == 1 and doc["kind"] == command
    _check_numbers(command, doc)


@pytest.mark.parametrize("strategy", ["cv", "all"])
def test_hybrid_evaluate_names_the_strategies_it_has(strategy, capsys):
    """Not every pair of choices combines: the hybrid's nested protocol is LOGO and LOLO only;
    that is a one-line error naming them (exit 2), never a traceback."""
    rc, out, err = _run(["evaluate", "--model", "hybrid", "--strategy", strategy], capsys)
    assert rc == 2 and out == ""
    assert err.startswith("error:") and "logo" in err and "lolo" in err


# the wall accounting's options (not choices, so the walk above does not see them): each value
# given must reach the accounting, as the number it stands for under its key
WALL_OPTIONS = {"--region": ("FR", "grid_gco2_per_kwh", 56),  # France, data/grid_intensity.csv
                "--grid-gco2-per-kwh": ("250", "grid_gco2_per_kwh", 250),
                "--pue": ("1.3", "pue", 1.3), "--price-per-kwh": ("0.2", "price_per_kwh", 0.2)}  # fmt: skip
WALL_CASES = [(name, option) for name, sub in COMMANDS.items() for option in WALL_OPTIONS
              if any(option in a.option_strings for a in sub._actions)]  # fmt: skip


def test_every_command_with_energy_takes_every_wall_option():
    for name in ("rank", "estimate", "predict", "explain"):
        assert {o for c, o in WALL_CASES if c == name} == set(WALL_OPTIONS), name


@pytest.mark.parametrize(("command", "option"), WALL_CASES,
                         ids=[f"{c} {o}" for c, o in WALL_CASES])  # fmt: skip
def test_every_wall_option_reaches_the_accounting(command, option, capsys):
    value, key, expected = WALL_OPTIONS[option]
    argv = [command, *MINIMAL[command], option, value]
    rc, out, err = _run([*argv, "--json"], capsys)
    assert rc == 0, err
    doc = json.loads(out)
    shown = _values(doc.get("wall", doc.get("rows")), key)
    assert shown and all(v == expected for v in shown), (option, shown)
    _check_numbers(command, doc)
    rc, out, err = _run(argv, capsys)
    assert rc == 0 and out.strip() and "error" not in err


# ------------------------------------------------- every Python option has its CLI flag
def _library() -> dict:
    from wattgpu_lite.energy.estimate import estimate_energy
    from wattgpu_lite.hybrid.predict.api import predict
    from wattgpu_lite.hybrid.predict.explain import explain
    from wattgpu_lite.selection.rank import rank_gpus

    return {"predict": predict, "explain": explain, "estimate": estimate_energy, "rank": rank_gpus}


# the arguments a flag spells differently: the layout is --tp/--ep (expert_parallel=True on N
# GPUs is --tp N --ep N), the candidates --gpus, a saved hybrid (model=) --model-dir (evaluate's
# --model names a predictor)
SPELLED = {"parallel": {"tp", "ep"}, "layouts": {"tp", "ep"}, "expert_parallel": {"tp", "ep"},
           "candidates": {"gpus"}, "model": {"model_dir"}}  # fmt: skip


@pytest.mark.parametrize("command", ["predict", "explain", "estimate", "rank"])
def test_every_python_option_has_its_cli_flag(command):
    fn = _library()[command]
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind is not inspect.Parameter.VAR_POSITIONAL]  # fmt: skip
    dests = {a.dest for a in COMMANDS[command]._actions}
    missing = [p.name for p in params if not SPELLED.get(p.name, {p.name}) <= dests]
    assert missing == [], f"{command}: no flag for {missing}"


@pytest.mark.parametrize(
    ("flags", "key", "expected"),
    [(["--num-gpus", "2"], "num_gpus", 2), (["--weights", "fp8"], "weights", "fp8"),
     (["--tp", "2"], "tp", 2), (["--no-correction"], "model", "physics")],
)  # fmt: skip
def test_predict_passes_each_layout_and_format_flag_to_the_library(flags, key, expected, capsys):
    rc, out, err = _run(["predict", *MINIMAL["predict"], *flags, "--json"], capsys)
    assert rc == 0, err
    doc = json.loads(out)
    assert expected in _values(doc, key), (flags, _values(doc, key))
    _check_numbers("predict", doc)


def test_predict_without_the_correction_is_the_physics_backbone_of_estimate(capsys):
    """--no-correction is wl.predict(correction=False): the backbone alone, basis "physics"."""
    import wattgpu_lite as wl

    rc, out, _ = _run(["predict", *MINIMAL["predict"], "--no-correction", "--json"], capsys)
    doc = json.loads(out)
    p = wl.predict(LLAMA, "A30", rate_qps=0.5, correction=False)
    assert rc == 0 and doc["model"] == p.model == "physics"
    assert doc["power_w"] == pytest.approx(p.power_w, rel=1e-5)


def test_rank_passes_level_and_context_tokens(capsys):
    rc, out, err = _run(["rank", *MINIMAL["rank"], "--level", "0.9", "--json"], capsys)
    assert rc == 0, err
    assert set(_values(json.loads(out), "level")) == {0.9}
    argv = ["rank", "--llm", LLAMA, "--itl-sla-ms", "200", "--scenario", "server_low",
            "--source", "measured", "--gpus", "A30", "--context-tokens", "131072", "--json"]  # fmt: skip
    rc, out, err = _run(argv, capsys)  # a 128k context does not fit an A30 next to the weights
    assert rc == 2 and "A30: does not fit in memory" in err


def test_predict_model_flag_loads_a_saved_hybrid_and_names_a_missing_one(tmp_path, capsys):
    """``--model-dir DIR``: a hybrid saved to DIR answers as the same hybrid given to wl.predict; a
    folder without a saved model is an error naming the file, never the shipped model's answer."""
    from wattgpu_lite.hybrid.predict.model import HybridState

    saved = HybridState.pretrained().save(tmp_path / "mine")
    rc, out, err = _run(
        ["predict", *MINIMAL["predict"], "--model-dir", str(saved), "--json"], capsys
    )
    assert rc == 0, err
    rc0, out0, _ = _run(["predict", *MINIMAL["predict"], "--json"], capsys)
    assert rc0 == 0 and json.loads(out) == json.loads(out0)
    rc, out, err = _run(["predict", *MINIMAL["predict"], "--model-dir", str(tmp_path / "none")],
                        capsys)  # fmt: skip
    assert rc != 0 and "state.json" in err and out == ""
