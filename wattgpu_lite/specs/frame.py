"""Strict checks of the frame ``wl.predict_many`` takes, before any row is: a non-empty DataFrame
with ``llm`` and ``gpu``, no column twice, no misspelt input column (it would be silently
ignored), numeric columns of numbers or blanks; then its rows' loads and tokens, column-wise
(:func:`checked_loads`, the twin of the checks of each row in
:mod:`~wattgpu_lite.hybrid.predict.frame_checks`).
"""

from __future__ import annotations

from difflib import SequenceMatcher

import numpy as np
import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.errors import InvalidInputError, close_matches
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

NUMERIC_COLUMNS = ("rate_qps", "batch", "t_in", "t_out", "num_gpus", "tp", "ep", "max_num_seqs")
TEXT_COLUMNS = ("weights", "kv_cache", "engine")
INPUT_COLUMNS = ("llm", "gpu", *NUMERIC_COLUMNS, *TEXT_COLUMNS)
#: predict_many's arguments that hold for the whole frame: a column so named would be ignored
FRAME_ARGUMENTS = ("level", "correction", "workload")
NEAR_MISS = 0.9  # difflib ratio from which an extra column reads as a misspelt input column


def misspelt_input(column: str) -> str | None:
    """The input column ``column`` looks like a misspelling of (``T_in``, ``t-in``, ``rat_qps``,
    ``num_gpu``: the same name folded, or a difflib ratio >= NEAR_MISS), else None. Other
    extra columns (ids, labels) are carried through as they are."""
    folded = column.strip().lower().replace("-", "_").replace(" ", "_")
    for name in INPUT_COLUMNS:
        if name != column and (
            folded == name or SequenceMatcher(None, folded, name).ratio() >= NEAR_MISS
        ):
            return name
    return None


def check_column_names(frame: pd.DataFrame) -> None:
    """InvalidInputError for a column name given twice, one that names an argument for the whole
    frame (:data:`FRAME_ARGUMENTS`), or one that reads as a misspelt input column (which would be
    silently ignored, its values replaced by the defaults)."""
    names = [str(c) for c in frame.columns]
    twice = sorted({c for c in names if names.count(c) > 1})
    if twice:
        raise InvalidInputError(
            f"predict_many's frame has the column {twice[0]!r} more than once; keep one (which "
            "one is meant cannot be told)"
        )
    for col in names:
        if col.strip().lower() in FRAME_ARGUMENTS:
            arg = col.strip().lower()
            raise InvalidInputError(
                f"predict_many's frame has a column {col!r}, but {arg} is an argument for the "
                f"whole frame, not a column (it would be ignored): pass predict_many(frame, "
                f"{arg}=...), one call per {arg}, or rename the column"
            )
        meant = None if col in INPUT_COLUMNS else misspelt_input(col)
        if meant is not None:
            raise InvalidInputError(
                f"predict_many's frame has a column {col!r}, not an input column: did you mean "
                f"{meant!r}? Rename it (inputs: {', '.join(INPUT_COLUMNS)}), or it would be ignored"
            )


def check_result_columns(columns, known: tuple[str, ...]) -> tuple[str, ...]:
    """The result columns ``columns`` (a name, or a list of names, of ``known``: predict_many's
    numeric result columns) as a tuple in the order of ``known``, each once; None: all of
    them. InvalidInputError for a name not among them (with its close matches) or a value that
    is not text."""
    if columns is None:
        return known
    names = [columns] if isinstance(columns, str) else columns
    if not isinstance(names, list | tuple | pd.Index) or not all(isinstance(c, str) for c in names):
        raise InvalidInputError(
            f"predict_many's columns= takes a list of result column names, got {columns!r}; "
            f"e.g. columns=['power_w', 'itl_s'] (names: {', '.join(known)})"
        )
    for name in names:
        if name not in known:
            near = close_matches(name, known, n=3)
            raise InvalidInputError(
                f"predict_many has no result column {name!r}"
                + (f"; did you mean {' or '.join(map(repr, near))}?" if near else ".")
                + f" Its numeric result columns: {', '.join(known)} (the frame's own columns, "
                "llm_architecture, basis, status and message are always returned)"
            )
    return tuple(c for c in known if c in names)


def blank(value) -> bool:
    """An empty cell: None, NaN or pandas' NA."""
    return value is None or value is pd.NA or checks.is_nan(value)


def numbers_only(dtype) -> bool:
    """A column dtype that holds numbers and NaN (or pandas' NA) only."""
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def check_columns(frame) -> None:
    """The frame itself: a non-empty DataFrame with ``llm`` and ``gpu``, whose numeric columns
    hold numbers or blanks (InvalidInputError naming the column, the row and the value)."""
    if not isinstance(frame, pd.DataFrame):
        raise InvalidInputError(
            f"predict_many takes a pandas DataFrame, got a {type(frame).__name__}; wrap the rows "
            "as pd.DataFrame(rows) (a dict of columns or a list of dicts), or call wl.predict "
            "for one request"
        )
    if frame.empty:
        raise InvalidInputError(
            "predict_many got an empty DataFrame; pass at least one row with columns 'llm' and "
            f"'gpu' (got columns {list(frame.columns)})"
        )
    check_column_names(frame)
    for col in ("llm", "gpu"):
        if col not in frame:
            raise InvalidInputError(
                f"predict_many needs a column {col!r}; got {list(frame.columns)}"
            )
        empty = frame[col].isna().to_numpy()
        if empty.any():  # None or NaN: no name to resolve (a frame's rows name their own)
            row = frame.index[empty.argmax() :].tolist()[0]  # a label as Python writes it
            raise InvalidInputError(
                f"column {col!r} is blank in row {row!r}; give every row its {col.upper()} "
                f"(a catalog name, as wl.{col}s() lists), or drop the row"
            )
    for col in NUMERIC_COLUMNS:
        if col not in frame or numbers_only(frame[col].dtype):
            continue
        for label, value in frame[col].items():
            if not blank(value) and not checks.is_real(value):
                raise InvalidInputError(
                    f"column {col!r} must hold numbers (or blanks), got {value!r} "
                    f"({type(value).__name__}) in row {label!r}; convert it with "
                    f"pd.to_numeric(frame[{col!r}]) after fixing that cell"
                )


def checked_loads(frame: pd.DataFrame, limit: np.ndarray, known: np.ndarray) -> dict:
    """Column-wise: each row's rate or batch and its tokens, and whether the row passes the load
    and token checks a row alone goes through (exactly one load; :func:`checks.check_rate_qps`,
    :func:`checks.check_batch`, :func:`checks.check_tokens`: tokens up to ``limit``, the LLM's
    context length where ``known``). ``ok`` is False wherever a column holds Python objects;
    ``load_ok``: the load alone passes (False there too)."""
    n = len(frame)
    given = {"rate_qps": np.nan, "batch": np.nan, "t_in": DEFAULT_T_IN, "t_out": DEFAULT_T_OUT}
    if any(c in frame and not numbers_only(frame[c].dtype) for c in given):
        nan = {k: np.full(n, np.nan) for k in given}
        return nan | {"ok": np.zeros(n, dtype=bool), "load_ok": np.zeros(n, dtype=bool)}
    cols = {
        c: frame[c].to_numpy(dtype=float, na_value=np.nan) if c in frame else np.full(n, float(d))
        for c, d in given.items()
    }
    rate, bat, t_in, t_out = cols.values()
    with np.errstate(invalid="ignore"):
        at_rate = (
            ~np.isnan(rate) & np.isnan(bat) & within(rate, checks.RATE_QPS[0], checks.RATE_QPS[1])
        )
        at_batch = np.isnan(rate) & within(bat, 1, checks.BATCH_MAX, whole=True)
        tokens = within(t_in, 1, limit, whole=True) & within(t_out, 1, limit, whole=True)
        load_ok = at_rate | at_batch
        ok = load_ok & tokens & (~known | (t_in + t_out <= limit))
    return {k: v.copy() for k, v in cols.items()} | {"ok": ok, "load_ok": load_ok}


def within(x: np.ndarray, lo, hi, whole: bool = False) -> np.ndarray:
    """Finite, lo <= x <= hi and, if ``whole``, a whole number: the values
    :func:`checks.check_number` (:func:`checks.check_count`) accept, column-wise."""
    inside = np.isfinite(x) & (lo <= x) & (x <= hi)
    return inside & (np.floor(x) == x) if whole else inside
