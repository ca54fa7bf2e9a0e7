"""Config-file keys are flag names: ``rate_qps = 2`` in ``wattgpu-lite.toml`` is ``--rate-qps 2``.

Every flag of a command is a key of the defaults file (its long name, ``-`` written ``_``:
``region = "FR"``, ``num_gpus = 2``, ``no_correction = true``, ``gpus = ["A30", "L4"]``), but
those of :data:`NOT_CONFIG`, which choose what one run prints or saves (or name the file itself).
A key applies to each command that has the flag, and is ignored by the others; a flag on the
command line wins over the file, and so does any flag of its group (``--batch`` over a file's
``rate_qps``, ``--grid-gco2-per-kwh`` or its environment variable over a file's ``region``). The
five defaults of :mod:`~wattgpu_lite.face.cli.defaults` (tokens, grid, price, PUE) are read there,
with the environment between flag and file; a key given by the file is echoed in the result's
``defaults`` with its source. The catalog listings (:data:`NO_CONFIG_COMMANDS`) read no file.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from wattgpu_lite.datafiles import ENV_DATA
from wattgpu_lite.errors import InvalidInputError, close_matches
from wattgpu_lite.face.cli.config_keys import NOT_CONFIG
from wattgpu_lite.face.cli.defaults import (
    BY_KEY,
    CONFIG_NAME,
    ENV_PREFIX,
    REGION,
    REGION_ENV,
    config_path,
    read_config,
)

# commands that read no defaults file: they list the catalogs
NO_CONFIG_COMMANDS = ("gpus", "llms")
SWITCHES = (argparse._StoreTrueAction, argparse._StoreFalseAction)


def flag_key(action: argparse.Action) -> str | None:
    """The config key of a flag (``--rate-qps`` -> ``rate_qps``); None for a positional, a
    hidden (deprecated) flag or one of :data:`NOT_CONFIG`."""
    long = [o for o in action.option_strings if o.startswith("--")]
    if not long or action.help == argparse.SUPPRESS:
        return None
    key = long[0][2:].replace("-", "_")
    return None if key in NOT_CONFIG else key


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each command's parser, by name."""
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def command_keys(sub: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The config keys of one command, each with its flag's action."""
    return {k: a for a in sub._actions if (k := flag_key(a)) is not None}


def known_keys(parser: argparse.ArgumentParser) -> set[str]:
    """Every key a config file may hold: any command's flag, and the five defaults."""
    keys = set(BY_KEY)
    for name, sub in subcommands(parser).items():
        if name not in NO_CONFIG_COMMANDS:
            keys |= set(command_keys(sub))
    return keys


def relax(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` (changed in place) reading only what the line gives: no defaults, nothing
    required — its namespace names the flags typed, which the file must not override."""
    for p in (parser, *subcommands(parser).values()):
        for action in p._actions:
            action.default, action.required = argparse.SUPPRESS, False
        for group in p._mutually_exclusive_groups:
            group.required = False
        p._defaults.clear()
    return parser


def _command_index(words: list[str], command: str) -> int:
    """The position of the command's name on the line (after the main parser's options)."""
    i = 0
    while i < len(words) and words[i] != command:
        i += 2 if words[i] == "--config" else 1
    return i


def _fail(where: str, key: str, problem: str) -> InvalidInputError:
    return InvalidInputError(f"{where}: {key} {problem}")


def flag_words(action: argparse.Action, key: str, value: Any, where: str) -> list[str]:
    """The command-line words a file's ``key = value`` stands for, checked against the flag's
    type and choices (one-line InvalidInputError naming the file and the key)."""
    flag = next(o for o in action.option_strings if o.startswith("--"))
    if isinstance(action, SWITCHES):
        if not isinstance(value, bool):
            raise _fail(where, key, f"must be true or false (the flag {flag}), not {value!r}")
        return [flag] if value else []
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        value = ",".join(str(v) for v in value)  # gpus = ["A30", "L4"] is --gpus A30,L4
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _fail(where, key, f"must be a value of {flag}, not {value!r}")
    if action.type is int and not isinstance(value, int):
        raise _fail(where, key, f"must be a whole number ({flag}), not {value!r}")
    if action.type is float and isinstance(value, str):
        raise _fail(where, key, f"must be a number ({flag}), not {value!r}")
    text = str(value)
    if action.choices is not None:
        typed = action.type(text) if callable(action.type) else text
        if typed not in action.choices:
            near = close_matches(text, [str(c) for c in action.choices])
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise _fail(
                where,
                key,
                f"must be one of {', '.join(map(str, action.choices))}, not {value!r}{hint}",
            )
    return [flag, text]


def _group_of(sub: argparse.ArgumentParser) -> dict[str, set[str]]:
    """dest -> the dests of its mutually exclusive group (itself included)."""
    out: dict[str, set[str]] = {}
    for group in sub._mutually_exclusive_groups:
        dests = {a.dest for a in group._group_actions}
        out |= dict.fromkeys(dests, dests)
    return out


def file_words(
    sub: argparse.ArgumentParser,
    from_file: Mapping[str, Any],
    typed: set[str],
    path: Path,
    *,
    environ: Mapping[str, str],
) -> tuple[list[str], dict[str, Any]]:
    """The words of the file's keys this command has and the line left out (not the five
    defaults nor the region: :func:`~wattgpu_lite.face.cli.defaults.apply_defaults` reads them,
    with the environment between the line and the file), and the
    ``defaults`` entry of each ``{key: {"value", "source"}}``."""
    keys, groups, where = command_keys(sub), _group_of(sub), f"config file {str(path)!r}"
    for dests in {frozenset(d) for d in groups.values()}:
        both = sorted(k for k, a in keys.items() if a.dest in dests and k in from_file)
        if len(both) > 1:
            raise InvalidInputError(f"{where}: give one of {' or '.join(both)}, not both")
    env_set = {d.key for d in BY_KEY.values() if environ.get(d.env, "").strip()}
    words, used = [], {}
    for key, value in from_file.items():
        action = keys.get(key)
        if action is None or key in BY_KEY or key == REGION:
            continue
        rivals = groups.get(action.dest, {action.dest})
        if rivals & typed or (rivals - {action.dest}) & env_set:
            continue  # the line (or the environment) decides this flag's group
        words += flag_words(action, key, value, where)
        used[key] = {"value": value, "source": f"config {path}"}
    return words, used


def with_config(
    build: Callable[[], argparse.ArgumentParser],
    words: list[str],
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> tuple[list[str], dict[str, Any], dict[str, Any]]:
    """(the line with the file's flags inserted after the command's name, their ``defaults``
    entries, the file's values) — ``build()`` makes a fresh parser to read what the line typed."""
    environ = os.environ if environ is None else environ
    if {"-h", "--help", "--version"} & set(words):
        return words, {}, {}
    parser = build()
    typed = relax(build()).parse_args(words)
    command = getattr(typed, "command", None)
    if command is None or command in NO_CONFIG_COMMANDS:
        return words, {}, {}
    sub = subcommands(parser)[command]
    if not command_keys(sub):
        return words, {}, {}
    path = config_path(typed, cwd)
    if path is None:
        return words, {}, {}
    from_file = read_config(path, known_keys(parser))
    extra, used = file_words(sub, from_file, set(vars(typed)), path, environ=environ)
    i = _command_index(words, command) + 1
    return words[:i] + extra + words[i:], used, from_file


def check_environment(environ: Mapping[str, str], config_keys: Collection[str] = ()) -> None:
    """InvalidInputError for a ``WATTGPU_LITE_*`` variable (any case) the kit does not read: a
    typo (``WATTGPU_LITE_TIN``) or a flag the environment does not set (``WATTGPU_LITE_NUM_GPUS``,
    a key of ``config_keys``: the config file sets it) would otherwise leave the default in place
    without a word. Names the variable, the closest ones the kit reads, and all of them."""
    known = (*(d.env for d in BY_KEY.values()), REGION_ENV, ENV_DATA)
    for name in sorted(environ):
        if not name.upper().startswith(ENV_PREFIX) or name in known:
            continue
        key = name[len(ENV_PREFIX) :].lower()  # matched without the prefix all of them share
        near = close_matches(key, [k[len(ENV_PREFIX) :].lower() for k in known], n=2)
        hint = f" (did you mean {' or '.join(ENV_PREFIX + k.upper() for k in near)}?)" * bool(near)
        if key in config_keys and name.upper() not in known:  # not a known name in lower case
            flag = f"--{key.replace('_', '-')}"
            hint = f" (the config file sets {flag}: {key} = ... in {CONFIG_NAME})"
        raise InvalidInputError(
            f"environment variable {name} is not one the kit reads{hint}; it reads "
            f"{', '.join(known)}. Rename or unset it (unset {name})"
        )
