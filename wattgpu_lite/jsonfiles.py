"""JSON files and text, read and parsed safely: every JSON file and config the kit reads.

    read_json(path, want=dict)   # a JSON object, or DataFileError (or ``error=``) naming the file
    parse_json(data, label)      # the same from bytes already read

The bytes come from :func:`wattgpu_lite.datafiles.read_bytes` (size cap, the manifest's sha256
for a shipped file); the text must be UTF-8 (a leading byte-order mark is skipped), with no NaN
or Infinity, no key written twice in one object (:func:`unique_keys`), at most
:data:`MAX_DEPTH` levels deep, of the type ``want``. Writing JSON is :mod:`wattgpu_lite.jsonio`'s.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wattgpu_lite.datafiles import FROM_MANIFEST, MAX_BYTES, as_path, read_bytes
from wattgpu_lite.errors import DataFileError, InvalidInputError, WattGPUError

MAX_DEPTH = 64  # XGBoost trees are stored flat; nothing the kit reads nests deeper than ~6


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
        twice = f"key {key!r} appears twice in one object ({key!r}: {first!r:.40} and {key!r}:"
        unclear = "JSON keeps only the last, so which one is meant is unclear"
        super().__init__(f"{twice} {last!r:.40}); {unclear}: write {key!r} once")


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s ``object_pairs_hook``: the object as a dict, or :class:`DuplicateKeyError`
    naming a key written twice (whatever the values: a file that says a thing twice is refused)."""
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
        text = data.decode("utf-8-sig")
        value = json.loads(text, parse_constant=_no_constant, object_pairs_hook=unique_keys)
    except UnicodeDecodeError:
        raise error(f"{label}: not UTF-8 text (a binary file?); pass a JSON file") from None
    except RecursionError:
        raise error(too_deep) from None
    except DuplicateKeyError as err:
        raise error(f"{label}: {err}") from None
    except json.JSONDecodeError as err:  # the syntax: say where, not what else JSON forbids
        there = "fix the file there (JSON has no comments, trailing commas or single quotes)"
        raise error(f"{label}: not valid JSON ({err}); {there}") from None
    except ValueError as err:
        nan = "fix the file (NaN and Infinity are not allowed: write a number or leave the key out)"
        raise error(f"{label}: not valid JSON ({err}); {nan}") from None
    if _depth(value) > max_depth:
        raise error(too_deep)
    if want is not None and not isinstance(value, want):
        kind = {dict: "an object {...}", list: "a list [...]"}.get(want, want.__name__)
        holds = f"holds {type(value).__name__} where {kind} is expected"
        raise error(f"{label}: {holds}; pass a JSON file whose top level is {kind}")
    return value


def read_json(
    path: Any,
    *,
    want: type | None = dict,
    what: str = "JSON file",
    sha256: str | None = FROM_MANIFEST,
    error: type[WattGPUError] = DataFileError,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
) -> Any:
    """A JSON file, read safely (see the module doc): ``error`` names the file and the fix."""
    data = read_bytes(path, sha256=sha256, what=what, error=error, max_bytes=max_bytes)
    return parse_json(data, f"{what} {path}", want=want, error=error, max_depth=max_depth)


def model_folder(folder: Any, where: str) -> Path:
    """``folder`` (a model's save or load argument) as a Path, or InvalidInputError naming
    ``where`` (``"WattGPU.load"``) and what it got: None, a number or a list is no folder."""
    path = as_path(folder)
    if path is None:
        raise InvalidInputError(
            f"{where}: folder must be the path of a folder of the model's JSON files (a str or "
            f"pathlib.Path), not {folder!r:.80}"
        )
    return path
