"""Shared pieces of the CLI: output as a readable table or JSON, and --gpu/--llm resolution."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Every command takes ``--json`` for machine-readable output."""
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _clean(value: Any) -> Any:
    """JSON-safe scalars: NaN becomes null, numpy scalars become Python ones."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def emit(data: pd.DataFrame | dict[str, Any], as_json: bool) -> None:
    """Print a DataFrame or a dict as JSON (records / object) or as an aligned text table."""
    if isinstance(data, pd.DataFrame):
        if as_json:
            rows = [{k: _clean(v) for k, v in r.items()} for r in data.to_dict(orient="records")]
            print(json.dumps(rows, indent=2))
        else:
            with pd.option_context("display.max_rows", None, "display.width", 200):
                print(data.to_string(index=False))
        return
    if as_json:
        print(json.dumps({k: _clean(v) for k, v in data.items()}, indent=2))
    else:
        width = max(len(k) for k in data)
        for key, value in data.items():
            print(f"{key:<{width}}  {value}")


def resolve_gpu(text: str):
    """A catalog name, or a path to a JSON spec file -> GPU."""
    from wattgpu_lite.specs.resolve import resolve_gpu as resolve

    return resolve(Path(text) if Path(text).is_file() else text)


def resolve_llm(text: str):
    """A catalog name, or a path to a Hugging Face config.json -> LLM."""
    from wattgpu_lite.specs.resolve import resolve_llm as resolve

    return resolve(Path(text) if Path(text).is_file() else text)
