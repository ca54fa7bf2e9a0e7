"""The last step of every ``build_external_*.py`` script: append the rows the table does not hold yet.

A row is known by its ``source_location`` (a file and line, or a figure and panel, in the cited
document), so rerunning a script adds nothing, and the CSV stays byte for byte what the scripts
write in the order SOURCES.md lists them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

TABLE = Path(__file__).resolve().parents[1] / "external_measurements.csv"


def read_table() -> pd.DataFrame:
    """data/external_measurements.csv as it is now."""
    return pd.read_csv(TABLE)


def append_rows(table: pd.DataFrame, new: pd.DataFrame, known: pd.Series | None = None) -> None:
    """Write ``table`` plus the rows of ``new`` whose source_location is not in ``known`` (default:
    the table's own locations), in the table's columns, and say how many were added."""
    known = table["source_location"] if known is None else known
    new = new[~new["source_location"].isin(known)]
    out = pd.concat([table, new.reindex(columns=table.columns)], ignore_index=True)
    out.to_csv(TABLE, index=False)
    print(f"{len(new)} rows added; {len(out)} in the table")
