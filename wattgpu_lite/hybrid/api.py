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

import numpy as np
import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.energy import backbone_rows as R
from wattgpu_lite.energy.backbone_runs import OFFLINE_PROMPTS
from wattgpu_lite.errors import CapacityError, InvalidInputError
from wattgpu_lite.hybrid import engine as E
from wattgpu_lite.hybrid.model import HybridModel
from wattgpu_lite.hybrid.prediction import Inputs, Interval, Prediction
from wattgpu_lite.hybrid.row_checks import (
    MAX_GPUS,
    Request,
    check_columns,
    check_num_gpus,
    check_request,
    frame_requests,
    resolve_load,
)
from wattgpu_lite.runs.schema import scenario_for_rate
from wattgpu_lite.specs.layout import Parallel
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

__all__ = ["MAX_GPUS", "check_level", "check_num_gpus", "predict", "predict_many",
           "resolve_load"]  # fmt: skip
INVALID = "invalid input"
CHUNK_ROWS = 32_768  # rows predict_many sends to the engine at a time (~0.1 GB of work arrays)
DEFAULT_LEVEL = 0.8


def check_level(level) -> float:
    """A coverage level in [0.5, 0.999] (:func:`wattgpu_lite.checks.check_level`)."""
    return checks.check_level(level)


def predict(llm, gpu, *, rate_qps: float | None = None, batch: float | None = None,
            scenario: str | None = None, t_in: int = DEFAULT_T_IN, t_out: int = DEFAULT_T_OUT,
            level: float = DEFAULT_LEVEL, num_gpus: int = 1,
            weights: str | None = None, parallel: Parallel | None = None,
            correction: bool = True) -> Prediction:  # fmt: skip
    """Power, per-request ITL, time per token and energy per token of ``llm`` on ``gpu``.

    ``llm``: a catalog name, an LLM, a config.json path or dict; ``gpu``: a catalog name, a GPU,
    a spec dict or JSON path. One load: ``rate_qps`` (Poisson arrivals), ``batch`` (sequences
    decoded together) or ``scenario`` (a Watt Counts load). ``num_gpus``: GPUs in one replica
    (tensor parallel; power and energy are the replica's), or ``parallel``: the replica's layout,
    ``wl.Parallel(tp=4)``, ``wl.Parallel(ep=8)`` (experts over 8 GPUs, data-parallel attention);
    ``weights``: the served weight format (None: the LLM's own); ``correction=False``: the
    physics backbone alone (basis "physics"). Raises CapacityError when the load is beyond what
    one replica can serve (the message says the capacity).
    """
    model, device = resolve_llm(llm), resolve_gpu(gpu)
    req = check_request(model, device, num_gpus=num_gpus, parallel=parallel, weights=weights,
                        scenario=scenario, rate_qps=rate_qps, batch=batch, t_in=t_in,
                        t_out=t_out)  # fmt: skip
    layout, fmt, rate, bat, offline = req.layout, req.weights, req.rate_qps, req.batch, req.offline
    t_in, t_out = req.t_in, req.t_out
    level = check_level(level)
    deploy = {"num_gpus": layout, "weights": [fmt]}
    if offline:
        _, cap = R.build([model], [device], t_in, t_out, **deploy)
        bat = float(R.offline_in_flight(cap, OFFLINE_PROMPTS)[0])
    out = E.predict_arrays(_model(correction), [model], [device], t_in, t_out, rate, bat, level,
                           **deploy)  # fmt: skip
    _raise_for_status(out, model.name, device.name, rate, bat)
    inputs = Inputs(model.name, device.name, t_in, t_out, None if math.isnan(rate) else rate,
                    None if math.isnan(bat) else bat, level, layout.num_gpus, fmt,
                    model.architecture_name, layout.tp, layout.ep)  # fmt: skip
    return _record(HybridModel.pretrained(), out, 0, inputs, [model], [device])


def _model(correction: bool) -> HybridModel:
    """The shipped hybrid, or its backbone alone."""
    if not isinstance(correction, bool):
        raise InvalidInputError(f"correction must be True or False, got {correction!r}")
    shipped = HybridModel.pretrained()
    return shipped if correction else shipped.backbone_only()


def _raise_for_status(out: dict, llm: str, gpu: str, rate: float, batch: float) -> None:
    message = _status_message(out, 0, llm, gpu, rate, batch)
    if message:
        raise CapacityError(message)


def _status_message(out: dict, i: int, llm: str, gpu: str, rate: float, batch: float) -> str:
    """Why row ``i`` of :func:`engine.predict_arrays` has no answer ("" when 'ok')."""
    status = str(out["status"][i])
    if status == "ok":
        return ""
    cap, qps = int(max(out["max_batch"][i], 0)), float(out["capacity_qps"][i])
    if status == "saturated":
        return (
            f"{rate:g} req/s is beyond what one {gpu} can serve with {llm}: its capacity is about "
            f"{qps:.3g} req/s ({cap} sequences in flight). Pass a lower rate_qps, or use more "
            "replicas (wl.rank_gpus plans them)."
        )
    if status == "does not fit in memory":
        return (f"{llm} does not fit in 90 % of the {gpu}'s memory with a KV cache; "
                "pick a GPU with more memory (wl.rank_gpus lists them)")  # fmt: skip
    return (f"batch {batch:g} is above the {cap} sequences the {gpu}'s KV cache holds "
            f"for {llm} at these token counts; pass batch <= {cap}")  # fmt: skip


def _interval(out: dict, key: str, i: int, level: float) -> Interval:
    return Interval(float(out[f"{key}_lo"][i]), float(out[f"{key}_hi"][i]), level,
                    str(out["basis"][i]))  # fmt: skip


def _record(model, out: dict, i: int, inputs: Inputs, llms, gpus) -> Prediction:
    """One row of :func:`engine.predict_arrays` as a Prediction."""
    num = {k: float(out[k][i]) for k in ("power_w", "itl_s", "time_per_token_s",
                                           "energy_per_token_j", "in_flight", "busy_fraction",
                                           "capacity_qps", "idle_power_w")}  # fmt: skip
    kind = "physics" if str(out["basis"][i]) == "physics" else "hybrid"
    scenario = "offline" if inputs.rate_qps is None else scenario_for_rate(inputs.rate_qps)
    notes = tuple(E.notes_for(model, out["_watched"], i))
    if out["itl_s"][i] <= out["itl_floor_s"][i] * (1 + 1e-12):
        notes += (f"ITL held at the physical floor {1e3 * out['itl_floor_s'][i]:.4g} ms (bytes per "
                  "step / peak bandwidth, FLOPs per step / peak FLOP/s): the correction would "
                  "have gone below it",)  # fmt: skip
    return Prediction(
        kind, inputs, num["power_w"], _interval(out, "power_w", i, inputs.level), num["itl_s"],
        _interval(out, "itl_s", i, inputs.level), num["time_per_token_s"],
        _interval(out, "time_per_token_s", i, inputs.level), num["energy_per_token_j"],
        _interval(out, "energy_per_token_j", i, inputs.level), num["in_flight"],
        num["busy_fraction"], num["capacity_qps"], int(out["max_batch"][i]), num["idle_power_w"],
        str(scenario), notes,
    )  # fmt: skip


def predict_many(frame: pd.DataFrame, level: float = DEFAULT_LEVEL,
                 correction: bool = True) -> pd.DataFrame:  # fmt: skip
    """One output row per input row of ``frame`` (columns ``llm``, ``gpu``, and any of
    ``rate_qps``, ``batch`` — one per row, the other empty — ``t_in``, ``t_out``, ``num_gpus``,
    or ``tp`` and ``ep`` (a :class:`Parallel` per row), ``weights`` (blank: the LLM's own)).

    Every row goes through the checks of ``wl.predict`` (:func:`row_checks.check_request`).
    Returns the inputs with power_w, itl_s, time_per_token_s, energy_per_token_j (each with _lo
    and _hi), in_flight, capacity_qps, basis, ``status`` ('ok', 'saturated', 'does not fit in
    memory', 'invalid input', ...) and ``message`` (what is wrong and what to pass; "" when
    'ok'); rows that are not 'ok' carry NaN values, never an exception. A blank cell of a
    numeric column is invalid (a blank ``rate_qps`` or ``batch`` means the other load). Only the
    frame itself raises: InvalidInputError when it is not a DataFrame, is empty, lacks ``llm`` or
    ``gpu`` or holds text in a numeric column; UnknownLLMError/UnknownGPUError for a name no
    catalog knows. ``correction=False``: the physics backbone alone, as in ``wl.predict``.
    """
    check_columns(frame)
    level = check_level(level)
    model = _model(correction)
    llms = _resolve_each(frame["llm"], resolve_llm)
    gpus = _resolve_each(frame["gpu"], resolve_gpu)
    requests = frame_requests(frame, llms, gpus)
    good = np.array([isinstance(r, Request) for r in requests], dtype=bool)
    idx = np.flatnonzero(good)
    valid: list[Request] = [requests[i] for i in idx]  # type: ignore[misc]
    n = len(frame)
    keep: dict[str, np.ndarray] = {}
    if len(idx):
        out = _in_chunks(model, [llms[i] for i in idx], [gpus[i] for i in idx], valid, level)
        for k, v in out.items():
            if k.startswith("_") or k == "widening":
                continue
            text = k in ("basis", "status")
            full = np.full(n, INVALID if k == "status" else "", dtype=object) if text else (
                np.full(n, np.nan))  # fmt: skip
            full[idx] = v
            keep[k] = full
        messages = np.full(n, "", dtype=object)
        for j, i in enumerate(idx):
            messages[i] = _status_message(out, j, llms[i].name, gpus[i].name, valid[j].rate_qps,
                                          valid[j].batch)  # fmt: skip
    else:
        keep = {k: np.full(n, np.nan) for k in _NUMBERS}
        keep |= {"basis": np.full(n, "", dtype=object), "status": np.full(n, INVALID, dtype=object)}
        messages = np.full(n, "", dtype=object)
    for i in np.flatnonzero(~good):
        messages[i] = requests[i]
    t_in = _echo(frame, "t_in", DEFAULT_T_IN, requests, "t_in")
    t_out = _echo(frame, "t_out", DEFAULT_T_OUT, requests, "t_out")
    arch = [m.architecture_name for m in llms]
    return frame.reset_index(drop=True).assign(
        llm_architecture=arch, t_in=t_in, t_out=t_out, **keep, message=messages
    )


def _in_chunks(model, llms, gpus, valid: list[Request], level: float) -> dict:
    """:func:`engine.predict_arrays` over ``CHUNK_ROWS`` rows at a time, each chunk written into
    the whole arrays: rows are independent, so the answer is the one-call answer and the
    engine's work memory stays flat with the rows."""
    out: dict = {}
    for s in range(0, len(valid), CHUNK_ROWS):
        r, part = valid[s : s + CHUNK_ROWS], slice(s, s + CHUNK_ROWS)
        chunk = E.predict_arrays(model, llms[part], gpus[part], [q.t_in for q in r],
                                 [q.t_out for q in r], [q.rate_qps for q in r],
                                 [q.batch for q in r], level, [q.layout for q in r],
                                 [q.weights for q in r])  # fmt: skip
        for k, v in chunk.items():
            into, values = (out.setdefault(k, {}), v) if isinstance(v, dict) else (out, {k: v})
            for name, a in values.items():
                kind = float if a.dtype.kind == "f" else object  # text of any width
                into.setdefault(name, np.empty(len(valid), dtype=kind))[part] = a
    return out


_QUANTITIES = ("power_w", "itl_s", "time_per_token_s", "energy_per_token_j")
_NUMBERS = [*_QUANTITIES, "in_flight", "busy_fraction", "capacity_qps", "max_batch",
            "idle_power_w", *(f"{q}_{s}" for q in _QUANTITIES for s in ("lo", "hi"))]  # fmt: skip


def _echo(frame: pd.DataFrame, col: str, default, requests, attr: str) -> np.ndarray:
    """The token counts as checked (valid rows) or as given (invalid rows; NaN if not a number)."""
    given = frame[col].to_numpy() if col in frame else np.full(len(frame), default)
    out = np.empty(len(frame))
    for i, r in enumerate(requests):
        out[i] = getattr(r, attr) if isinstance(r, Request) else _as_float(given[i])
    return out


def _as_float(value) -> float:
    return float(value) if checks.is_real(value) else np.nan


def _resolve_each(values: pd.Series, resolve) -> list:
    """Resolve each distinct value once (names repeat across rows)."""
    cache: dict = {}
    out = []
    for v in values:
        key = v if isinstance(v, str) else id(v)
        if key not in cache:
            cache[key] = resolve(v)
        out.append(cache[key])
    return out
