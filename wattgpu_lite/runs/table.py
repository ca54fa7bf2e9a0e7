"""The shipped Watt Counts run table: read, validate (columns, dtypes, ranges, sha256).

:mod:`wattgpu_lite.runs.measurements` is the public face (``wl.measurements()``); this module does
the work, so that :mod:`wattgpu_lite.runs.upstream` can validate what it builds without a cycle.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from wattgpu_lite.checks import check_flag
from wattgpu_lite.datafiles import as_path, data_dir, read_csv
from wattgpu_lite.errors import DataFileError, InvalidInputError
from wattgpu_lite.runs.schema import (
    COLUMNS,
    ITL_OFFLINE,
    LAMBDA_QPS,
    MEASURED_GPUS,
    SCENARIOS,
)

DATA_NAME = "watt_counts_runs.csv"
RESTORE = f"Restore it with `git checkout data/{DATA_NAME}`."
# sha256 of data/watt_counts_runs.csv as built by data/scripts/build_runs.py
DATA_SHA256 = "c2bfae0de890e839d5bd9acb31c1d951898b093a32e99eef751519a6ce3a6b91"
# columns that must be strictly positive in every row (NaN is checked separately)
POSITIVE = (
    "n_requests",
    "prompt_tokens",
    "generated_tokens",
    "power_w",
    "duration_s",
    "throughput_tps",
    "tokens_per_j",
    "energy_per_token_j",
    "itl_s",
    "block",
    "rep",
)
_KIND_CHECK = {
    "str": pd.api.types.is_string_dtype,
    "float": pd.api.types.is_float_dtype,
    "int": pd.api.types.is_integer_dtype,
    "bool": pd.api.types.is_bool_dtype,
}


def _fail(name: str, problem: str) -> DataFileError:
    return DataFileError(f"{name}: {problem}")


def check_columns(df: pd.DataFrame, name: str) -> None:
    """Exact column set and dtypes of :data:`COLUMNS`; DataFileError names the column."""
    missing = [c for c in COLUMNS if c not in df.columns]
    extra = [c for c in df.columns if c not in COLUMNS]
    if missing or extra:
        raise _fail(
            name,
            f"missing columns {missing}, unexpected columns {extra}; expected {list(COLUMNS)}. "
            + (RESTORE if name == DATA_NAME else "Give the file these columns."),
        )
    for col, kind in COLUMNS.items():
        if not _KIND_CHECK[kind](df[col]):
            raise _fail(name, f"column {col!r} has dtype {df[col].dtype}, expected {kind}")


def check_ranges(df: pd.DataFrame, name: str) -> None:
    """Positivity (finite: no NaN nor inf where a value is required), known scenarios, GPUs
    and rates."""
    for col in POSITIVE:
        bad = ~((df[col] > 0) & (df[col] < float("inf")))  # NaN and inf fail both
        if bad.any():
            problem = f"must be > 0 and finite; {int(bad.sum())} rows are not"
            raise _fail(name, f"column {col!r} {problem}")
    for col, allowed in (("scenario", SCENARIOS), ("gpu", MEASURED_GPUS)):
        unknown = sorted(set(df[col]) - set(allowed))
        if unknown:
            raise _fail(name, f"column {col!r} has unknown values {unknown}; allowed {allowed}")
    expected_qps = df["scenario"].map(LAMBDA_QPS)
    same = (df["lambda_qps"] == expected_qps) | (df["lambda_qps"].isna() & expected_qps.isna())
    if not same.all():
        raise _fail(name, f"column 'lambda_qps' disagrees with 'scenario' in {(~same).sum()} rows")
    offline = df["scenario"] == "offline"
    if (df.loc[offline, "itl_definition"] != ITL_OFFLINE).any():
        raise _fail(name, "column 'itl_definition' is wrong for offline rows")
    if df.loc[~offline, "e2e_latency_s"].isna().any():
        raise _fail(name, "column 'e2e_latency_s' is empty for server rows")


def validate(df: pd.DataFrame, name: str = "measurements") -> pd.DataFrame:
    """Check columns, dtypes and value ranges; return ``df`` unchanged or raise DataFileError."""
    check_columns(df, name)
    check_ranges(df, name)
    return df


def load(
    dense_only: bool = False,
    path: str | Path | None = None,
    sha256: str | None = DATA_SHA256,
) -> pd.DataFrame:
    """The Watt Counts runs as a validated DataFrame, one row per run (columns: see COLUMNS).

    ``dense_only`` drops MoE/Mamba rows. ``path`` reads another file in the same schema.
    ``sha256``: the digest the file must have (default: the shipped table's, which is also the
    one in data/MANIFEST.sha256); pass ``None`` for a file of your own.
    """
    check_flag("dense_only", dense_only, label="measurements: dense_only")  # "no" read as true
    hexdigest = isinstance(sha256, str) and re.fullmatch(r"[0-9a-fA-F]{64}", sha256)
    if sha256 is not None and not hexdigest:
        got = f"got {sha256!r:.80}; pass the file's sha256sum, or None for a file of your own"
        raise InvalidInputError(f"measurements: sha256 must be 64 hex digits, {got}")
    file = data_dir() / DATA_NAME if path is None else path
    digest = sha256.lower() if isinstance(sha256, str) else None
    df = read_csv(file, what="runs table", sha256=digest, keep_default_na=True)
    df = validate(df, as_path(file).name if as_path(file) else str(file))
    return df[df["dense"]].reset_index(drop=True) if dense_only else df


def data_path() -> Path:
    """Where the shipped runs table is (:func:`wattgpu_lite.datafiles.data_dir`, asked each call;
    the folder is verified on its first use, never at import)."""
    return data_dir() / DATA_NAME


def __getattr__(name: str):
    """``DATA_PATH``, computed when read (:func:`data_path`), so importing this module reads no file."""
    if name == "DATA_PATH":
        return data_path()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
