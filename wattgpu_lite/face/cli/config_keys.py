"""The refusal of a config-file key the CLI does not know, worded for what the file takes.

The defaults file holds top-level keys only, one per flag (README, ``--config``'s help,
:mod:`~wattgpu_lite.face.cli.defaults`): a TOML section (``[predict]``) or a dotted key
(``predict.rate_qps = 2``) reads as one unknown key holding a table, which the message names as a
section, with the keys to move to the top, instead of as a misspelt flag; a flag of
:data:`NOT_CONFIG` (``json = true``) is said to belong on the command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wattgpu_lite.errors import InvalidInputError, close_matches

# flags no config file sets: what one run prints or saves, and the file itself
NOT_CONFIG = ("help", "version", "debug", "config", "json", "output", "quiet", "wide", "plot")


def unknown_key(where: str, key: str, value: Any, keys: Sequence[str]) -> InvalidInputError:
    """The error for ``key = value`` of the file ``where``, none of ``keys``: a section's
    (``value`` a table) says the file takes no sections; any other's, the close matches."""
    known = f"known keys (the flags' names, - as _): {', '.join(keys)}"
    if isinstance(value, dict):
        inner = ", ".join(f"{k} = {v!r}" for k, v in value.items())[:200] or "its keys"
        return InvalidInputError(
            f"{where}: [{key}] is a section, and the file takes top-level keys only, one per "
            f"flag, each for every command that has the flag: write {inner} above any [section] "
            f"line and drop [{key}]; {known}"
        )
    if key.replace("-", "_") in NOT_CONFIG:
        flag = f"--{key.replace('_', '-')}"
        return InvalidInputError(
            f"{where}: {key} is not a key of the file: {flag} chooses what one run prints or "
            f"saves (or names the file), so it goes on the command line; {known}"
        )
    near = close_matches(key.replace("-", "_"), keys)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    return InvalidInputError(f"{where}: unknown key {key!r}{hint}; {known}")
