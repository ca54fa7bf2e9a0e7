"""Shared pieces of the CLI: the output flags and how a result is delivered, --gpu/--llm resolution."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping

from wattgpu_lite.face.cli.defaults import CONFIG_NAME, add_config_flag, defaults_line
from wattgpu_lite.face.cli.output import (
    FILE_TYPES,
    TEXT_WIDTH,
    Result,
    clean,
    json_text,
    wrap_line,
    write_output,
)
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT, DEFAULT_WORKLOAD

LLM_HELP = "catalog name (see `wattgpu-lite llms`), checkpoint alias (`llms --aliases`) or config.json path"
GPU_HELP = "catalog name (see `wattgpu-lite gpus`) or path to a GPU spec .json"


def command(
    sub: argparse._SubParsersAction, name: str, summary: str, example: str
) -> argparse.ArgumentParser:
    """A subcommand whose ``--help`` shows its summary, its defaults and one example."""
    return sub.add_parser(
        name,
        help=summary,
        description=summary,
        epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,  # a mistyped long option is an error, never another option
    )


def add_token_flags(parser: argparse.ArgumentParser) -> None:
    """``--t-in``, ``--t-out`` and ``--workload``: the counts given (flag, environment or config
    file, :mod:`~wattgpu_lite.face.cli.defaults`), the rest the named workload's (default
    watt-counts, the kit's one request: specs.workload); and ``--config FILE``, the file of
    those defaults."""
    parser.add_argument(
        "--t-in",
        type=int,
        default=None,
        help=f"prompt tokens per request (default: the workload's, "
        f"{DEFAULT_T_IN} for {DEFAULT_WORKLOAD}); WATTGPU_LITE_T_IN or t_in in "
        f"{CONFIG_NAME} replace the default",
    )
    parser.add_argument(
        "--t-out",
        type=int,
        default=None,
        help=f"generated tokens per request (default: the workload's, "
        f"{DEFAULT_T_OUT} for {DEFAULT_WORKLOAD}); WATTGPU_LITE_T_OUT or t_out "
        f"in {CONFIG_NAME} replace the default",
    )
    parser.add_argument(
        "--workload",
        default=None,
        metavar="NAME",
        help=f"named request workload of data/workloads.csv giving the token "
        f"counts not given ({', '.join(workload_names())}; default "
        f"{DEFAULT_WORKLOAD}, the Watt Counts runs' mean request)",
    )
    add_config_flag(parser)


def workload_names() -> list[str]:
    """The names of data/workloads.csv, in its order."""
    from wattgpu_lite.specs.workload import workloads

    return workloads()["name"].tolist()


def add_output_flags(parser: argparse.ArgumentParser) -> None:
    """Every command takes ``--json``, ``--output FILE`` and ``--quiet``."""
    parser.add_argument(
        "--json",
        action="store_true",
        help='print strict JSON, an object {"schema_version": 1, "kind": ...} '
        "(no NaN/Infinity; unknown = null), instead of the text view",
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        help=f"also save the result to FILE, typed by its extension: "
        f"{', '.join(FILE_TYPES)} (.parquet needs pyarrow)",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no text view, no 'saved to' line, no progress bar (errors still go to stderr); "
        "with --json the JSON is still printed: it is the output",
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        help=f"text view: every column of its tables (default: the columns that "
        f"fit {TEXT_WIDTH} characters, and a line naming the rest)",
    )


def deliver(result: Result, args: argparse.Namespace) -> int:
    """Save ``result`` to ``--output`` if given; print it as JSON (``--json``: the output, even
    with ``--quiet``) or, unless ``--quiet``, as its text view, and unless ``--quiet`` say on
    stderr where it was saved. Exit code 0. The defaults the
    command used (``args.defaults_used``, each value and its source) go into the document as
    ``"defaults"`` and end the text view in one line."""
    used = getattr(args, "defaults_used", None) or {}
    if "defaults" in result.doc:  # a result that carries its own (cli_defaults)
        used = result.doc["defaults"]
    result = Result(
        {**result.doc, "defaults": clean(used)},
        result.text + ("\n" + _fold(defaults_line(used), args) if used and result.text else ""),
        result.table,
    )
    if args.output:
        write_output(result, args.output)
    if args.json or not args.quiet:
        print(json_text(result.doc) if args.json else result.text)
    if args.output and not args.quiet:
        print(f"saved to {args.output}", file=sys.stderr)
    return 0


def _fold(line: str, args: argparse.Namespace) -> str:
    return line if getattr(args, "wide", False) else wrap_line(line)


def resolve_gpu(text: str):
    """A catalog name, or a path to a JSON spec file -> GPU. The text goes on as typed, so a
    catalog name wins over a same-named file (specs.resolve; ``./NAME`` is the file)."""
    from wattgpu_lite.specs.resolve import resolve_gpu as resolve

    return resolve(text)


def resolve_llm(text: str):
    """A catalog name, or a path to a Hugging Face config.json -> LLM (as resolve_gpu)."""
    from wattgpu_lite.specs.resolve import resolve_llm as resolve

    return resolve(text)


LOAD_SCENARIOS = ("offline", "server_low", "server_high")  # the Watt Counts loads
DEFAULT_LEVEL = 0.8  # wl.predict's level (hybrid.predict.api.DEFAULT_LEVEL; a test holds it)


def add_load_flags(p: argparse.ArgumentParser, batch_note: str = "") -> None:
    """One load, required: ``--rate-qps``, ``--batch`` or ``--scenario`` (``predict``,
    ``explain`` and ``rank``: the same flags, help and checks)."""
    load = p.add_mutually_exclusive_group(required=True)
    load.add_argument(
        "--rate-qps", type=float, help="Poisson arrival rate, requests per second (1e-6 to 1000)"
    )
    load.add_argument(
        "--batch", type=float, help=f"sequences decoded together, 1 to 4096 (offline{batch_note})"
    )
    load.add_argument(
        "--scenario", choices=LOAD_SCENARIOS, help="the load of a Watt Counts scenario"
    )


def add_level_flag(p: argparse.ArgumentParser, note: str = "") -> None:
    """``--level``: the intervals' coverage (default 0.8, as wl.predict)."""
    p.add_argument(
        "--level",
        type=float,
        default=DEFAULT_LEVEL,
        help=f"interval coverage in (0.5, 0.999){note} (default %(default)s)",
    )


def add_name_flag(p: argparse.ArgumentParser) -> None:
    """``--name``: what to call a model you bring (``--llm path/to/config.json``)."""
    p.add_argument(
        "--name",
        default=None,
        help="what to call the model when --llm is a config.json (default: its Hub "
        "id from _name_or_path when it reads as one, owner/name, else "
        "'custom model')",
    )


def add_llm_flag(p: argparse.ArgumentParser) -> None:
    """``--llm`` (required) and ``--name``."""
    p.add_argument("--llm", required=True, help=LLM_HELP)
    add_name_flag(p)


def add_gpu_flag(p: argparse.ArgumentParser) -> None:
    """``--gpu``, required wherever a command answers for one GPU (``estimate``, ``predict``,
    ``explain``; ``rank`` takes ``--gpus``)."""
    p.add_argument("--gpu", required=True, help=GPU_HELP)


def add_request_flags(p: argparse.ArgumentParser) -> None:
    """What ``predict`` and ``explain`` ask: --llm (and --name), --gpu, one load, the tokens,
    the level."""
    add_llm_flag(p)
    add_gpu_flag(p)
    add_load_flags(p)
    add_token_flags(p)
    add_level_flag(p)


def cli_defaults(python: Mapping, args: argparse.Namespace) -> dict:
    """A result's ``defaults`` as the CLI reports them: the Python call's (value and source),
    the source replaced by the environment variable or config file that gave the value, and the
    flags a config file gave (:mod:`~wattgpu_lite.face.cli.defaults`); a default the Python call
    did not use (the token counts of a Watt Counts source) is left out."""
    from wattgpu_lite.face.cli.defaults import BY_KEY

    used = getattr(args, "defaults_used", None) or {}
    out = {}
    for key, entry in python.items():
        source = used.get(key, {}).get("source", "")
        out[key] = dict(entry)
        if source.startswith(("environment ", "config ")):
            out[key]["source"] = source
    return out | {k: v for k, v in used.items() if k not in out and k not in BY_KEY}
