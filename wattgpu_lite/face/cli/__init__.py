"""Shared pieces of the CLI: the output flags and how a result is delivered, --gpu/--llm resolution."""

from __future__ import annotations

import argparse
from pathlib import Path

from wattgpu_lite.datafiles import is_file
from wattgpu_lite.face.cli.output import Result, json_text
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT


def add_token_flags(parser: argparse.ArgumentParser) -> None:
    """``--t-in`` and ``--t-out``, defaulting to the kit's one request (specs.workload)."""
    parser.add_argument("--t-in", type=int, default=DEFAULT_T_IN,
                        help=f"prompt tokens per request (default {DEFAULT_T_IN})")  # fmt: skip
    parser.add_argument("--t-out", type=int, default=DEFAULT_T_OUT,
                        help=f"generated tokens per request (default {DEFAULT_T_OUT})")  # fmt: skip


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Every command takes ``--json`` for machine-readable output."""
    parser.add_argument("--json", action="store_true",
                        help='print strict JSON, an object {"schema_version": 1, "kind": ...} '
                             "(no NaN/Infinity; unknown = null), instead of the text view")  # fmt: skip


def deliver(result: Result, args: argparse.Namespace) -> int:
    """Print ``result`` as JSON (``--json``) or as its text view; exit code 0."""
    print(json_text(result.doc) if args.json else result.text)
    return 0


def resolve_gpu(text: str):
    """A catalog name, or a path to a JSON spec file -> GPU (never an OSError: see is_file)."""
    from wattgpu_lite.specs.resolve import resolve_gpu as resolve

    return resolve(Path(text) if is_file(text) else text)


def resolve_llm(text: str):
    """A catalog name, or a path to a Hugging Face config.json -> LLM."""
    from wattgpu_lite.specs.resolve import resolve_llm as resolve

    return resolve(Path(text) if is_file(text) else text)
