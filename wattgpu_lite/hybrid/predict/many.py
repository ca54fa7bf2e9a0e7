"""``wl.predict_many``'s frame, row by row in arrays: resolve → check → build → engine → frame.

    predict_frame(frame, level, model, chunk_rows)   # what wl.predict_many returns

The LLM and GPU columns are resolved once per distinct name and kept as codes
(:class:`~wattgpu_lite.energy.uniques.Coded`); every row is checked
(:func:`~wattgpu_lite.hybrid.predict.frame_checks.frame_requests`); the backbone's configurations
and KV capacities are built once for the valid rows (:func:`backbone_rows.build_once`); the engine
(:func:`steps.predict_arrays`) runs on ``chunk_rows`` valid rows at a time, its columns written
into the output arrays, which become the frame's columns without a copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wattgpu_lite.energy import backbone_rows
from wattgpu_lite.energy.uniques import Coded, narrow, subset, unique_by_identity
from wattgpu_lite.hybrid.predict import intervals, steps
from wattgpu_lite.hybrid.predict.frame_cells import echo_tokens
from wattgpu_lite.hybrid.predict.frame_cells import with_workload as with_workload
from wattgpu_lite.hybrid.predict.frame_checks import FrameRequests, frame_requests
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.result import NUMERIC_COLUMNS, Status, StepResult, messages
from wattgpu_lite.specs.resolve import resolve_each, resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

SERVING = ("kv_cache", "engine", "max_num_seqs")  # the serving columns, passed when given


def predict_frame(
    frame: pd.DataFrame, level: float, model: HybridState, chunk_rows: int
) -> pd.DataFrame:
    """``wl.predict_many(frame)`` for a frame through ``check_columns`` (and
    :func:`with_workload`), a checked ``level`` and the hybrid (or backbone) ``model``;
    ``chunk_rows``: valid rows per engine call. The checked requests are dropped once their
    valid rows are built (:func:`valid_rows`), those once the engine is done and the token
    columns echoed from them (:func:`_valid_tokens`: not held beside the engine's work): only
    the output's arrays grow with the rows."""
    text = {c: text_codes(frame[c]) for c in ("llm", "gpu")}
    llms = resolved(frame["llm"], resolve_llm, text["llm"])
    gpus = resolved(frame["gpu"], resolve_gpu, text["gpu"])
    names = {c: categorical(t[0], t[1]) for c, t in text.items() if t is not None}  # small codes
    del text
    arch = categorical(llms.code, [m.architecture_name for m in llms.distinct])
    req = frame_requests(frame, llms, gpus)
    ok = req.ok
    said = np.flatnonzero(~ok), req.message[~ok]  # the checks' messages, of the rows refused
    valid = valid_rows(req, llms, gpus, [k for k in SERVING if k in frame])
    del req
    llms, gpus = narrow(llms), narrow(gpus)  # held beside the engine's work: int32 codes
    numbers, codes, refused = engine_columns(
        model, llms, gpus, valid, level=level, chunk_rows=chunk_rows
    )
    del llms, gpus
    new = {
        c: echo_tokens(frame, c, default, ok, checked=_valid_tokens(valid, c))
        for c, default in (("t_in", DEFAULT_T_IN), ("t_out", DEFAULT_T_OUT))
    }
    del valid
    new |= numbers | {
        "basis": categorical(codes["basis"], BASIS_NAMES),
        "status": categorical(codes["status"], STATUS_NAMES),
        "message": _messages(len(ok), [said, refused]),
    }
    return _with_columns(frame, {**names, "llm_architecture": arch, **new})


@dataclass(frozen=True)
class Valid:
    """The valid rows of a checked frame, as the engine reads them."""

    idx: np.ndarray  # the valid rows of the frame (int32)
    rate_qps: np.ndarray  # req/s per valid row; NaN in batch mode
    batch: np.ndarray  # sequences per valid row; NaN at a rate
    built: backbone_rows.Built | None  # their configurations and KV capacities (None: no valid row)
    n_rows: int  # the frame's rows, valid or not


def valid_rows(req: FrameRequests, llms: Coded, gpus: Coded, serving: list[str]) -> Valid:
    """The valid rows of ``req`` with their loads and configurations, built once per group of
    the checks (:func:`backbone_rows.build_once`; ``serving``: the serving columns the frame
    gives)."""
    idx = np.flatnonzero(req.ok).astype(np.int32)  # a frame of fewer than 2^31 rows
    built = None
    if len(idx):
        group = req.group[idx]  # the layout, formats and engine: one entry per group
        built = backbone_rows.build_once(
            subset(llms, idx),
            subset(gpus, idx),
            req.t_in[idx],
            req.t_out[idx],
            num_gpus=subset(req.layout, group),
            weights=subset(req.weights, group),
            **{k: _rows(getattr(req, k), group) for k in serving},
            groups=group,
        )
    return Valid(idx, req.rate_qps[idx], req.batch[idx], built, n_rows=len(req.ok))


def _valid_tokens(valid: Valid, col: str) -> np.ndarray:
    """The token column ``col`` ("t_in", "t_out") of the frame's rows as checked on the valid
    ones (their built rows' own), NaN on the others (:func:`echo_tokens` writes those)."""
    out = np.full(valid.n_rows, np.nan)
    if valid.built is not None:
        out[valid.idx] = getattr(valid.built, col)
    return out


def _rows(values: Coded | np.ndarray, idx: np.ndarray) -> Coded | np.ndarray:
    """The rows ``idx`` of a coded column (kept coded) or of an array."""
    return subset(values, idx) if isinstance(values, Coded) else values[idx]


def text_codes(column: pd.Series) -> tuple[np.ndarray, list[str]] | None:
    """A column of text only (no blank, no object) factorised by pandas (no Python loop over the
    rows): each row's code into the distinct texts; None for any other column."""
    if pd.api.types.infer_dtype(column, skipna=False) != "string":
        return None
    code, names = pd.factorize(column, use_na_sentinel=False)
    return code, list(names)


def resolved(column: pd.Series, resolve, text: tuple[np.ndarray, list[str]] | None = None) -> Coded:
    """A column of names (or objects) resolved, each distinct value once (``resolve_each``),
    as codes into the distinct objects. A column of text is factorised by pandas
    (:func:`text_codes`, or ``text`` when the caller has it); objects that are not text are
    keyed by identity."""
    text = text_codes(column) if text is None else text
    if text is not None:
        code, names = text
        objects = resolve_each(names, resolve)
    else:
        objects, code = resolve_each(column.tolist(), resolve), None
    distinct, remap = unique_by_identity(objects)  # two names of one object: one code
    return Coded(distinct, remap if code is None else remap[code])


BASIS_NAMES = ("", *intervals.BASES)  # an invalid row's basis is ""; code k + 1: BASES[k]
STATUS_NAMES = tuple(s.value for s in Status)  # a status's code: its place in Status


def categorical(code: np.ndarray, names: Sequence[str]) -> pd.Categorical:
    """The text ``names[code[i]]`` of each row as a pandas Categorical: the same values (a
    categorical compares with text as its text does), an integer code a row instead of a str;
    its categories the names the rows use, each once, sorted (so it sorts as the text)."""
    used = np.flatnonzero(np.bincount(code, minlength=len(names)))
    categories = sorted({names[k] for k in used})
    place = {name: i for i, name in enumerate(categories)}
    # the codes gathered at once in the width pandas keeps them (int8 below 127 categories, ...)
    width = np.min_scalar_type(-len(categories) - 2)
    remap = np.array([place.get(name, -1) for name in names], dtype=width)
    return pd.Categorical.from_codes(remap[code], categories=categories, validate=False)  # in range


def _messages(n: int, parts: list[tuple[np.ndarray, np.ndarray]]) -> pd.Categorical:
    """The message of each of ``n`` rows as a :func:`categorical`: "" but on the rows of
    ``parts``, each (rows, messages as an object array), factorised on those rows alone (a
    hash table of them, not of every row): of their distinct objects by identity first (a
    message made once is shared by the rows it names), then of those by text."""
    rows = np.concatenate([p[0] for p in parts])
    distinct, by_object = unique_by_identity(np.concatenate([p[1] for p in parts]))
    code, names = pd.factorize(np.array(distinct, dtype=object))
    whole = np.zeros(n, dtype=np.int64)  # 0: ""
    whole[rows] = code[by_object] + 1
    return categorical(whole, ["", *names])


def engine_columns(
    model: HybridState,
    llms: Coded,
    gpus: Coded,
    valid: Valid,
    *,
    level: float,
    chunk_rows: int,
) -> tuple[dict, dict, tuple[np.ndarray, np.ndarray]]:
    """The result's columns of every row: :data:`NUMERIC_COLUMNS`, and the codes of the basis
    and status (into :data:`BASIS_NAMES` and :data:`STATUS_NAMES`): the valid rows through the
    engine, ``chunk_rows`` at a time (an invalid row keeps NaN, basis "" and its status); and
    the (rows, messages) of the rows the engine refuses (:func:`_refused_messages`)."""
    n = valid.n_rows
    keep = {k: np.full(n, np.nan) for k in NUMERIC_COLUMNS}
    codes = {
        "basis": np.zeros(n, dtype=np.int8),
        "status": np.full(n, STATUS_NAMES.index(Status.INVALID.value), dtype=np.int8),
    }
    for s in range(0, len(valid.idx), chunk_rows):
        part, mine = valid.idx[s : s + chunk_rows], slice(s, s + chunk_rows)
        rows, cap = valid.built.rows(mine)
        rate_qps, batch = valid.rate_qps[mine], valid.batch[mine]
        chunk = {"t_out": rows.t_out, "rate_qps": rate_qps, "batch": batch, "built": (rows, cap)}
        models, devices = subset(llms, part), subset(gpus, part)
        out = steps.predict_arrays(model, models, devices, rows.t_in, **chunk, level=level)
        _fill(keep, codes, out, part=part)
    refused = _refused_messages(keep, codes["status"], valid=valid, names=(llms, gpus))
    return keep, codes, refused


def _fill(
    keep: dict[str, np.ndarray], codes: dict[str, np.ndarray], out: StepResult, *, part: np.ndarray
) -> None:
    """Rows ``part`` of the numeric columns ``keep`` and of the basis and status ``codes``
    (:data:`BASIS_NAMES`, :data:`STATUS_NAMES`) from the engine's result ``out``."""
    part = part.astype(np.intp)  # numpy scatters by intp indices ~3x faster than by int32
    for k in NUMERIC_COLUMNS:
        keep[k][part] = getattr(out, k)
    codes["basis"][part] = out.basis_code + 1
    codes["status"][part] = STATUS_NAMES.index(Status.OK.value)
    bad = np.flatnonzero(out.status != Status.OK)
    rows, status = part[bad], out.status[bad]
    for k, s in enumerate(Status):
        codes["status"][rows[status == s]] = k


_STATUSES = np.array(list(Status), dtype=object)  # a status code's member


def _refused_messages(
    keep: dict, status: np.ndarray, *, valid: Valid, names: tuple[Coded, Coded]
) -> tuple[np.ndarray, np.ndarray]:
    """(rows, messages) of the rows the engine does not answer (their ``status`` codes neither
    OK nor invalid): :func:`messages` of all of them at once (each distinct text made once for
    every chunk), from the columns filled (``keep``: the capacity and KV sequences), the valid
    rows' loads and the LLMs' and GPUs' names (``names``)."""
    ok_or_invalid = [STATUS_NAMES.index(s.value) for s in (Status.OK, Status.INVALID)]
    rows = np.flatnonzero(~np.isin(status, ok_or_invalid))
    if not len(rows):
        return rows, np.empty(0, dtype=object)
    at = np.searchsorted(valid.idx, rows)  # the rows' places among the valid ones
    llm, gpu = (np.array([o.name for o in x.distinct], dtype=object)[x.code[rows]] for x in names)
    limits = {k: keep[k][rows] for k in ("max_batch", "capacity_qps")}
    load = (valid.rate_qps[at], valid.batch[at])
    return rows, messages(_STATUSES[status[rows]], llm, gpu, load[0], batch=load[1], **limits)


def _with_columns(frame: pd.DataFrame, new: dict) -> pd.DataFrame:
    """``frame.reset_index(drop=True).assign(**new)`` without copying the new arrays into blocks
    (about 250 MB at 10^6 rows): the frame's columns (each copied, those replaced not at all: the
    result never shares the caller's data) in their places, those in ``new`` replaced, then the rest of ``new`` in order."""
    base = frame.reset_index(drop=True)
    columns = {c: new[c] if c in new else base[c].copy() for c in base.columns}
    columns |= {c: v for c, v in new.items() if c not in columns}
    return pd.DataFrame(columns, copy=False)
