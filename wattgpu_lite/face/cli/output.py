"""One output convention for every command: a JSON document, a text view, and the same rows in a file.

Every ``--json`` is an object ``{"schema_version": 1, "kind": "<command>", ...}``; a table is under
``"rows"``. Every text table fits :data:`TEXT_WIDTH` columns: the columns that do not fit are left
out from the right, a line names them, and ``--wide`` shows them all. Numbers are rounded to :data:`JSON_DIGITS` significant figures in JSON and files and to
:data:`TEXT_DIGITS` in the text views; counts (replicas, GPUs, tokens, …) are integers; an unknown
value (NaN) is ``null``; an infinite one is refused (never invalid JSON).
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.face.cli.text import escape_controls, escape_frame
from wattgpu_lite.jsonio import (  # noqa: F401  (re-exported: the CLI's names for them)
    COUNT_KEYS,
    COUNT_PREFIXES,
    JSON_DIGITS,
    dumps,
    is_count,
    round_sig,
    rounded,
)

SCHEMA_VERSION = 1
TEXT_DIGITS = 4  # significant figures of the text views (as `predict` has always printed)
TEXT_WIDTH = 100  # columns a text table fits unless --wide


def clean(value: Any, key: str = "", digits: int = JSON_DIGITS) -> Any:
    """The kit's one JSON conversion (:func:`wattgpu_lite.jsonio.rounded`: NaN (unknown) becomes
    null, numpy scalars Python ones, an infinite number an InvalidInputError naming the field;
    floats at ``digits`` significant figures, an integral count an int)."""
    return rounded(value, key, digits)


def document(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """The envelope: ``schema_version`` and ``kind`` first, then ``body`` (cleaned)."""
    rest = {k: v for k, v in body.items() if k not in ("schema_version", "kind")}
    return {"schema_version": SCHEMA_VERSION, "kind": kind, **clean(rest)}


def records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """A DataFrame's rows as cleaned dicts."""
    return [clean(r) for r in table.to_dict(orient="records")]


def json_text(doc: dict[str, Any]) -> str:
    """Strict JSON (``allow_nan=False``), indented (:func:`wattgpu_lite.jsonio.dumps`)."""
    return dumps(doc, indent=2)


def text_table(table: pd.DataFrame, wide: bool = False, width: int = TEXT_WIDTH) -> str:
    """A DataFrame as an aligned text table, floats at TEXT_DIGITS significant figures, control
    characters in names escaped (a name with a newline adds no line), within ``width`` columns
    unless ``wide`` (:func:`fit_width`)."""
    shown = escape_frame(table)
    for col in shown.columns[shown.dtypes == "float64"]:
        shown[col] = [_text_number(v) for v in shown[col]]
    return fit_width(shown, wide, width)


def fit_width(
    shown: pd.DataFrame,
    wide: bool = False,
    width: int = TEXT_WIDTH,
    drop_first: tuple[str, ...] = (),
    keep: tuple[str, ...] = (),
) -> str:
    """An already formatted DataFrame as text: all of it if ``wide``, else without the columns that
    do not fit ``width`` — those of ``drop_first`` first (in that order), then from the right; the
    first column and those of ``keep`` always stay, however wide they are — and a line naming the
    ones left out (in table order)."""
    order = list(shown.columns)
    expendable = [c for c in drop_first if c in order and c not in keep]
    expendable += [
        c for c in reversed(order) if c not in expendable and c not in keep and c != order[0]
    ]
    dropped: list[str] = []
    while True:
        text = _render(shown)
        if wide or _width(text) <= width or not expendable:
            break
        column = expendable.pop(0)
        dropped.append(str(column))
        shown = shown.drop(columns=column)
    dropped.sort(key=order.index)
    if not dropped:
        return text
    many = len(dropped) > 1
    note = (
        f"({len(dropped)} more column{'s' if many else ''}: {', '.join(dropped)}; --wide "
        f"shows {'them' if many else 'it'}, --json every field)"
    )
    return text + "\n" + "\n".join(textwrap.wrap(note, width))


def _render(shown: pd.DataFrame) -> str:
    with pd.option_context(
        "display.max_rows",
        None,
        "display.width",
        None,
        "display.max_columns",
        None,
        "display.max_colwidth",
        None,
    ):
        return shown.to_string(index=False)


def _width(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def wrap_line(text: str, width: int = TEXT_WIDTH, indent: str = "  ") -> str:
    """One long line of prose (a summary, the defaults) folded to ``width``."""
    return (
        "\n".join(
            textwrap.wrap(
                text,
                width,
                subsequent_indent=indent,
                break_on_hyphens=False,
                break_long_words=False,
            )
        )
        or text
    )


def text_record(data: dict[str, Any]) -> str:
    """A dict as ``key  value`` lines, floats at TEXT_DIGITS significant figures, control
    characters escaped."""
    shown = {escape_controls(str(k)): _text_number(v) for k, v in data.items()}
    width = max(len(k) for k in shown)
    return "\n".join(f"{k:<{width}}  {escape_controls(str(v))}" for k, v in shown.items())


def _text_number(value: Any) -> Any:
    if isinstance(value, float) and math.isfinite(value):
        return f"{round_sig(value, TEXT_DIGITS):g}"
    return value


def flat_row(doc: dict[str, Any]) -> dict[str, Any]:
    """A document without ``rows`` as one file row: nested keys joined by ``.``, lists as JSON."""
    row: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict):
            row |= {f"{key}.{k}": v for k, v in flat_row(value).items()}
        elif isinstance(value, list):
            row[key] = dumps(value, indent=None)
        else:
            row[key] = value
    return row


@dataclass(frozen=True)
class Result:
    """What a command produced: the JSON document, the text view, and (optionally) the rows a
    ``.csv``/``.parquet`` file holds (default: the document's ``rows``, or the document as one
    flattened row)."""

    doc: dict[str, Any]
    text: str
    table: pd.DataFrame | None = None

    def file_table(self) -> pd.DataFrame:
        """The rows of a .csv or .parquet file (without the envelope's two fields)."""
        if self.table is not None:
            return pd.DataFrame(records(self.table))
        body = {k: v for k, v in self.doc.items() if k not in ("schema_version", "kind")}
        if "rows" in body:
            return pd.DataFrame(body["rows"])
        return pd.DataFrame([flat_row(body)])


FILE_TYPES = (".csv", ".json", ".parquet")  # --output FILE: the type is the file's extension


def check_output(path: str) -> None:
    """Refuse, before any model loads, an ``--output`` the CLI cannot write (one-line errors)."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in FILE_TYPES:
        raise InvalidInputError(
            f"--output {path!r}: unknown file type {suffix or '(no extension)'}; "
            f"use one of {', '.join(FILE_TYPES)}"
        )
    if suffix == ".parquet" and not _has_pyarrow():
        raise InvalidInputError("--output .parquet needs pyarrow: pip install pyarrow")
    if not target.parent.is_dir():
        raise InvalidInputError(f"--output {path!r}: folder {str(target.parent)!r} does not exist")
    if target.is_dir():
        inside = str(target / f"result{suffix}")
        raise InvalidInputError(f"--output {path!r} is a folder; name a file, e.g. {inside!r}")


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def write_output(result: Result, path: str) -> None:
    """``result`` to ``path``: the JSON document (.json) or its rows (.csv, .parquet)."""
    suffix = Path(path).suffix.lower()
    try:
        if suffix == ".json":
            Path(path).write_text(json_text(result.doc) + "\n", encoding="utf-8")
        elif suffix == ".csv":
            result.file_table().to_csv(path, index=False)
        else:
            result.file_table().to_parquet(path, index=False)
    except OSError as err:  # no permission, a full disk, a folder made since the check
        raise InvalidInputError(
            f"--output {path!r}: cannot write it ({err.strerror or err})"
        ) from None
