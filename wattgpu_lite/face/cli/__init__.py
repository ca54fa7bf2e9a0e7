"""Shared pieces of the CLI: output as a readable table or JSON, and --gpu/--llm resolution."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from wattgpu_lite.datafiles import is_file
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.face.cli.text import escape_controls, escape_frame
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
                        help="print strict JSON (no NaN/Infinity; unknown = null) instead of a table")  # fmt: skip


def _clean(value: Any, key: str = "") -> Any:
    """JSON-safe values: NaN (unknown) becomes null, numpy scalars Python ones; an infinite
    number is an InvalidInputError naming the field (never printed as invalid JSON)."""
    if isinstance(value, dict):
        return {k: _clean(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v, key) for v in value]
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, float) and math.isinf(value):
        raise InvalidInputError(
            f"result field {key!r} is {value}: the input lies outside what the model can answer "
            "(a rate, level or token count at an extreme); pass values closer to the defaults"
        )
    return value


def emit(data: pd.DataFrame | dict[str, Any], as_json: bool) -> None:
    """Print a DataFrame or a dict as strict JSON (records / object; ``allow_nan=False``) or as
    an aligned text table. Infinite numbers are refused in both forms (see :func:`_clean`)."""
    if isinstance(data, pd.DataFrame):
        rows = [_clean(r) for r in data.to_dict(orient="records")]
        if as_json:
            print(json.dumps(rows, indent=2, allow_nan=False))
        else:
            with pd.option_context("display.max_rows", None, "display.width", 200):
                print(escape_frame(data).to_string(index=False))
        return
    clean = _clean(dict(data))
    if as_json:
        print(json.dumps(clean, indent=2, allow_nan=False))
    else:
        shown = {escape_controls(str(k)): escape_controls(str(v)) for k, v in data.items()}
        width = max(len(k) for k in shown)
        for key, value in shown.items():
            print(f"{key:<{width}}  {value}")


def resolve_gpu(text: str):
    """A catalog name, or a path to a JSON spec file -> GPU (never an OSError: see is_file)."""
    from wattgpu_lite.specs.resolve import resolve_gpu as resolve

    return resolve(Path(text) if is_file(text) else text)


def resolve_llm(text: str):
    """A catalog name, or a path to a Hugging Face config.json -> LLM."""
    from wattgpu_lite.specs.resolve import resolve_llm as resolve

    return resolve(Path(text) if is_file(text) else text)
