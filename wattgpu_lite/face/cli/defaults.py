"""Defaults from a config file and the environment, and where each value came from.

A value a command uses but the user may leave out (tokens per request, grid intensity, electricity
price, PUE) is taken from, first to last:

1. its flag (``--t-in 500``);
2. the environment: ``WATTGPU_LITE_<KEY>`` (``WATTGPU_LITE_T_IN=500``);
3. the config file: ``--config FILE``, else ``wattgpu-lite.toml`` in the working directory, a TOML
   file of top-level keys (``t_in = 500``, ``grid_gco2_per_kwh = 250``, ``region = "FR"``);
4. the kit's built-in default — for the token counts, the named workload's (``--workload``;
   default ``watt-counts``, 15 and 180), filled by the command's Python call.

Every result says which values it used and where each came from (``"defaults"`` in the JSON, one
line in the text view); a malformed file or value is a one-line error naming the key.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wattgpu_lite import checks
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.face.cli.config_keys import unknown_key

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the backport, a core dependency there (pyproject.toml)
    import tomli as tomllib

CONFIG_NAME = "wattgpu-lite.toml"
ENV_PREFIX = "WATTGPU_LITE_"
BUILT_IN = "built-in"
GIVEN = "given"  # a flag's value, as a Python argument's (selection.answers)


@dataclass(frozen=True)
class Default:
    """A value a config file or the environment may set: key (the option's dest), range, unit, its
    built-in's name in :mod:`~wattgpu_lite.selection.accounting` ("": the workload's, item 4)."""

    key: str
    lo: float
    hi: float
    unit: str
    builtin: str = ""
    count: bool = False

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.key.upper()

    @property
    def kind(self) -> str:
        return "a whole number" if self.count else "a number"

    def check(self, value: Any, where: str) -> float:
        """``value`` checked (a bool is no number), or InvalidInputError naming ``where``."""
        label = f"{where}: {self.key}"
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidInputError(f"{label} must be {self.kind} ({self.unit}), not {value!r}")
        if self.count:
            return checks.check_count(self.key, value, int(self.lo), int(self.hi), label=label)
        return checks.check_number(self.key, value, self.lo, self.hi, unit=self.unit, label=label)


DEFAULTS: tuple[Default, ...] = (
    Default("t_in", 1, checks.TOKENS_MAX, "prompt tokens", count=True),
    Default("t_out", 1, checks.TOKENS_MAX, "generated tokens", count=True),
    Default("grid_gco2_per_kwh", 0, 5000, "gCO2e/kWh", builtin="DEFAULT_GRID_GCO2_PER_KWH"),
    Default("price_per_kwh", 0, 100, "per kWh", builtin="DEFAULT_PRICE_PER_KWH"),
    Default("pue", 1.0, 3.0, "facility / IT energy", builtin="DEFAULT_PUE"),
)
BY_KEY = {d.key: d for d in DEFAULTS}
REGION = "region"  # the grid region (``region = "FR"``), text: filled by fill_region
REGION_ENV = ENV_PREFIX + REGION.upper()
KEYS = (*BY_KEY, REGION)


def add_config_flag(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """``--config FILE`` on the main parser and on each command that uses a default (the command's
    wins: SUPPRESS keeps its absent flag from overwriting the main parser's value)."""
    parser.add_argument(
        "--config",
        dest="config_file",
        metavar="FILE",
        default=None if top else argparse.SUPPRESS,
        help=f"TOML file of defaults, top-level keys only, one per flag (its name, - as _: "
        f'region = "FR", num_gpus = 2; default: ./{CONFIG_NAME} if present); precedence: flag > '
        f"{ENV_PREFIX}<KEY> environment variable ({', '.join(KEYS)}) > file > built-in",
    )


def read_config(path: Path, known: Collection[str] = ()) -> dict[str, Any]:
    """The keys of a defaults file: the defaults checked, the other ``known`` keys (every command's
    flags) as written; InvalidInputError naming the key (or the line of a file not TOML)."""
    where = f"config file {str(path)!r}"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InvalidInputError(f"{where}: cannot be read ({err})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InvalidInputError(f"{where}: {_toml_error(err, text)}") from None
    out: dict[str, Any] = {}
    keys = [*BY_KEY, *sorted(set(known) - set(BY_KEY))]
    for key, value in data.items():
        if key == REGION:
            out[key] = check_region_text(value, f"{where}: {REGION}")
        elif key in keys:
            out[key] = BY_KEY[key].check(value, where) if key in BY_KEY else value
        else:
            raise unknown_key(where, key, value, keys)
    if REGION in out and "grid_gco2_per_kwh" in out:
        raise InvalidInputError(
            f"{where}: sets both region and grid_gco2_per_kwh; keep one (a region names its grid)"
        )
    return out


def check_region_text(value: Any, label: str) -> str:
    """A grid region of the kit's tables (``"FR"``, ``"Japan"``), or InvalidInputError naming it."""
    from wattgpu_lite.selection.accounting import grid_region

    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(
            f'{label} must be a grid region in quotes, e.g. region = "FR", not {value!r}'
        )
    try:
        grid_region(value)
    except InvalidInputError as err:
        raise InvalidInputError(f"{label}: {err}") from None
    return value.strip()


def fill_region(
    args: argparse.Namespace, environ: Mapping[str, str], from_file: dict, path: Path | None
) -> dict[str, Any] | None:
    """Set ``args.region`` from ``WATTGPU_LITE_REGION`` or the file's ``region`` when the command
    has ``--region`` and neither it nor ``--grid-gco2-per-kwh`` was given (a grid number from the
    environment beats a region from the file); its ``{"value", "source"}``, None if not filled."""
    grid = getattr(args, "grid_gco2_per_kwh", None)
    if getattr(args, REGION, "") is not None or grid is not None:
        return None  # no such option, or a flag decides
    grid_env = BY_KEY["grid_gco2_per_kwh"]
    if environ.get(REGION_ENV, "").strip():
        if _from_env(grid_env, environ) is not None:  # one was dropped: refused, as in a file
            raise InvalidInputError(f"{REGION_ENV} and {grid_env.env} are both set: unset one")
        args.region = check_region_text(environ[REGION_ENV], f"environment variable {REGION_ENV}")
        return {"value": args.region, "source": f"environment {REGION_ENV}"}
    if REGION not in from_file or _from_env(grid_env, environ) is not None:
        return None
    args.region = from_file[REGION]
    return {"value": args.region, "source": f"config {path}"}


def _toml_error(err: Exception, text: str) -> str:
    """A TOML syntax error in one line, with the offending line (which names its key)."""
    message = " ".join(str(err).split())
    in_message = re.findall(r"line (\d+)", message)[-1:]  # tomli < 2.1: in the message only
    line_no = getattr(err, "lineno", None) or (int(in_message[0]) if in_message else None)
    lines = text.splitlines()
    if line_no and 0 < line_no <= len(lines):
        return f"not valid TOML at line {line_no} ({message}): {lines[line_no - 1].strip()[:120]}"
    return f"not valid TOML ({message})"


def config_path(args: argparse.Namespace, cwd: Path | None = None) -> Path | None:
    """``--config FILE`` (which must exist), else ``./wattgpu-lite.toml`` if present, else None."""
    given = getattr(args, "config_file", None)
    if given is not None and not Path(given).is_file():
        fix = f"pass the path of a TOML file of defaults (like {CONFIG_NAME})"
        raise InvalidInputError(f"--config {given!r}: no such file; {fix}")
    if given is not None:
        return Path(given)
    return local if (local := (cwd or Path.cwd()) / CONFIG_NAME).is_file() else None


def _from_env(default: Default, environ: Mapping[str, str]) -> float | None:
    raw = environ.get(default.env)
    if raw is None or not raw.strip():
        return None
    try:
        value: float = int(raw) if default.count else float(raw)
    except ValueError:
        must = f"{default.key} must be {default.kind} ({default.unit})"
        raise InvalidInputError(f"environment variable {default.env}={raw!r}: {must}") from None
    return default.check(value, f"environment variable {default.env}")


def apply_defaults(
    args: argparse.Namespace,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    from_file: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Fill every option of :data:`DEFAULTS` the command has and the user left out (flag > env >
    file > built-in): ``{key: {"value": ..., "source": ...}}``, "given" for a flag. ``from_file``:
    the file already read (:func:`~wattgpu_lite.face.cli.config.with_config`), else read here."""
    environ = os.environ if environ is None else environ
    mine = [d for d in DEFAULTS if hasattr(args, d.key)]
    if not mine:
        return {}
    path = config_path(args, cwd)
    if from_file is None:
        from_file = read_config(path, BY_KEY) if path is not None else {}
    filled = fill_region(args, environ, from_file, path)
    used = {} if filled is None else {REGION: filled}
    region = getattr(args, REGION, None)
    for d in mine:
        given = getattr(args, d.key)
        if d.key == "grid_gco2_per_kwh" and given is None and region is not None:
            used[d.key] = {"value": None, "source": f"region {region}"}  # the region decides
            continue
        if given is not None:
            value, source = given, GIVEN
        elif (env := _from_env(d, environ)) is not None:
            value, source = env, f"environment {d.env}"
        elif d.key in from_file:
            value, source = from_file[d.key], f"config {path}"
        elif not d.builtin:
            continue  # left to the command: the workload's count (specs.workload.request_tokens)
        else:
            accounting = importlib.import_module("wattgpu_lite.selection.accounting")
            value, source = getattr(accounting, d.builtin), BUILT_IN
        setattr(args, d.key, value)
        used[d.key] = {"value": value, "source": source}
    return used


def defaults_line(used: Mapping[str, Mapping[str, Any]]) -> str:
    """The text view's line: ``defaults: t_in 15 (built-in), t_out 500 (--t-out)``."""
    return "defaults: " + ", ".join(_shown(k, v["value"], v["source"]) for k, v in used.items())


def _shown(key: str, value: Any, source: str) -> str:
    """One default in the text view: its value (a number at ``:g``) and source."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    shown = f"{value:g}" if number else value
    return f"{key} from {source}" if value is None else f"{key} {shown} ({source})"
