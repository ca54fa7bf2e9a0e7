"""``wl.predict_many``'s frame, row by row in arrays: resolve → check → build → engine → frame.

    predict_frame(frame, level, model, rows=(block, chunk), columns=...)   # wl.predict_many's

The LLM and GPU columns are resolved once per distinct name and kept as codes
(:class:`~wattgpu_lite.energy.uniques.Coded`); then the frame goes through in blocks of rows:
each block's rows are checked (:func:`~wattgpu_lite.hybrid.predict.frame_checks.frame_requests`),
its valid rows' configurations and KV capacities built once (:func:`row_arrays.build_once`)
and sent through the engine (:func:`steps.predict_arrays`) a chunk at a time, the columns
written into the output arrays, which become the frame's columns without a copy: the memory a
block holds does not grow with the frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.energy.uniques import Coded, narrow, subset, unique_by_identity
from wattgpu_lite.hybrid.predict import intervals, steps
from wattgpu_lite.hybrid.predict.frame_cells import categorical, echo_tokens, resolved, text_codes
from wattgpu_lite.hybrid.predict.frame_checks import FrameRequests, frame_requests
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.result import ITL_FROM, Status, StepResult, messages
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

SERVING = ("kv_cache", "engine", "max_num_seqs")  # the serving columns, passed when given


def predict_frame(
    frame: pd.DataFrame, level: float, model: HybridState, *, rows: tuple[int, int], columns: tuple
) -> pd.DataFrame:
    """``wl.predict_many(frame)`` for a frame through ``check_columns`` (and
    :func:`with_workload`), a checked ``level`` and the hybrid (or backbone) ``model``;
    ``columns``: the numeric columns returned (checked). The names are resolved once for the
    whole frame; then each block of ``rows[0]`` rows is checked, built and sent through the
    engine ``rows[1]`` valid rows at a time (:func:`predict_block`): what a block holds is
    dropped before the next, and only the output's arrays grow with the rows."""
    text = {c: text_codes(frame[c]) for c in ("llm", "gpu")}
    llms = resolved(frame["llm"], resolve_llm, text["llm"])
    gpus = resolved(frame["gpu"], resolve_gpu, text["gpu"])
    names = {c: categorical(t[0], t[1]) for c, t in text.items() if t is not None}  # small codes
    del text
    arch = categorical(llms.code, [m.architecture_name for m in llms.distinct])
    llms, gpus = narrow(llms), narrow(gpus)  # held beside the engine's work: int32 codes
    out = Output.empty(len(frame), columns)
    serving = [k for k in SERVING if k in frame]
    for start in range(0, len(frame), rows[0]):
        part = slice(start, start + rows[0])
        block = Block(frame.iloc[part], subset(llms, part), subset(gpus, part), start)
        predict_block(model, block, out, level=level, serving=serving, chunk_rows=rows[1])
    refused = _refused_messages(out.refused, names=(llms, gpus))
    del llms, gpus
    new = {**out.tokens, **out.numbers}
    new |= {k: categorical(out.codes[k], names) for k, names in CODED.items()}
    new |= {
        "status": categorical(out.status, STATUS_NAMES),
        "message": _messages(len(frame), [*out.said, refused]),
    }
    return _with_columns(frame, {**names, "llm_architecture": arch, **new})


@dataclass(frozen=True)
class Output:
    """predict_many's columns of every row, filled block by block (:func:`predict_block`)."""

    numbers: dict[str, np.ndarray]  # the numeric result columns asked for (NaN: not answered)
    tokens: dict[str, np.ndarray]  # t_in and t_out as checked (valid rows) or as given
    codes: dict[str, np.ndarray]  # int8 codes of the coded text columns into CODED's names
    status: np.ndarray  # int8 codes into STATUS_NAMES
    said: list[tuple[np.ndarray, np.ndarray]]  # (rows, messages) of the rows the checks refuse
    refused: list[dict[str, np.ndarray]]  # what the messages of the rows the engine refuses name

    @classmethod
    def empty(cls, n: int, columns: tuple[str, ...]) -> Output:
        """``n`` rows not answered yet: NaN values, coded columns "", status "invalid input"."""
        invalid = STATUS_NAMES.index(Status.INVALID.value)
        return cls(
            numbers={k: np.full(n, np.nan) for k in columns},
            tokens={k: np.full(n, np.nan) for k in ("t_in", "t_out")},
            codes={k: np.zeros(n, dtype=np.int8) for k in CODED},
            status=np.full(n, invalid, dtype=np.int8),
            said=[],
            refused=[],
        )


@dataclass(frozen=True)
class Block:
    """A block of the frame's rows: its cells, its resolved LLMs and GPUs, its first row."""

    frame: pd.DataFrame
    llms: Coded
    gpus: Coded
    start: int  # the block's first row in the whole frame


def predict_block(
    model: HybridState,
    block: Block,
    out: Output,
    *,
    level: float,
    serving: list[str],
    chunk_rows: int,
) -> None:
    """The rows of ``block`` checked (:func:`frame_requests`), their valid rows built
    (:func:`valid_rows`, with the ``serving`` columns the frame gives) and sent through the
    engine ``chunk_rows`` at a time (:func:`steps.predict_arrays`), written into ``out`` at the
    block's rows (:func:`_fill`; the token counts, the messages of the rows refused)."""
    req = frame_requests(block.frame, block.llms, block.gpus)
    ok, at = req.ok, block.start
    out.said.append((np.flatnonzero(~ok) + at, req.message[~ok]))  # the checks' messages
    valid = valid_rows(req, block.llms, block.gpus, serving)
    del req
    for s in range(0, len(valid.idx), chunk_rows):
        part, mine = valid.idx[s : s + chunk_rows], slice(s, s + chunk_rows)
        rows, cap = valid.built.rows(mine)
        loads = {"rate_qps": valid.rate_qps[mine], "batch": valid.batch[mine], "built": (rows, cap)}
        models, devices = subset(block.llms, part), subset(block.gpus, part)
        result = steps.predict_arrays(
            model, models, devices, rows.t_in, t_out=rows.t_out, **loads, level=level
        )
        said = _fill(out, result, part=part + at)
        mine = part[said]  # the refused rows' places in the block
        out.refused.append({
            "rows": mine + at, "status": result.status[said],
            "llm": block.llms.code[mine], "gpu": block.gpus.code[mine],
            "rate_qps": loads["rate_qps"][said], "batch": loads["batch"][said],
            "max_batch": result.max_batch[said], "capacity_qps": result.capacity_qps[said],
        })  # fmt: skip
    for c, default in (("t_in", DEFAULT_T_IN), ("t_out", DEFAULT_T_OUT)):
        checked = _valid_tokens(valid, c)
        out.tokens[c][at : at + len(ok)] = echo_tokens(block.frame, c, default, ok, checked=checked)


@dataclass(frozen=True)
class Valid:
    """The valid rows of a checked frame, as the engine reads them."""

    idx: np.ndarray  # the valid rows of the frame (int32)
    rate_qps: np.ndarray  # req/s per valid row; NaN in batch mode
    batch: np.ndarray  # sequences per valid row; NaN at a rate
    built: row_arrays.Built | None  # their configurations and KV capacities (None: no valid row)
    n_rows: int  # the frame's rows, valid or not


def valid_rows(req: FrameRequests, llms: Coded, gpus: Coded, serving: list[str]) -> Valid:
    """The valid rows of ``req`` with their loads and configurations, built once per group of
    the checks (:func:`row_arrays.build_once`; ``serving``: the serving columns the frame
    gives)."""
    idx = np.flatnonzero(req.ok).astype(np.int32)  # a frame of fewer than 2^31 rows
    built = None
    if len(idx):
        group = req.group[idx]  # the layout, formats and engine: one entry per group
        built = row_arrays.build_once(
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


# the text columns kept as codes (an invalid row's: ""); a basis's code k + 1 is BASES[k]
CODED = {"basis": ("", *intervals.BASES), "itl_interval_from": ITL_FROM}
STATUS_NAMES = tuple(s.value for s in Status)  # a status's code: its place in Status


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


def _fill(out: Output, result: StepResult, *, part: np.ndarray) -> np.ndarray:
    """Rows ``part`` of the numeric columns, coded columns and status of ``out`` from the engine's
    ``result``; returns the places in ``result`` of the rows it refuses (neither OK nor
    invalid), whose messages name them."""
    part = part.astype(np.intp)  # numpy scatters by intp indices ~3x faster than by int32
    for k, column in out.numbers.items():
        column[part] = getattr(result, k)
    out.codes["basis"][part] = result.basis_code + 1
    out.codes["itl_interval_from"][part] = result.itl_interval_codes()
    out.status[part] = STATUS_NAMES.index(Status.OK.value)
    bad = np.flatnonzero(result.status != Status.OK)
    status = result.status[bad]
    for k, s in enumerate(Status):
        out.status[part[bad[status == s]]] = k
    return bad[status != Status.INVALID]


def _refused_messages(
    refused: list[dict[str, np.ndarray]], *, names: tuple[Coded, Coded]
) -> tuple[np.ndarray, np.ndarray]:
    """(rows, messages) of the rows the engine does not answer, from what each chunk kept of
    them (``refused``: their rows, statuses, LLM and GPU codes into ``names``, loads, capacity
    and KV sequences): :func:`messages` of all of them at once (each distinct text made once)."""
    if not refused:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=object)
    kept = {k: np.concatenate([r[k] for r in refused]) for k in refused[0]}
    llm, gpu = (
        np.array([o.name for o in x.distinct], dtype=object)[kept[k]]
        for x, k in zip(names, ("llm", "gpu"), strict=True)
    )
    limits = {k: kept[k] for k in ("max_batch", "capacity_qps")}
    said = messages(kept["status"], llm, gpu, kept["rate_qps"], batch=kept["batch"], **limits)
    return kept["rows"], said


def _with_columns(frame: pd.DataFrame, new: dict) -> pd.DataFrame:
    """``frame.assign(**new)`` without copying the new arrays into blocks (about 250 MB at 10^6
    rows): the frame's index and columns (each copied, those replaced not at all: the result never
    shares the caller's data) in their places, those in ``new`` replaced, then the rest of ``new``
    in order. The index is the caller's, so ``sub["p"] = predict_many(sub)["power_w"]`` aligns."""
    base = frame.reset_index(drop=True)
    columns = {c: new[c] if c in new else base[c].copy() for c in base.columns}
    columns |= {c: v for c, v in new.items() if c not in columns}
    out = pd.DataFrame(columns, copy=False)
    out.index = frame.index.copy()  # set, not aligned: a repeated label stays where it was
    return out
