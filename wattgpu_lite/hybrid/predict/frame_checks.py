"""``wl.predict_many``'s frame, checked: the frame itself once (:mod:`~wattgpu_lite.specs.frame`),
then every row through the checks of ``wl.predict`` (:func:`check_request`): the layout and
format once per distinct configuration, the load and tokens of numeric columns column-wise, and
each row those refuse one by one, for its message (the same rows pass, with the same messages).

    frame_requests(frame, models, devices)    # -> FrameRequests: per row ok, message, request
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.energy import uniques
from wattgpu_lite.energy.request import Request, check_request, resolve_load
from wattgpu_lite.energy.uniques import Coded, unique_by_identity, unique_rows
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.predict.frame_cells import cells_of, or_message, plain, tokens_messages
from wattgpu_lite.specs.frame import NUMERIC_COLUMNS, TEXT_COLUMNS, blank, checked_loads
from wattgpu_lite.specs.layout import Parallel
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

#: the columns checked once per distinct configuration (with the LLM and the GPU)
CONFIG_COLUMNS = ("num_gpus", "tp", "ep", "weights", "kv_cache", "engine", "max_num_seqs")
CHECKED_CACHED = 4096  # distinct (LLM, GPU, configuration cells) whose checks are kept (_checked)
_NAN = float("nan")  # every blank float cell of a cache key, one object (NaN is not equal to NaN)


def _layout_and_format(model, device, cells: dict) -> tuple:
    """The layout (``tp``/``ep`` if given, else ``num_gpus``), served format, KV-cache format,
    engine and concurrency limit of one row (a blank cell: the default)."""
    given = {k: cells.get(k) for k in ("weights", "kv_cache", "engine", "max_num_seqs")}
    given = {k: None if blank(v) else v for k, v in given.items()}
    if "tp" in cells or "ep" in cells:
        tp, ep = cells.get("tp", 1), cells.get("ep", 1)
        layout = Parallel(tp, ep)
        n = cells.get("num_gpus")
        if not blank(n) and n != layout.num_gpus:
            raise InvalidInputError(
                f"num_gpus={n!r} disagrees with tp={tp}, ep={ep} (a replica of "
                f"{layout.num_gpus} GPUs); drop the num_gpus column or make it {layout.num_gpus}"
            )
        req = check_request(model, device, parallel=layout, batch=1, **given)
    else:
        req = check_request(model, device, num_gpus=cells.get("num_gpus", 1), batch=1, **given)
    return req.layout, req.weights, req.kv_cache, req.engine, req.max_num_seqs


def _row_request(model, device, cells: dict, checked: tuple) -> Request:
    """One row's load and tokens checked (its layout, formats, engine and concurrency limit
    already are: ``checked``, :func:`_checked`'s tuple)."""
    rate, bat = cells.get("rate_qps"), cells.get("batch")
    rate, bat = (None if blank(rate) else rate), (None if blank(bat) else bat)
    if (rate is None) == (bat is None):
        raise InvalidInputError(
            "each row needs exactly one of rate_qps and batch (the other blank); this row has "
            f"{'both' if rate is not None else 'neither'} (rate_qps={rate!r}, batch={bat!r})"
        )
    rate, bat, offline = resolve_load(None, rate, bat)
    t_in, t_out = checks.check_tokens(
        cells.get("t_in", DEFAULT_T_IN), cells.get("t_out", DEFAULT_T_OUT), model.context_length
    )
    layout, fmt, kv_cache, engine, limit = checked
    tokens = {"t_in": t_in, "t_out": t_out}
    serving = {"kv_cache": kv_cache, "engine": engine, "max_num_seqs": limit}
    load = {"rate_qps": rate, "batch": bat, "offline": offline}
    return Request(llm=model, gpu=device, layout=layout, weights=fmt, **load, **tokens, **serving)


@dataclass(frozen=True)
class FrameRequests:
    """A frame's rows as checked, one entry per row: whether the row passed, the message of the
    first check it failed ("" if it passed), and the checked request (NaN or None where not)."""

    ok: np.ndarray  # bool
    message: np.ndarray  # object: str
    # per row, as checked where ok (any value where not)
    rate_qps: np.ndarray  # req/s; NaN in batch mode
    batch: np.ndarray  # sequences; NaN at a rate
    t_in: np.ndarray  # tokens
    t_out: np.ndarray
    # each row's configuration, a group of rows with one LLM, GPU and equal configuration cells
    # (the last group: the rows not ok); the next five have one entry per group, read at a
    # row's group (``subset(layout, group[rows])``), not at every row
    group: np.ndarray
    layout: Coded  # Parallel (None: the rows not ok)
    weights: Coded  # the served format
    kv_cache: Coded  # the KV-cache format ("auto", "fp8", ...)
    engine: Coded  # the engine's name
    max_num_seqs: np.ndarray  # the concurrency limit; NaN: the rows not ok


def frame_requests(frame: pd.DataFrame, models, devices) -> FrameRequests:
    """Every row of ``frame`` (already through :func:`check_columns`) checked, in
    :func:`check_request`'s order (layout, weight format, load, tokens). The layout and format
    checks are made once per distinct (LLM, GPU, layout, formats, engine) of the frame; a row's
    load and tokens column-wise when its columns are numeric, and a row any of those checks
    refuses (or every row, when a column holds Python objects) goes through the checks of
    ``wl.predict`` one by one, which give its message. A broken shipped data file still raises."""
    n = len(frame)
    raw = {c: cells_of(frame[c]) for c in (*NUMERIC_COLUMNS, *TEXT_COLUMNS) if c in frame}
    distinct, li = unique_by_identity(models)
    group, first = _layout_groups(raw, li, unique_by_identity(devices)[1])
    config = {c: v for c, v in raw.items() if c in CONFIG_COLUMNS}
    hashed = (uniques.hashed_at(x, first) for x in (models, devices))
    pairs = zip(*hashed, _config_keys(config, first), strict=True)
    checked = [_checked_once(m, g, key) for m, g, key in pairs]
    good_group = np.array([not isinstance(c, str) for c in checked], dtype=bool)
    refusal = (None, None, None, None, np.nan)  # a group refused: no layout, formats, limit
    rows = [c if g else refusal for c, g in zip(checked, good_group, strict=True)]
    *choices, limits = (list(p) for p in zip(*rows, strict=True))  # layouts, formats, engines
    context = [m.context_length for m in distinct]
    known = np.array([c is not None for c in context], dtype=bool)[li]
    limit = np.array([checks.TOKENS_MAX if c is None else int(c) for c in context])[li]
    load = checked_loads(frame, limit.astype(float), known)
    ok = good_group[group] & load["ok"]
    message = np.full(n, "", dtype=object)
    for i in np.flatnonzero(~good_group[group]):
        message[i] = checked[group[i]]
    refused = np.flatnonzero(good_group[group] & ~load["ok"])  # the row's own checks say why
    tokens = refused[load["load_ok"][refused]]  # its load passes: check_tokens says why
    message[tokens] = tokens_messages(models, raw, tokens, load, limit=limit, known=known)
    said = np.zeros(n, dtype=bool)
    said[tokens] = message[tokens] != ""
    for i in refused[~said[refused]]:  # the others go through wl.predict's checks one by one
        cells = {c: plain(v[i]) for c, v in raw.items()}  # integral floats as int
        req = or_message(_row_request, (models[i], devices[i], cells, checked[group[i]]))
        if isinstance(req, str):
            message[i] = req
            continue
        ok[i] = True
        for key in ("rate_qps", "batch", "t_in", "t_out"):
            load[key][i] = getattr(req, key)
    kept = np.where(ok, group, len(first))  # the rows' groups; len(first): None, a row not ok
    numbers = {k: load[k] for k in ("rate_qps", "batch", "t_in", "t_out")}
    named = zip(("layout", "weights", "kv_cache", "engine"), choices, strict=True)
    per_group = np.arange(len(first) + 1)  # equal layouts (formats, engines): one object
    coded = {k: uniques.by_value([*v, None], per_group) for k, v in named}
    limit = np.array([*limits, np.nan], dtype=float)
    return FrameRequests(ok=ok, message=message, **coded, **numbers, max_num_seqs=limit, group=kept)


def _config_keys(config: dict[str, np.ndarray], rows: np.ndarray) -> list[tuple]:
    """The cells of :data:`CONFIG_COLUMNS` of each row of ``rows`` (``config``: those the frame
    gives; none: the empty key of every row) as Python values with their type (``True`` and
    ``1`` are equal, but not the same cell), each blank float the one :data:`_NAN`: equal cells
    give equal keys."""
    if not config:
        return [()] * len(rows)
    columns = [[_cell(c, plain(v)) for v in values[rows].tolist()] for c, values in config.items()]
    return list(zip(*columns, strict=True))


def _cell(column: str, value) -> tuple[str, str, object]:
    """One cell of a :func:`_config_keys` key: its column, its type's name and its value."""
    return column, type(value).__name__, _NAN if checks.is_nan(value) else value


def _checked_once(model, device, key: tuple) -> tuple | str:
    """:func:`_checked`, kept for the next row or call with equal arguments (LLM and GPU by value,
    ``Hashed``); an unhashable key (a list in a cell) is checked afresh (its TypeError raises)."""
    try:
        return _checked(model, device, key)
    except TypeError:
        return _checked.__wrapped__(model, device, key)


@lru_cache(maxsize=CHECKED_CACHED)
def _checked(model, device, key: tuple) -> tuple | str:
    """The layout, served format, KV-cache format, engine and concurrency limit of a row of
    ``model`` on ``device`` with the configuration cells ``key`` (:func:`_config_keys`), as
    :func:`_layout_and_format` checks them, or the message of the first check that fails (a
    broken shipped data file raises). Immutable: shared by every row and call that asks."""
    cells, pair = {c: v for c, _, v in key}, (uniques.unhashed(model), uniques.unhashed(device))
    checked = or_message(_layout_and_format, (*pair, cells))
    if isinstance(checked, str):
        return checked
    # equal layouts of equal field types, equal texts: one object each (hashed once a call)
    layout, *texts, limit = checked
    shared = _LAYOUTS.setdefault((type(layout.tp), layout.tp, type(layout.ep), layout.ep), layout)
    return (shared, *(sys.intern(v) if type(v) is str else v for v in texts), limit)


_LAYOUTS: dict[tuple, Parallel] = {}  # a few: whole tp, ep up to MAX_GPUS, of a few types


def _layout_groups(raw: dict[str, np.ndarray], li: np.ndarray, gi: np.ndarray):
    """Each row's group of equal (LLM, GPU, and cells of :data:`CONFIG_COLUMNS`) and the first
    row of each group, groups in the order of their first rows (``li``, ``gi``: each row's LLM
    and GPU, by identity). Cells are equal when :func:`_key` is."""
    codes = [li * (int(gi.max(initial=0)) + 1) + gi]  # the (LLM, GPU) pairs: one hash pass
    for values in (raw[c] for c in CONFIG_COLUMNS if c in raw):
        if values.dtype.kind in "iuf":  # numbers (NaN: blank); 2.0 and 2 alike, as _key
            codes.append(pd.factorize(values)[0])
        else:
            codes.append(pd.factorize(pd.Series([_key(plain(v)) for v in values]))[0])
    return unique_rows(codes)  # groups by first appearance


def _key(value):
    """A cell as a cache key: its type and value (NaN, which is not equal to itself, as a tag)."""
    return ("blank",) if blank(value) else (type(value).__name__, value)
