"""The kit's one JSON writer: every ``to_json``/``to_dict`` and the CLI's ``--json`` go through it.

    json_safe({"a": np.float64("nan"), "b": (1, np.int64(2))})   # -> {"a": None, "b": [1, 2]}
    dumps(doc)                                                      # strict JSON text

Missing values (None, NaN, pandas' NA) become ``null``; numpy scalars become Python ones; tuples
become lists; an infinite number is an :class:`~wattgpu_lite.errors.InvalidInputError` naming its
field (a result at infinity means the input lies outside what the model answers), never the
non-standard ``Infinity``. ``number`` (optional) rewrites each finite float: :func:`rounded`, the
one form of every ``to_json()`` and ``--json``, keeps :data:`JSON_DIGITS` significant figures and
writes an integral count (``num_gpus``, ``t_out``, ...) as an int.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pandas as _pd

from wattgpu_lite.errors import InvalidInputError

Number = Callable[[str, float], Any]
JSON_DIGITS = 6  # significant figures of every number in to_json(), --json, .json, .csv, .parquet
# fields that count things: an integral float there (a pandas column with gaps) is written as an int
COUNT_KEYS = frozenset(
    {
        "replicas",
        "num_gpus",
        "tp",
        "ep",
        "max_batch",
        "t_in",
        "t_out",
        "rank",
        "sm_count",
        "tensor_cores",
        "context_length",
        "vocab_size",
        "release_year",
        "hidden_size",
        "intermediate_size",
        "head_dim",
        "mla_kv_width",
    }
)
COUNT_PREFIXES = ("n_", "num_")


def is_count(key: str) -> bool:
    """Whether ``key`` names a count (an integer whenever its value is integral)."""
    return key in COUNT_KEYS or key.startswith(COUNT_PREFIXES)


def round_sig(value: float, digits: int) -> float:
    """``value`` to ``digits`` significant figures (integral values are kept exactly)."""
    if not math.isfinite(value) or value == 0 or value.is_integer():
        return value
    return float(f"{value:.{digits}g}")


def rounded(value: Any, key: str = "", digits: int = JSON_DIGITS) -> Any:
    """:func:`json_safe` with the kit's numbers: floats at ``digits`` significant figures, an
    integral count an int (what every ``to_json()`` and the CLI's ``--json`` write)."""

    def number(field: str, x: float) -> float | int:
        return int(x) if is_count(field) and x.is_integer() else round_sig(x, digits)

    return json_safe(value, key, number)


def _is_missing(value: Any) -> bool:
    """None, a float NaN or pandas' NA (checked by name, so this module needs no pandas)."""
    if value is None or type(value).__name__ == "NAType":
        return True
    return isinstance(value, float) and math.isnan(value)


def json_safe(value: Any, key: str = "", number: Number | None = None) -> Any:
    """``value`` as plain JSON values, recursively (module docstring); ``key`` names the field
    in the error an infinite number raises."""
    if isinstance(value, dict):
        return {k: json_safe(v, str(k), number) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v, key, number) for v in value]
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()
    if _is_missing(value):
        return None
    if not isinstance(value, float):
        return value
    if math.isinf(value):
        raise InvalidInputError(
            f"result field {key!r} is {value}: the input lies outside what the model can answer "
            "(a rate, level or token count at an extreme); pass values closer to the defaults"
        )
    return value if number is None else number(key, value)


def dumps(value: Any, indent: int | None = 2) -> str:
    """:func:`json_safe` of ``value`` as strict JSON text (``allow_nan=False``)."""
    return json.dumps(json_safe(value), indent=indent, allow_nan=False)


SCHEMA_VERSION = 1  # of every to_json() and --json document


class DocumentFrame(_pd.DataFrame):
    """A table the kit returns (``wl.gpus()``, ``wl.llms()``, ``wl.llm_aliases()``,
    ``wl.evaluate(...)``): a DataFrame whose ``to_json()`` without arguments is exactly its
    command's ``--json`` — ``{"schema_version": 1, "kind": ..., <fields>, "rows": [...],
    "defaults": {}}``, numbers as :func:`rounded` writes them — and pandas' ``to_json`` with
    arguments. ``attrs["document"]`` holds the kind, the fields before the rows and, for a
    stacked frame (a ``table`` column naming each row's table), each table's columns: its
    document then carries each table under its name instead of ``rows``."""

    @property
    def _constructor(self):
        return DocumentFrame

    def to_document(self) -> dict[str, Any]:
        """The JSON document of the command, as Python values."""
        spec = self.attrs.get("document", {})
        plain = _pd.DataFrame(self)
        body: dict[str, Any] = dict(spec.get("fields", {}))
        tables = spec.get("tables")
        if tables:
            for name, columns in tables.items():
                part = plain[plain["table"] == name][list(columns)]
                body[name] = [rounded(r) for r in part.to_dict(orient="records")]
        else:
            body["rows"] = [rounded(r) for r in plain.to_dict(orient="records")]
        return {
            "schema_version": SCHEMA_VERSION,
            "kind": spec.get("kind", "table"),
            **rounded(body),
            "defaults": rounded(dict(self.attrs.get("defaults", {}))),
        }

    def to_json(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """The command's ``--json`` without arguments (class docstring); pandas' with them."""
        if args or kwargs:
            return _pd.DataFrame(self).to_json(*args, **kwargs)
        return dumps(self.to_document(), indent=2)


def document_frame(table, kind: str, tables: dict | None = None, **fields: Any) -> DocumentFrame:
    """``table`` as a :class:`DocumentFrame` of command ``kind`` with ``fields`` before its rows
    (``tables``: each stacked table's columns, see the class)."""
    out = DocumentFrame(table)
    out.attrs["document"] = {"kind": kind, "fields": fields, "tables": tables}
    return out
