"""Turn what a user types into a GPU or an LLM: an object, a catalog name, a dict or a JSON file.

Used by ``WattGPU.predict``, ``wl.predict``, ``rank_gpus`` and the CLI (``--llm NAME|config.json
--gpu NAME|spec.json``). Files are read by :func:`wattgpu_lite.jsonfiles.read_json` (size, depth,
encoding and shape checked; a JSON list is not a spec). A spec or config that borrows a catalog
entry's name but not its numbers is refused: the name would claim measurements it never had.

A string is a catalog name first: if it names a catalog entry it is that entry, even when the
working directory holds a file or folder of the same relative path (``L4``,
``meta-llama/Llama-3.1-8B-Instruct``); an :class:`AmbiguousNameWarning` then names both and how to
pass the path instead (``./L4``, or a :class:`pathlib.Path`, which is always read as a file).
"""

from __future__ import annotations

import math
import os
import stat
import warnings
from contextlib import contextmanager
from dataclasses import fields, replace
from typing import Any

from wattgpu_lite.datafiles import as_path, is_file, refuse_folder
from wattgpu_lite.errors import (
    ConfigError,
    InvalidInputError,
    SpecError,
    UnknownGPUError,
    UnknownLLMError,
    WattGPUError,
)
from wattgpu_lite.jsonfiles import read_json
from wattgpu_lite.specs.catalog import GPU, LLM, gpu, llm
from wattgpu_lite.specs.llm_config import check_label

MAX_SPEC_BYTES = 2**20  # a GPU spec or a config.json is a few kB; 1 MiB is surely something else


# fields that may differ between a user's copy and the catalog entry of the same GPU or LLM
NOT_COMPARED = {"name", "source", "source_fp8", "source_interconnect", "measured", "smi_name",
                "in_wattgpu", "params_b", "params_nominal_b", "params_active_b", "architecture"}  # fmt: skip


class AmbiguousNameWarning(UserWarning):
    """A string that names a catalog entry and also a file or folder in the working directory:
    the catalog entry is used (the CLI prints this as a ``note:`` line on stderr)."""


def _catalog_first(value: Any, lookup, kind: str) -> Any | None:
    """The catalog entry a string names, or None (not a string, or in no catalog). If the same
    string is also an existing relative path, warn (AmbiguousNameWarning) and keep the entry."""
    if not isinstance(value, str):
        return None
    try:
        entry = lookup(value)
    except (UnknownGPUError, UnknownLLMError):
        return None
    found = _path_kind(value)
    if found:
        hint = "its config.json" if found == "folder" else "it"
        explicit = "./" + value if not os.path.isabs(value) else value
        warnings.warn(
            f"{value!r} is the catalog {kind} {entry.name!r} and also a {found} in the working "
            f"directory {os.getcwd()!r}; the catalog {kind} is used. To read {hint} instead, pass "
            f"the path explicitly, e.g. {explicit + ('/config.json' if found == 'folder' else '')!r} "
            "(in Python a pathlib.Path is always read as a file)",
            AmbiguousNameWarning,
            stacklevel=3,
        )
    return entry


def _path_kind(value: str) -> str:
    """ "folder" or "file" (a regular one) when the catalog name ``value`` names one in the file
    system, else "" (never an error): one stat of the string itself (``Path.is_dir`` then
    ``Path.is_file``, which follow links, did two). A catalog name has no trailing "/" or "/."
    (the only parts pathlib would drop that a stat reads) and no NUL; a name too long for a
    path is an OSError, as its as_path is None: no :func:`as_path` needed, a warm predict's two
    names cost two stats."""
    try:
        mode = os.stat(value).st_mode
    except (OSError, ValueError):
        return ""
    return "folder" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else ""


def _is_json_path(value: Any) -> bool:
    """A PathLike, or a string ending in .json or naming an existing file (never an error)."""
    if isinstance(value, os.PathLike):
        return as_path(value) is not None
    return isinstance(value, str) and (value.lower().endswith(".json") or is_file(value))


# model types that name one architecture: Falcon's remote-code configs (RefinedWebModel for
# Falcon-7B, RefinedWeb for Falcon-40B) are what transformers' FalconConfig reads as "falcon"
SAME_TYPE = {"RefinedWebModel": "falcon", "RefinedWeb": "falcon"}


def _same(a: Any, b: Any) -> bool:
    """Equal values of two dataclasses of one type (NaN equal to NaN, model types by
    SAME_TYPE), but NOT_COMPARED."""
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "model_type":
            x, y = SAME_TYPE.get(x, x), SAME_TYPE.get(y, y)
        nan = isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)
        if f.name not in NOT_COMPARED and x != y and not nan:
            return False
    return True


def _borrowed(kind: str, field: str, what: Any, lookup, *, error: type) -> Any:
    """The catalog entry if ``what`` carries a catalog name and the same numbers; ``what`` if its
    name is in no catalog; ``error`` if it borrows a catalog name with other numbers."""
    try:
        entry = lookup(what.name)
    except (UnknownGPUError, UnknownLLMError):
        return what
    if _same(what, entry):
        return entry
    raise error(
        f"{kind} {what.name!r} has the name of the catalog entry {entry.name!r} but other "
        f"values, so its results would borrow that entry's measurements; give it a name of its "
        f"own ({field}), e.g. {what.name + ' (custom)'!r}"
    )


@contextmanager
def _named(where: str, kind: type[WattGPUError]):
    """Re-raise a ``kind`` error with the file it came from at the head of its message."""
    try:
        yield
    except kind as err:
        named = type(err)(f"{where}: {err}")
        named.field = getattr(err, "field", None)  # type: ignore[attr-defined]
        raise named from None


def resolve_llm(value: Any, name: str | None = None) -> LLM:
    """An LLM from an LLM, a catalog name, a config.json dict or a path to a config.json.

    ``name``: what to call a model you bring (a config.json or an LLM of no catalog), instead of
    its config's Hub id (``_name_or_path``, when it reads as one) or "custom model"; a catalog
    model keeps its own name (InvalidInputError)."""
    if name is not None:
        return _named_llm(value, check_label("name", name))
    if isinstance(value, LLM):
        return value
    entry = _catalog_first(value, llm, "LLM")
    if entry is not None:
        return entry
    refuse_folder(value, "config.json", "config.json", ConfigError)
    if _is_json_path(value):
        model = _from_config_file(value)
    elif isinstance(value, dict):
        model = LLM.from_hf_config(value)
    elif isinstance(value, str):
        return llm(value)
    else:
        raise ConfigError(
            f"an LLM is a catalog name, a config.json dict or a path to a "
            f"config.json; got {type(value).__name__} {value!r:.80}; pass one of those"
        )
    return _borrowed("config.json", "_name_or_path", model, llm, error=ConfigError)


def _from_config_file(path: Any, name: str | None = None) -> LLM:
    """The LLM of a config.json file, its source naming the file."""
    cfg = read_json(
        path, what="config.json", error=ConfigError, sha256=None, max_bytes=MAX_SPEC_BYTES
    )
    file = as_path(path).name
    with _named(f"config.json {file}", ConfigError):
        model = LLM.from_hf_config(cfg, name=name)  # its source's notes kept, the file first
    return replace(model, source=model.source.replace("config dict", f"config.json {file}", 1))


def _named_llm(value: Any, name: str) -> LLM:
    """A model you bring, called ``name`` (:func:`resolve_llm`)."""
    if _is_catalog_llm(value):
        raise InvalidInputError(
            f"name {name!r}: {value!r} is a catalog model and keeps its own "
            "name; name= (--name) names a model you bring, a config.json"
        )
    if isinstance(value, LLM):
        model = replace(value, name=name)
    elif isinstance(value, dict):
        model = LLM.from_hf_config(value, name=name)
    elif _is_json_path(value):
        model = _from_config_file(value, name)
    else:
        return resolve_llm(value)  # not a model one can name: its own error
    return _borrowed("config.json", "name", model, llm, error=ConfigError)


def _is_catalog_llm(value: Any) -> bool:
    """Whether ``value`` is a catalog name or a catalog LLM (not one you bring)."""
    if isinstance(value, LLM):
        try:
            return _same(value, llm(value.name))
        except UnknownLLMError:
            return False
    return isinstance(value, str) and _catalog_first(value, llm, "LLM") is not None


def resolve_gpu(value: Any) -> GPU:
    """A GPU from a GPU, a catalog name, a spec dict or a path to a spec JSON file."""
    if isinstance(value, GPU):
        return _borrowed("GPU spec", "name", value, gpu, error=SpecError)
    entry = _catalog_first(value, gpu, "GPU")
    if entry is not None:
        return entry
    refuse_folder(value, "GPU spec .json", None, SpecError)
    if _is_json_path(value):
        spec = read_json(
            value, what="GPU spec file", error=SpecError, sha256=None, max_bytes=MAX_SPEC_BYTES
        )
        with _named(f"GPU spec file {as_path(value).name}", SpecError):
            return _borrowed("GPU spec", "name", GPU.from_spec(spec), gpu, error=SpecError)
    if isinstance(value, dict):
        return _borrowed("GPU spec", "name", GPU.from_spec(value), gpu, error=SpecError)
    if not isinstance(value, str):
        raise SpecError(
            f"a GPU is a catalog name, a spec dict or a path to a spec .json file; "
            f"got {type(value).__name__} {value!r:.80}; pass one of those"
        )
    return gpu(value)


def resolve_each(values, resolve) -> list:
    """``resolve`` applied to each value, each distinct one once (names repeat across rows; an
    object that is not a name is keyed by identity)."""
    seen: dict = {}
    out = []
    for v in values:
        key = v if isinstance(v, str) else id(v)
        if key not in seen:
            seen[key] = resolve(v)
        out.append(seen[key])
    return out
