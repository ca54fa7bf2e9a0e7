"""``wl.predict_many``'s frame, checked: the frame itself once, then every row through the checks
of ``wl.predict`` (:func:`~wattgpu_lite.hybrid.predict.requests.check_request`).

    frame_requests(frame, models, devices)    # -> per row a Request or the message why not
"""

from __future__ import annotations

import math
from difflib import SequenceMatcher

import numpy as np
import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.errors import DataFileError, InvalidInputError, WattGPUError
from wattgpu_lite.hybrid.predict.requests import (
    Request,
    check_request,
    resolve_load,
)
from wattgpu_lite.specs.layout import Parallel
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

NUMERIC_COLUMNS = ("rate_qps", "batch", "t_in", "t_out", "num_gpus", "tp", "ep")
INPUT_COLUMNS = ("llm", "gpu", *NUMERIC_COLUMNS, "weights")
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
    """InvalidInputError for a column name given twice, or one that reads as a misspelt input
    column (which would be silently ignored, its values replaced by the defaults)."""
    names = [str(c) for c in frame.columns]
    twice = sorted({c for c in names if names.count(c) > 1})
    if twice:
        raise InvalidInputError(f"predict_many's frame has the column {twice[0]!r} more than once; "
                                "keep one (which one is meant cannot be told)")  # fmt: skip
    for col in names:
        meant = None if col in INPUT_COLUMNS else misspelt_input(col)
        if meant is not None:
            raise InvalidInputError(f"predict_many's frame has a column {col!r}, not an input "
                                    f"column: did you mean {meant!r}? Rename it (inputs: "
                                    f"{', '.join(INPUT_COLUMNS)}), or it would be ignored")  # fmt: skip


def _blank(value) -> bool:
    """An empty cell: None, NaN or pandas' NA."""
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float | np.floating) and math.isnan(value)


def _plain(value):
    """A cell as Python: integral floats (a column with a blank is float) as int."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


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
        raise InvalidInputError("predict_many got an empty DataFrame; pass at least one row with "
                                f"columns 'llm' and 'gpu' (got columns {list(frame.columns)})")  # fmt: skip
    check_column_names(frame)
    for col in ("llm", "gpu"):
        if col not in frame:
            raise InvalidInputError(
                f"predict_many needs a column {col!r}; got {list(frame.columns)}"
            )
    for col in NUMERIC_COLUMNS:
        if col not in frame:
            continue
        dtype = frame[col].dtype
        if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
            continue  # numbers and NaN only
        for label, value in frame[col].items():
            if not _blank(value) and not checks.is_real(value):
                raise InvalidInputError(
                    f"column {col!r} must hold numbers (or blanks), got {value!r} "
                    f"({type(value).__name__}) in row {label!r}; convert it with "
                    f"pd.to_numeric(frame[{col!r}]) after fixing that cell"
                )


def _columns(frame: pd.DataFrame) -> dict[str, list]:
    """The columns a row is read from, as Python values (integral floats as int)."""
    out = {}
    for col in (*NUMERIC_COLUMNS, "weights"):
        if col in frame:
            out[col] = [_plain(v) for v in frame[col].tolist()]
    return out


def _layout_and_format(model, device, cells: dict) -> tuple[Parallel, str]:
    """The layout (``tp``/``ep`` if given, else ``num_gpus``) and served format of one row."""
    weights = cells.get("weights")
    weights = None if _blank(weights) else weights
    if "tp" in cells or "ep" in cells:
        tp, ep = cells.get("tp", 1), cells.get("ep", 1)
        layout = Parallel(tp, ep)
        n = cells.get("num_gpus")
        if not _blank(n) and n != layout.num_gpus:
            raise InvalidInputError(
                f"num_gpus={n!r} disagrees with tp={tp}, ep={ep} (a replica of "
                f"{layout.num_gpus} GPUs); drop the num_gpus column or make it {layout.num_gpus}"
            )
        req = check_request(model, device, parallel=layout, weights=weights, batch=1)
    else:
        req = check_request(model, device, num_gpus=cells.get("num_gpus", 1), weights=weights,
                            batch=1)  # fmt: skip
    return req.layout, req.weights


def _row_request(model, device, cells: dict, layout: Parallel, fmt: str) -> Request:
    """One row's load and tokens checked (its layout and format already are)."""
    rate, bat = cells.get("rate_qps"), cells.get("batch")
    rate, bat = (None if _blank(rate) else rate), (None if _blank(bat) else bat)
    if (rate is None) == (bat is None):
        raise InvalidInputError(
            "each row needs exactly one of rate_qps and batch (the other blank); this row has "
            f"{'both' if rate is not None else 'neither'} (rate_qps={rate!r}, batch={bat!r})"
        )
    rate, bat, offline = resolve_load(None, rate, bat)
    t_in, t_out = checks.check_tokens(cells.get("t_in", DEFAULT_T_IN),
                                      cells.get("t_out", DEFAULT_T_OUT), model.context_length)  # fmt: skip
    return Request(layout, fmt, rate, bat, offline, t_in, t_out)


def frame_requests(frame: pd.DataFrame, models, devices) -> list[Request | str]:
    """Per row of ``frame`` (already through :func:`check_columns`) its :class:`Request`, or the
    message of the first check it fails, in :func:`check_request`'s order (layout, weight format,
    load, tokens). A broken shipped data file still raises. The layout and format checks are
    made once per distinct (LLM, GPU, layout, format) of the frame."""
    columns = _columns(frame)
    layout_cols = [c for c in ("num_gpus", "tp", "ep", "weights") if c in columns]
    seen: dict = {}
    out: list[Request | str] = []
    for i in range(len(frame)):
        cells = {col: values[i] for col, values in columns.items()}
        key = (id(models[i]), id(devices[i]), *(_key(cells[c]) for c in layout_cols))
        try:
            if key not in seen:
                try:
                    seen[key] = _layout_and_format(models[i], devices[i], cells)
                except (DataFileError, InvalidInputError, WattGPUError) as err:
                    seen[key] = err
            if isinstance(seen[key], Exception):
                raise seen[key]
            out.append(_row_request(models[i], devices[i], cells, *seen[key]))
        except DataFileError:
            raise
        except WattGPUError as err:
            out.append(str(err))
    return out


def _key(value):
    """A cell as a cache key: its type and value (NaN, which is not equal to itself, as a tag)."""
    return ("blank",) if _blank(value) else (type(value).__name__, value)
