"""The GPU and LLM catalogs: data/gpus.csv and data/llms.csv, validated, and lookup by name.

    wl.gpu("NVIDIA H100 NVL")            # catalog name or alias, case/space/hyphen-insensitive
    wl.llm("Llama-3.1-8B-Instruct")      # HF id or the part after "/"
    wl.llm("Qwen/Qwen3-235B-A22B-Instruct-2507")   # a checkpoint alias (data/llm_aliases.csv)
    wl.gpus(), wl.llms()                 # DataFrames, one row per entry, columns = dataclass fields
    wl.llm_aliases()                     # checkpoint id -> architecture row, with the source
    wl.GPU.from_spec({...}), wl.LLM.from_hf_config("config.json")   # entries in no table

Optional GPU columns may be empty (NaN = unknown): process_nm, base_clock_mhz, bus_width_bits,
l2_cache_mb, sm_count, tensor_cores, transistors_m, fp8_tflops. Every other cell must be filled.
"""

from __future__ import annotations

import re
from dataclasses import fields
from functools import cache

import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv, restore_hint
from wattgpu_lite.errors import (
    ConfigError,
    DataFileError,
    SpecError,
    UnknownGPUError,
    UnknownLLMError,
)
from wattgpu_lite.jsonio import document_frame
from wattgpu_lite.specs.aliases import Alias, aliases_frame, read_aliases, resolve_alias
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.llm import ECHO_FIELDS, LLM

GPU_COLUMNS = [f.name for f in fields(GPU)] + ["aliases"]
LLM_COLUMNS = [f.name for f in fields(LLM) if f.name not in ECHO_FIELDS]


def _read(name: str, columns: list[str]) -> pd.DataFrame:
    """A catalog CSV with exactly ``columns``, checked against data/MANIFEST.sha256;
    DataFileError naming the file, the column and the fix."""
    table = read_csv(data_dir() / name, keep_default_na=False, na_values=[""])
    fix = restore_hint(name)
    for col in columns:
        if col not in table.columns:
            raise DataFileError(f"{name}: column {col!r} is missing; expected {columns}; {fix}")
    extra = sorted(set(table.columns) - set(columns))
    if extra:
        raise DataFileError(f"{name}: unexpected column(s) {extra}; expected {columns}; {fix}")
    if not table["name"].is_unique:
        raise DataFileError(f"{name}: column 'name' has duplicates; {fix}")
    return table


def _row_error(name: str, row: dict, err: Exception) -> DataFileError:
    column = getattr(err, "field", None) or "?"
    return DataFileError(
        f"{name}: row {row.get('name')!r}, column {column!r}: {err}. {restore_hint(name)}"
    )


@cache
def _gpu_entries() -> tuple[tuple[GPU, str], ...]:
    """(GPU, aliases) per row of gpus.csv, each row validated by GPU.from_spec."""
    entries = []
    for row in _read("gpus.csv", GPU_COLUMNS).to_dict(orient="records"):
        aliases = row.pop("aliases")
        try:
            entries.append((GPU.from_spec(row), "" if aliases != aliases else str(aliases)))
        except SpecError as err:
            raise _row_error("gpus.csv", row, err) from err
    return tuple(entries)


@cache
def _llm_entries() -> tuple[LLM, ...]:
    """One LLM per row of llms.csv, with types and ranges checked."""
    out = []
    for row in _read("llms.csv", LLM_COLUMNS).to_dict(orient="records"):
        try:
            out.append(LLM.from_record(row))
        except (ConfigError, TypeError, ValueError) as err:
            raise _row_error("llms.csv", row, err) from err
    return tuple(out)


def catalog_gpus() -> tuple[GPU, ...]:
    """Every GPU of the catalog, in its order: the objects :func:`gpu` returns (no table built)."""
    return tuple(g for g, _ in _gpu_entries())


def gpus() -> pd.DataFrame:
    """The GPU catalog, one row per GPU; columns = the GPU dataclass fields. ``to_json()`` is
    exactly ``gpus --json`` (:class:`~wattgpu_lite.jsonio.DocumentFrame`)."""
    return document_frame(pd.DataFrame([g.__dict__ for g, _ in _gpu_entries()]), "gpus")


def llms() -> pd.DataFrame:
    """The LLM catalog, one row per architecture; columns = the LLM dataclass fields.
    ``to_json()`` is exactly ``llms --json``."""
    rows = [{k: m.__dict__[k] for k in LLM_COLUMNS} for m in _llm_entries()]
    return document_frame(pd.DataFrame(rows), "llms")


@cache
def _alias_entries() -> tuple[Alias, ...]:
    return read_aliases(data_dir())


def llm_aliases() -> pd.DataFrame:
    """Checkpoint ids that share a catalog architecture (data/llm_aliases.csv), with sources;
    ``to_json()`` is exactly ``llms --aliases --json``."""
    return document_frame(aliases_frame(_alias_entries()), "llm_aliases")


def _key(text: str) -> str:
    """Lookup key: lower case without spaces, hyphens, underscores or a vendor prefix."""
    key = re.sub(r"[\s\-_]", "", text.lower())
    return re.sub(r"^(nvidia|tesla|amd|amdinstinct)(?=.)", "", key)


@cache
def _gpu_index() -> dict[str, GPU]:
    index: dict[str, GPU] = {}
    for g, aliases in _gpu_entries():
        for text in [g.name, g.smi_name, *aliases.split("|")]:
            key = _key(text) if text else ""
            if key and index.setdefault(key, g) is not g:
                raise DataFileError(f"gpus.csv: alias {text!r} names two GPUs; column 'aliases'")
    return index


def gpu(name: str | GPU) -> GPU:
    """A GPU by catalog name, nvidia-smi name or alias ("h100nvl", "NVIDIA H200" -> H200 NVL)."""
    if isinstance(name, GPU):
        return name
    hit = _gpu_index().get(_key(str(name)))
    if hit is None:
        other = _llm_index().get(str(name).strip().lower())  # an LLM where a GPU goes
        note = "" if other is None else f"{other.name!r} is an LLM: {SWAPPED} "
        raise UnknownGPUError(str(name), [g.name for g, _ in _gpu_entries()], note)
    return hit


@cache
def _llm_index() -> dict[str, LLM]:
    """Lower-cased HF id -> LLM for every row and alias, and the part after "/" where unique."""
    rows = {m.name.lower(): m for m in _llm_entries()}
    index = dict(rows)
    for entry in _alias_entries():
        arch = rows.get(entry.architecture.lower())
        if arch is None or entry.alias.lower() in rows:
            why = "names no row of llms.csv" if arch is None else "is itself a row of llms.csv"
            raise DataFileError(
                f"llm_aliases.csv: row {entry.alias!r}: architecture "
                f"{entry.architecture!r} {why}; {restore_hint('llm_aliases.csv')}"
            )
        index[entry.alias.lower()] = resolve_alias(entry, arch)
    shorts = pd.Series([name.split("/")[-1] for name in index])
    for name, m in list(index.items()):
        short = name.split("/")[-1]
        if (shorts == short).sum() == 1:
            index.setdefault(short, m)
    return index


def llm(name: str | LLM) -> LLM:
    """An LLM by Hugging Face id, checkpoint alias or the part after "/" (case-insensitive)."""
    if isinstance(name, LLM):
        return name
    hit = _llm_index().get(str(name).strip().lower())
    if hit is None:
        known = [m.name for m in _llm_entries()] + [a.alias for a in _alias_entries()]
        other = _gpu_index().get(_key(str(name)))  # a GPU where an LLM goes
        note = "" if other is None else f"{other.name!r} is a GPU: {SWAPPED} "
        raise UnknownLLMError(str(name), known, note)
    return hit


#: the fix when a GPU is given as the LLM or the other way round
SWAPPED = "were the LLM and the GPU swapped? The LLM comes first: wl.predict(llm, gpu, ...)."
