"""Checkpoint ids that share an architecture of data/llms.csv: data/llm_aliases.csv.

People serve ``Qwen/Qwen3-235B-A22B-Instruct-2507`` or ``meta-llama/Llama-3.1-70B-Instruct``; the
catalog holds one row per *architecture* (``Qwen/Qwen3-235B-A22B``, ``meta-llama/Llama-3.1-70B``).
An alias row names the checkpoint, the architecture it shares, the weight format its name implies
(``-FP8`` -> fp8, which must be the architecture row's own format), its context length when its
model card gives another one (empty = the architecture's) and the source that says they share it.

    wl.llm("Qwen/Qwen3-235B-A22B-Instruct-2507")   # -> LLM named for the checkpoint,
                                                    #    .architecture = "Qwen/Qwen3-235B-A22B"

The resolved LLM carries the checkpoint id as ``name`` (echoed as ``llm`` in every result) and the
architecture row's name as ``architecture`` (echoed as ``llm_architecture``); every number is the
architecture row's, but ``context_length`` where the alias row gives one. ``in_wattgpu`` is False:
that checkpoint was not measured by Watt Counts even when its architecture was.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from wattgpu_lite.datafiles import read_csv, restore_hint
from wattgpu_lite.errors import DataFileError
from wattgpu_lite.specs.llm import LLM

FILE = "llm_aliases.csv"
COLUMNS = ["alias", "architecture", "weight_format", "context_length", "source"]


@dataclass(frozen=True)
class Alias:
    """One row of llm_aliases.csv: a checkpoint id and the catalog architecture it shares."""

    alias: str
    architecture: str
    weight_format: str
    context_length: int | None  # None: the architecture's own
    source: str


def read_aliases(folder: Path) -> tuple[Alias, ...]:
    """The rows of ``folder``/llm_aliases.csv with exactly COLUMNS and unique, filled ids;
    DataFileError naming the file, the column and the fix."""
    table = read_csv(folder / FILE, keep_default_na=False, na_values=[""])
    fix = restore_hint(FILE)
    if list(table.columns) != COLUMNS:
        raise DataFileError(f"{FILE}: columns {list(table.columns)}; expected {COLUMNS}; {fix}")
    for col in ("alias", "architecture", "weight_format", "source"):
        if table[col].isna().any():
            raise DataFileError(f"{FILE}: column {col!r} has an empty cell; {fix}")
    if not table["alias"].str.lower().is_unique:
        raise DataFileError(f"{FILE}: column 'alias' has duplicates; {fix}")
    return tuple(_alias(row, fix) for row in table.to_dict(orient="records"))


def _alias(row: dict, fix: str) -> Alias:
    ctx = row["context_length"]
    if not (pd.isna(ctx) or (float(ctx).is_integer() and float(ctx) > 0)):
        raise DataFileError(
            f"{FILE}: row {row['alias']!r}, column 'context_length' must be a positive "
            f"integer or empty, got {ctx!r}; {fix}"
        )
    return Alias(
        str(row["alias"]).strip(),
        str(row["architecture"]).strip(),
        str(row["weight_format"]).strip(),
        None if pd.isna(ctx) else int(ctx),
        source=str(row["source"]),
    )


def resolve_alias(entry: Alias, arch: LLM) -> LLM:
    """The LLM of checkpoint ``entry.alias``: the architecture ``arch`` under the checkpoint's
    name, with its own context length; DataFileError if the name implies another weight format."""
    if entry.weight_format != arch.weight_format:
        raise DataFileError(
            f"{FILE}: row {entry.alias!r}, column 'weight_format' is {entry.weight_format!r} but "
            f"the architecture {arch.name!r} stores {arch.weight_format!r}; point the alias at an "
            f"architecture row of that format. {restore_hint(FILE)}"
        )
    return replace(
        arch,
        name=entry.alias,
        architecture=arch.name,
        in_wattgpu=False,
        context_length=entry.context_length or arch.context_length,
        source=f"alias of {arch.name} ({entry.source}); architecture: {arch.source}",
    )


def aliases_frame(entries: tuple[Alias, ...]) -> pd.DataFrame:
    """The alias table as a DataFrame (columns = COLUMNS)."""
    frame = pd.DataFrame([e.__dict__ for e in entries], columns=COLUMNS)
    return frame.astype({"context_length": "Int64"})  # empty = the architecture's
