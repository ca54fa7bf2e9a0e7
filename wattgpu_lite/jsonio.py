"""The kit's one JSON writer (every ``to_json``/``to_dict`` and the CLI's ``--json``) and reader.

    json_safe({"a": np.float64("nan"), "b": (1, np.int64(2))})   # -> {"a": None, "b": [1, 2]}
    dumps(doc)                                                      # strict JSON text

Missing values (None, NaN, pandas' NA) become ``null``; numpy scalars become Python ones; tuples
become lists; an infinite number is an :class:`~wattgpu_lite.errors.InvalidInputError` naming its
field (a result at infinity means the input lies outside what the model answers), never the
non-standard ``Infinity``. ``number`` (optional) rewrites each finite float: :func:`rounded`, the
one form of every ``to_json()`` and ``--json``, keeps :data:`JSON_DIGITS` significant figures and
writes an integral count (``num_gpus``, ``t_out``, ...) as an int.

:func:`parse_json` reads JSON strictly: UTF-8 (a leading byte-order mark skipped), no NaN or
Infinity, no key written twice in one object (:func:`unique_keys`: ``json`` would keep the last
value silently), a capped depth and the expected top-level type; each refusal names the file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pandas as _pd

from wattgpu_lite.errors import DataFileError, InvalidInputError, WattGPUError

Number = Callable[[str, float], Any]
MAX_DEPTH = 64  # XGBoost trees are stored flat; nothing the kit reads nests deeper than ~6
JSON_DIGITS = 6  # significant figures of every number in to_json(), --json, .json, .csv, .parquet
# fields that count things: an integral float there (a pandas column with gaps) is written as an int
COUNT_KEYS = frozenset({"replicas", "num_gpus", "tp", "ep", "max_batch", "t_in", "t_out", "rank",
                        "sm_count", "tensor_cores", "context_length", "vocab_size", "release_year",
                        "hidden_size", "intermediate_size", "head_dim", "mla_kv_width"})  # fmt: skip
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
        return {"schema_version": SCHEMA_VERSION, "kind": spec.get("kind", "table"),
                **rounded(body), "defaults": rounded(dict(self.attrs.get("defaults", {})))}  # fmt: skip

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


def _depth(value: Any) -> int:
    """Nesting depth of parsed JSON (iterative: no recursion limit of its own)."""
    deepest, stack = 1, [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class DuplicateKeyError(ValueError):
    """A JSON object that holds one key twice (``json`` would silently keep the last value)."""

    def __init__(self, key: str, first: Any, last: Any):
        super().__init__(
            f"key {key!r} appears twice in one object ({key!r}: {first!r:.40} and "
            f"{key!r}: {last!r:.40}); JSON keeps only the last, so which one is meant is "
            f"unclear: write {key!r} once"
        )


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s ``object_pairs_hook``: the object as a dict, or :class:`DuplicateKeyError`
    naming a key written twice (whatever the values: a file that says a thing twice is refused,
    not read by its last line)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(key, out[key], value)
        out[key] = value
    return out


def parse_json(
    data: bytes,
    label: str,
    *,
    want: type | None = dict,
    error: type[WattGPUError] = DataFileError,
    max_depth: int = MAX_DEPTH,
) -> Any:
    """JSON from bytes: UTF-8 (a leading byte-order mark, as Windows editors write, is skipped),
    no NaN/Infinity, depth <= ``max_depth``, of type ``want``."""
    too_deep = f"{label}: nested deeper than {max_depth} levels; check it is the right file"
    try:
        value = json.loads(
            data.decode("utf-8-sig"), parse_constant=_no_constant, object_pairs_hook=unique_keys
        )
    except UnicodeDecodeError:
        raise error(f"{label}: not UTF-8 text (a binary file?); pass a JSON file") from None
    except RecursionError:
        raise error(too_deep) from None
    except DuplicateKeyError as err:
        raise error(f"{label}: {err}") from None
    except json.JSONDecodeError as err:  # the syntax: say where, not what else JSON forbids
        raise error(
            f"{label}: not valid JSON ({err}); fix the file there (JSON has no "
            "comments, trailing commas or single quotes)"
        ) from None
    except ValueError as err:
        raise error(
            f"{label}: not valid JSON ({err}); fix the file (NaN and Infinity are "
            "not allowed: write a number or leave the key out)"
        ) from None
    if _depth(value) > max_depth:
        raise error(too_deep)
    if want is not None and not isinstance(value, want):
        kind = {dict: "an object {...}", list: "a list [...]"}.get(want, want.__name__)
        raise error(
            f"{label}: holds {type(value).__name__} where {kind} is expected; "
            f"pass a JSON file whose top level is {kind}"
        )
    return value
