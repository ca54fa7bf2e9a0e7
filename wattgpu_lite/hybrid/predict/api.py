"""``wl.predict`` and ``wl.predict_many``: power, ITL and energy per token at any workload.

    wl.predict(llm, gpu, rate_qps=0.1)                      # Poisson arrivals (server)
    wl.predict(llm, gpu, batch=64, t_in=500, t_out=300)     # a fixed batch (offline)
    wl.predict(llm, gpu, scenario="server_low")             # a Watt Counts scenario's load
    wl.predict_many(frame)                                   # one row per (llm, gpu, load, tokens)

Token counts default to the Watt Counts request (``specs.workload``: 15 in, 180 out) and are echoed
in every result. The calibrated hybrid (backbone + bounded correction) answers for dense 16-bit
models on one GPU; anything else gets the backbone alone with wider, "physics" intervals.
"""

from __future__ import annotations

import math

import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.energy.notes import layout_notes, serving_notes, weights_notes
from wattgpu_lite.energy.request import Request, check_request
from wattgpu_lite.errors import CapacityError, InvalidInputError
from wattgpu_lite.hybrid.predict import interval_steps, intervals, one_config, steps
from wattgpu_lite.hybrid.predict.frame_cells import with_workload
from wattgpu_lite.hybrid.predict.many import predict_frame
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.prediction import Inputs, Prediction, prediction_of
from wattgpu_lite.hybrid.predict.result import NUMERIC_COLUMNS, Status, StepResult
from wattgpu_lite.specs.frame import check_columns, check_result_columns
from wattgpu_lite.specs.layout import Parallel
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

CHUNK_ROWS = 32_768  # rows predict_many sends to the engine at a time (~0.1 GB of work arrays)
BLOCK_ROWS = 4 * CHUNK_ROWS  # rows it checks and builds at a time (~20 MB held above the output)
DEFAULT_LEVEL = 0.8


def predict(
    llm,
    gpu,
    *,
    rate_qps: float | None = None,
    batch: float | None = None,
    scenario: str | None = None,
    t_in: int = DEFAULT_T_IN,
    t_out: int = DEFAULT_T_OUT,
    level: float = DEFAULT_LEVEL,
    num_gpus: int = 1,
    weights: str | None = None,
    parallel: Parallel | None = None,
    kv_cache: str | None = None,
    engine: str | None = None,
    max_num_seqs: int | None = None,
    correction: bool = True,
    model: HybridState | None = None,
) -> Prediction:
    """Power, per-request ITL, time per token and energy per token of ``llm`` on ``gpu``.

    ``llm``: a catalog name, an LLM, a config.json path or dict; ``gpu``: a catalog name, a GPU,
    a spec dict or JSON path. One load: ``rate_qps`` (Poisson arrivals), ``batch`` (sequences
    decoded together) or ``scenario`` (a Watt Counts load). ``num_gpus``: GPUs in one replica
    (tensor parallel; power and energy are the replica's), or ``parallel``: the replica's layout,
    ``wl.Parallel(tp=4)``, ``wl.Parallel(ep=8)`` (experts over 8 GPUs, data-parallel attention);
    ``weights``: the served weight format (None: the LLM's own); ``kv_cache``: the KV cache's
    format, "auto" (None: the model's 16-bit dtype), "bf16", "fp16" or "fp8" (half the KV bytes
    per token, twice the tokens held); ``engine``: "vllm" (None, the default), "sglang" or
    "tensorrt-llm", whose documented defaults (concurrency limit, memory share) are used
    (data/engines.csv); ``max_num_seqs``: the engine's concurrency limit (None: its default,
    vLLM's 256): the sequences in flight are min(KV capacity, max_num_seqs, the load);
    ``correction=False``: the physics backbone alone (basis "physics"); ``model``: the
    :class:`HybridState` to predict with (None: the shipped one, ``HybridState.pretrained()``).
    Raises CapacityError when the load is beyond what one replica can serve (the message says
    the capacity).
    """
    state = _state(model)  # before ``model`` names the LLM
    req = check_request(
        resolve_llm(llm),
        resolve_gpu(gpu),
        num_gpus=num_gpus,
        parallel=parallel,
        weights=weights,
        scenario=scenario,
        rate_qps=rate_qps,
        batch=batch,
        t_in=t_in,
        t_out=t_out,
        kv_cache=kv_cache,
        engine=engine,
        max_num_seqs=max_num_seqs,
        level=level,
    )
    return predict_request(req, state, correction=correction)[0]


def predict_request(
    req: Request, state: HybridState, *, correction: bool = True
) -> tuple[Prediction, StepResult]:
    """``wl.predict`` of a checked request (:func:`check_request`, ``level`` given) by the hybrid
    ``state`` (its backbone alone with ``correction=False``), and the chain's result it is row 0
    of (``wl.explain`` reads the rest of it)."""
    hybrid, model, device, layout = _model(correction, state), req.llm, req.gpu, req.layout
    fmt, rate, t_in, t_out, level = req.weights, req.rate_qps, req.t_in, req.t_out, req.level
    deploy = {"num_gpus": layout, "weights": [fmt], **req.serving_args()}
    built = one_config.built_at(model, device, t_in, t_out, **deploy)  # its kept row, its tokens
    bat = req.batch_at(built[1])
    out = steps.predict_arrays(
        hybrid,
        [model],
        [device],
        t_in,
        t_out=t_out,
        rate_qps=rate,
        batch=bat,
        level=level,
        built=built,
        **deploy,
    )
    _raise_for_status(out, req, batch=bat)
    inputs = Inputs(
        model.name,
        device.name,
        t_in,
        t_out,
        rate_qps=None if math.isnan(rate) else rate,
        batch=None if math.isnan(bat) else bat,
        level=level,
        num_gpus=layout.num_gpus,
        weights=fmt,
        llm_architecture=model.architecture_name,
        tp=layout.tp,
        ep=layout.ep,
    )
    deployment = layout_notes(model, device, layout, fmt)  # the estimate's words, no full stop
    notes = _notes(state, out, 0) + tuple(n.rstrip(".") for n in deployment)
    notes += weights_notes(model, req.weights_asked) + serving_notes(req.kv_cache, req.engine)
    return prediction_of(out, 0, inputs, notes), out


def _state(model: HybridState | None) -> HybridState:
    """The hybrid to predict with: ``model``, or the shipped one when None."""
    if model is None:
        return HybridState.pretrained()
    if not isinstance(model, HybridState):
        raise InvalidInputError(f"model must be a HybridState or None, got {type(model).__name__}")
    return model


def _model(correction: bool, state: HybridState) -> HybridState:
    """``state`` (:func:`_state`), or its backbone alone."""
    if not isinstance(correction, bool):
        raise InvalidInputError(f"correction must be True or False, got {correction!r}")
    return state if correction else state.backbone_only()


def _raise_for_status(out: StepResult, req: Request, *, batch: float) -> None:
    """CapacityError when row 0 is not OK, its status's message (at ``batch``, the batch row 0
    ran at) with the request's hint (``Request.fitting_hint``, asked only for a model that does
    not fit) when that gives one."""
    status = Status(out.status[0])
    if status is Status.OK:  # no message ("" for OK): nothing to raise
        return
    held = {"max_batch": float(out.max_batch[0]), "capacity_qps": float(out.capacity_qps[0])}
    message = status.message(req.llm.name, req.gpu.name, req.rate_qps, batch, **held)
    hint = req.fitting_hint() if message and status is Status.NO_FIT else ""
    if hint:
        message = message.replace("; pick a GPU", f"; {hint}, or pick a GPU", 1)
    if message:
        raise CapacityError(message)


def _notes(model: HybridState, out: StepResult, i: int) -> tuple[str, ...]:
    """Row ``i``'s notes: inputs beyond the training range, and the floor when it holds the ITL."""
    crossed = bool(out.cell[i] >= 0)  # the ITL interval is other harnesses' errors, not widened
    notes = tuple(intervals.notes_for(model, out.watched, i, interval_steps.WIDENED[crossed]))
    if crossed:
        notes += (interval_steps.cell_note(model, int(out.cell[i])),)
    if out.itl_s[i] <= out.itl_floor_s[i] * (1 + 1e-12):
        notes += (
            f"ITL held at the physical floor {1e3 * out.itl_floor_s[i]:.4g} ms (bytes per "
            "step / peak bandwidth, FLOPs per step / peak FLOP/s): the correction would "
            "have gone below it",
        )
    return notes


def predict_many(
    frame: pd.DataFrame,
    level: float = DEFAULT_LEVEL,
    correction: bool = True,
    workload: str | None = None,
    model: HybridState | None = None,
    *,
    columns: str | list[str] | None = None,
) -> pd.DataFrame:
    """One output row per input row of ``frame`` (columns ``llm``, ``gpu``, and any of
    ``rate_qps``, ``batch`` — one per row, the other empty — ``t_in``, ``t_out``, ``num_gpus``,
    or ``tp`` and ``ep`` (a :class:`Parallel` per row), ``weights`` (blank: the LLM's own),
    ``kv_cache`` (blank: "auto"), ``engine`` (blank: "vllm"), ``max_num_seqs`` (blank: the
    engine's default)).

    Every row goes through the checks of ``wl.predict`` (:func:`~wattgpu_lite.energy.request.check_request`).
    Returns the inputs with power_w, itl_s, time_per_token_s, energy_per_token_j (each with _lo
    and _hi), in_flight, capacity_qps, basis, ``itl_interval_from`` (whose errors the ITL
    interval spreads: 'the runs', 'other harnesses'; '' without one), ``status`` ('ok',
    'saturated', 'does not fit in memory', 'invalid input', ...) and ``message`` (what is wrong
    and what to pass; "" when 'ok'); rows that are not 'ok' carry NaN values, never an
    exception. Its text columns (llm_architecture, basis, itl_interval_from, status, message,
    and llm and gpu when given as text) are pandas categoricals: the same text (a comparison
    with a str works as on text), a small code a row, their categories sorted. A blank cell of
    a numeric column is invalid (a blank ``rate_qps`` or ``batch`` means the other load). Only
    the frame itself raises: InvalidInputError when it is not a DataFrame, is empty, lacks
    ``llm`` or ``gpu`` or holds text in a numeric column; UnknownLLMError/UnknownGPUError for a name no
    catalog knows. ``correction=False``: the physics backbone alone, as in ``wl.predict``.
    ``workload``: the named workload (data/workloads.csv) whose counts fill a ``t_in`` or
    ``t_out`` column the frame lacks (default: watt-counts, 15 in and 180 out). ``model``: the
    :class:`HybridState` to predict with (None: the shipped one), as in ``wl.predict``.
    ``columns``: the numeric result columns returned (None: all, ~0.2 GB at 10^6 rows).
    """
    check_columns(frame)
    kept, frame = check_result_columns(columns, NUMERIC_COLUMNS), with_workload(frame, workload)
    hybrid, rows = _model(correction, _state(model)), (BLOCK_ROWS, CHUNK_ROWS)
    return predict_frame(frame, checks.check_level(level), hybrid, rows=rows, columns=kept)
