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

from dataclasses import dataclass

import numpy as np
import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.energy import backbone_rows
from wattgpu_lite.energy.uniques import Coded, subset, unique_by_identity
from wattgpu_lite.hybrid.predict import intervals, steps
from wattgpu_lite.hybrid.predict.frame_checks import FrameRequests, frame_requests
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.result import NUMERIC_COLUMNS, Status, StepResult, messages
from wattgpu_lite.specs.resolve import resolve_each, resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT, workload

SERVING = ("kv_cache", "engine", "max_num_seqs")  # the serving columns, passed when given


def predict_frame(frame: pd.DataFrame, level: float, model: HybridState,
                  chunk_rows: int) -> pd.DataFrame:  # fmt: skip
    """``wl.predict_many(frame)`` for a frame through ``check_columns`` (and
    :func:`with_workload`), a checked ``level`` and the hybrid (or backbone) ``model``;
    ``chunk_rows``: valid rows per engine call. The checked requests are dropped once their
    valid rows are built (:func:`valid_rows`): only the output's arrays grow with the rows."""
    llms, gpus = resolved(frame["llm"], resolve_llm), resolved(frame["gpu"], resolve_gpu)
    req = frame_requests(frame, llms, gpus)
    new = {"t_in": _echo(frame, "t_in", DEFAULT_T_IN, req.ok, req.t_in),
           "t_out": _echo(frame, "t_out", DEFAULT_T_OUT, req.ok, req.t_out)}  # fmt: skip
    valid, message = valid_rows(req, llms, gpus, [k for k in SERVING if k in frame]), req.message
    del req
    new |= engine_columns(model, llms, gpus, valid, message, level, chunk_rows)
    arch = np.array([m.architecture_name for m in llms.distinct], dtype=object)[llms.code]
    return _with_columns(frame, {"llm_architecture": arch, **new})


@dataclass(frozen=True)
class Valid:
    """The valid rows of a checked frame, as the engine reads them."""

    idx: np.ndarray  # the valid rows of the frame
    rate_qps: np.ndarray  # req/s per valid row; NaN in batch mode
    batch: np.ndarray  # sequences per valid row; NaN at a rate
    built: backbone_rows.Built | None  # their configurations and KV capacities (None: no valid row)


def valid_rows(req: FrameRequests, llms: Coded, gpus: Coded, serving: list[str]) -> Valid:
    """The valid rows of ``req`` with their loads and configurations, built once
    (:func:`backbone_rows.build_once`; ``serving``: the serving columns the frame gives)."""
    idx = np.flatnonzero(req.ok)
    built = None
    if len(idx):
        built = backbone_rows.build_once(
            subset(llms, idx),
            subset(gpus, idx),
            req.t_in[idx],
            req.t_out[idx],
            subset(req.layout, idx),
            subset(req.weights, idx),
            **{k: _rows(getattr(req, k), idx) for k in serving},
        )
    return Valid(idx, req.rate_qps[idx], req.batch[idx], built)


def _rows(values: Coded | np.ndarray, idx: np.ndarray) -> Coded | np.ndarray:
    """The rows ``idx`` of a coded column (kept coded) or of an array."""
    return subset(values, idx) if isinstance(values, Coded) else values[idx]


def resolved(column: pd.Series, resolve) -> Coded:
    """A column of names (or objects) resolved, each distinct value once (``resolve_each``),
    as codes into the distinct objects. A column of text is factorised by pandas (no Python
    loop over the rows); objects that are not text are keyed by identity."""
    if pd.api.types.infer_dtype(column, skipna=False) == "string":
        code, names = pd.factorize(column, use_na_sentinel=False)
        objects = resolve_each(list(names), resolve)
    else:
        objects, code = resolve_each(column.tolist(), resolve), None
    distinct, remap = unique_by_identity(objects)  # two names of one object: one code
    return Coded(distinct, remap if code is None else remap[code])


def engine_columns(model: HybridState, llms: Coded, gpus: Coded, valid: Valid,
                   message: np.ndarray, level: float, chunk_rows: int) -> dict[str, np.ndarray]:  # fmt: skip
    """The result's columns (:data:`NUMERIC_COLUMNS`, basis, status, message) of every row: the
    valid rows through the engine, ``chunk_rows`` at a time; an invalid row keeps NaN, its
    status and its check's ``message`` (filled in place for the others)."""
    n = len(message)
    keep = {k: np.full(n, np.nan) for k in NUMERIC_COLUMNS}
    keep |= {"basis": _filled(n, ""), "status": _filled(n, Status.INVALID.value),
             "message": message}  # fmt: skip
    for s in range(0, len(valid.idx), chunk_rows):
        part, mine = valid.idx[s : s + chunk_rows], slice(s, s + chunk_rows)
        rows, cap = valid.built.rows(mine)
        out = steps.predict_arrays(
            model,
            subset(llms, part),
            subset(gpus, part),
            rows.t_in,
            rows.t_out,
            valid.rate_qps[mine],
            valid.batch[mine],
            level,
            built=(rows, cap),
        )
        _fill(keep, out, part, llms, gpus, (valid.rate_qps[mine], valid.batch[mine]))
    return keep


def _filled(n: int, text: str) -> np.ndarray:
    """An object array of ``n`` references to one ``text`` (``np.full`` makes a new str per
    cell: 70 bytes each)."""
    out = np.empty(n, dtype=object)
    out.fill(text)
    return out


def _shared(basis: np.ndarray) -> np.ndarray:
    """The basis (numpy text) as objects, one str per basis (not one per cell)."""
    return np.array(intervals.BASES, dtype=object)[intervals.basis_codes(basis)]


def _fill(keep: dict[str, np.ndarray], out: StepResult, part: np.ndarray, llms: Coded,
          gpus: Coded, load: tuple[np.ndarray, np.ndarray]) -> None:  # fmt: skip
    """Rows ``part`` of the columns ``keep`` from the engine's result ``out`` (``load``: their
    rates and batches); a row that is not OK gets its status's message ("" when OK)."""
    for k, v in out.columns().items():
        keep[k][part] = _shared(v) if k == "basis" else v
    bad = np.flatnonzero(out.status != Status.OK)
    if len(bad):
        rows = part[bad]
        names = (np.array([o.name for o in x.distinct], dtype=object)[x.code[rows]]
                 for x in (llms, gpus))  # fmt: skip
        keep["message"][rows] = messages(out.status[bad], *names, load[0][bad], load[1][bad],
                                         out.max_batch[bad], out.capacity_qps[bad])  # fmt: skip


def with_workload(frame: pd.DataFrame, name: str | None) -> pd.DataFrame:
    """``frame`` with the named workload's ``t_in`` and ``t_out`` as the columns it lacks (a
    column given, even with blanks, is kept as given: a blank cell is invalid, as without)."""
    if name is None:
        return frame
    chosen = workload(name)
    missing = {c: getattr(chosen, c) for c in ("t_in", "t_out") if c not in frame}
    return frame.assign(**missing) if missing else frame


def _with_columns(frame: pd.DataFrame, new: dict) -> pd.DataFrame:
    """``frame.reset_index(drop=True).assign(**new)`` without copying the new arrays into blocks
    (about 250 MB at 10^6 rows): the frame's columns (each copied, those replaced not at all: the
    result never shares the caller's data) in their places, those in ``new`` replaced, then the rest of ``new`` in order."""
    base = frame.reset_index(drop=True)
    columns = {c: new[c] if c in new else base[c].copy() for c in base.columns}
    columns |= {c: v for c, v in new.items() if c not in columns}
    return pd.DataFrame(columns, copy=False)


def _echo(frame: pd.DataFrame, col: str, default, ok: np.ndarray, checked: np.ndarray):
    """The token counts as checked (valid rows) or as given (invalid rows; NaN if not a number)."""
    given = frame[col].to_numpy() if col in frame else np.full(len(frame), default)
    out = checked.copy()
    for i in np.flatnonzero(~ok):
        out[i] = _as_float(given[i])
    return out


def _as_float(value) -> float:
    return float(value) if checks.is_real(value) else np.nan
