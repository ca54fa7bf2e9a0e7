"""The command line: ``python -m wattgpu_lite COMMAND [--json]``.

Each command lives in ``wattgpu_lite/face/cli/<command>.py`` and exposes ``add_parser(subparsers)``, which
registers its arguments and sets ``func`` (``args -> int`` exit code). Every failure is one line on
stderr (control characters escaped): a mistake the kit recognises (a :class:`WattGPUError`, worded for the shell by
:mod:`~wattgpu_lite.face.cli.messages`, or a bad option) exits with 2, anything
unexpected with 1 (``--debug`` shows its traceback); a missing optional extra is named (exit 2). The options of
a request (its load, tokens, level, formats, engine: ``--scenario`` and ``--weights`` values too)
are checked by the library's one check of a request (:mod:`wattgpu_lite.energy.request`), so a
mistake reads as in Python; the others (the SLA, the wall's inputs, files) here, before any model
loads, by the same checks the library uses (:mod:`wattgpu_lite.checks`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
import warnings
from contextlib import contextmanager
from importlib import metadata

from wattgpu_lite import checks
from wattgpu_lite.errors import InvalidInputError, WattGPUError, missing_extra
from wattgpu_lite.face.cli import text
from wattgpu_lite.face.cli.config import check_environment, known_keys, with_config
from wattgpu_lite.face.cli.defaults import add_config_flag, apply_defaults
from wattgpu_lite.face.cli.messages import for_shell, unrecognized
from wattgpu_lite.face.cli.output import check_output
from wattgpu_lite.face.cli.plot import check_plot

# one module per command group, in the order `--help` lists them
COMMAND_MODULES = ("catalogs", "rank", "compare", "estimate", "predict", "explain", "evaluate")
# option dest -> the library's check of it (so `--pue 9` fails before any model loads); a
# request's options are the library's to check (energy.request), with its messages
OPTION_CHECKS = {
    "itl_sla_ms": checks.check_itl_sla_ms,
    "grid_gco2_per_kwh": lambda v, f: checks.check_number(f, v, 0, 5000, unit="gCO2e/kWh"),
    "price_per_kwh": lambda v, f: checks.check_number(f, v, 0, 100, unit="per kWh"),
    "output": lambda v, f: check_output(v),
    "plot": lambda v, f: check_plot(v),
    "pue": lambda v, f: checks.check_number(f, v, 1.0, 3.0, unit="(facility / IT energy)"),
    "region": lambda v, f: check_region(v, f),
    "top": lambda v, f: checks.check_count(
        f, v, 1, 100_000, fix="show 1 plan or more, e.g. --top 10"
    ),
    "workload": lambda v, f: check_workload(v, f),
}
EXIT_USER, EXIT_BUG = 2, 1
# options of a request whose choices (--help lists them) the library checks: its message, not argparse's
REQUEST_CHOICES = ("scenario", "weights")


def check_region(region: str, flag: str) -> str:
    """``region`` if data/grid_intensity.csv has it, else InvalidInputError naming the flag and
    the close matches."""
    from wattgpu_lite.selection.accounting import grid_region

    try:
        grid_region(region)
    except InvalidInputError as err:
        raise InvalidInputError(f"{flag}: {err}") from None
    return region


def check_workload(name: str, flag: str) -> str:
    """``name`` if data/workloads.csv has it, else UnknownWorkloadError naming the flag and the
    close matches."""
    from wattgpu_lite.specs.workload import UnknownWorkloadError, workload

    try:
        workload(name)
    except UnknownWorkloadError as err:
        raise InvalidInputError(f"{flag}: {err}") from None
    return name


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad option is one line on stderr (exit 2), not usage + error, and no long
    option is read from a prefix of it (``allow_abbrev=False``, for every subcommand's parser too:
    they are of this class): ``--model`` is an unknown option with its close match, never
    ``--model-dir``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **{"allow_abbrev": False, **kwargs})

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        """argparse's, but words no option takes are refused by the command's own parser (its
        ``--help`` named), with the close matches of a mistyped long option."""
        known, extra = self.parse_known_args(args, namespace)
        if extra:
            commands = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
            choices = commands[0].choices if commands else {}
            sub = choices.get(getattr(known, "command", None), self)
            sub.error(unrecognized(extra, [o for a in sub._actions for o in a.option_strings]))
        return known

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_USER, f"error: {message} (see `{self.prog} --help`)\n")

    def _check_value(self, action: argparse.Action, value) -> None:
        """argparse's check of a value against the option's choices, but for a request's
        options (:data:`REQUEST_CHOICES`), whose choices the library checks, with its message."""
        if action.dest not in REQUEST_CHOICES:
            super()._check_value(action, value)


def version_text() -> str:
    """The kit's version and the versions that decide its numbers (for bug reports)."""
    kit = sys.modules["wattgpu_lite"].__version__  # the parent package is imported before us
    try:
        xgb = metadata.version("xgboost")
    except metadata.PackageNotFoundError:
        xgb = metadata.version("xgboost-cpu") if _has("xgboost-cpu") else "not installed"
    return f"wattgpu_lite {kit} (xgboost {xgb}, Python {sys.version.split()[0]})"


def _has(dist: str) -> bool:
    try:
        metadata.version(dist)
    except metadata.PackageNotFoundError:
        return False
    return True


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="python -m wattgpu_lite",
        description="Energy and latency of LLM inference on GPUs (WattGPU + Tokens-to-Watt-hours).",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=version_text(),
        help="print the kit's version (and xgboost's) and exit",
    )
    parser.add_argument(
        "--debug", action="store_true", help="on an unexpected error, print the full traceback"
    )
    add_config_flag(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"wattgpu_lite.face.cli.{name}").add_parser(sub)
    return parser


def check_options(args: argparse.Namespace) -> None:
    """Run OPTION_CHECKS on the options a command has and the user gave (named as --flags)."""
    for dest, check in OPTION_CHECKS.items():
        value = getattr(args, dest, None)
        if value is not None:
            check(value, f"{dest} (--{dest.replace('_', '-')})")


@contextmanager
def notes_on_stderr():
    """An AmbiguousNameWarning (a catalog name that is also a file or folder here; the catalog
    entry was used) becomes one ``note:`` line on stderr, even with --quiet; other warnings go
    on as Python shows them."""
    from wattgpu_lite.specs.resolve import AmbiguousNameWarning

    with warnings.catch_warnings():
        warnings.simplefilter("always", AmbiguousNameWarning)
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, AmbiguousNameWarning):
                print(f"note: {text.escape_controls(str(message))}", file=sys.stderr)
            else:
                shown(message, category, filename, lineno, file=file, line=line)

        warnings.showwarning = show
        yield


def main(argv: list[str] | None = None) -> int:
    """Run one command; its text goes out in ASCII where the stream's encoding lacks a character
    (:func:`text.ascii_fallback`), never as a UnicodeEncodeError."""
    with text.ascii_fallback(sys.stdout, sys.stderr):
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in words  # accepted anywhere on the line, not only before the command
    try:  # building the parser reads data files (the defaults --help shows): they may be refused
        parser = build_parser()
    except WattGPUError as err:
        return user_error(err)
    words = [w for w in words if w != "--debug"]
    try:  # a config file's flags go on the line after the command's name (face.cli.config)
        words, from_config, from_file = with_config(build_parser, words)
    except WattGPUError as err:
        return user_error(err)
    args = parser.parse_args(words)
    try:  # flag > environment > config file > built-in
        check_environment(os.environ, known_keys(parser))  # after --help: it needs none
        args.defaults_used = apply_defaults(args, from_file=from_file or None) | from_config
        check_options(args)
        with notes_on_stderr():
            return int(args.func(args) or 0)
    except WattGPUError as err:
        return user_error(err)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`... | head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as err:  # the last resort: a bug, never a traceback for a user
        extra = missing_extra(f"`{args.command}`", err) if isinstance(err, ImportError) else None
        if extra is not None:  # a module of an optional extra the command needs
            print(f"error: {extra}", file=sys.stderr)
            return EXIT_USER
        if debug:
            traceback.print_exc()
        where = "" if debug else " (run again with --debug for the traceback)"
        print(
            f"internal error: {type(err).__name__}: {_one_line(err)}{where}; please report "
            "it with the command you ran",
            file=sys.stderr,
        )
        return EXIT_BUG


def user_error(err: WattGPUError) -> int:
    """Print a mistake the kit recognises as one ``error:`` line on stderr, worded for the shell
    (:func:`~wattgpu_lite.face.cli.messages.for_shell`); return the exit code 2."""
    print(f"error: {for_shell(_one_line(err))}", file=sys.stderr)
    return EXIT_USER


def _one_line(err: BaseException) -> str:
    return text.escape_controls(" ".join(str(err).split())[:2000])


if __name__ == "__main__":
    sys.exit(main())
