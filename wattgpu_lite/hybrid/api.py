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
from wattgpu_lite.energy.args import check_deployment, deploy_args
from wattgpu_lite.energy.precision import canonical_format, served_format
from wattgpu_lite.errors import CapacityError, InvalidInputError
from wattgpu_lite.hybrid import engine as E
from wattgpu_lite.hybrid import rows as R
from wattgpu_lite.hybrid.model import HybridModel
from wattgpu_lite.hybrid.prediction import Inputs, Interval, Prediction
from wattgpu_lite.hybrid.training import OFFLINE_PROMPTS
from wattgpu_lite.runs.schema import LAMBDA_QPS, SCENARIOS, scenario_for_rate
from wattgpu_lite.specs.layout import Parallel, as_layout, layout_of
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

MAX_GPUS = 64
DEFAULT_LEVEL = 0.8


def check_level(level) -> float:
    """A coverage level in [0.5, 0.999] (:func:`wattgpu_lite.checks.check_level`)."""
    return checks.check_level(level)


def check_tokens(name: str, value, context_length: int) -> int:
    """A whole number of tokens in [1, the model's context length]."""
    return checks.check_count(name, value, 1, int(context_length),
                              fix=f"pass {name} as a whole number of tokens within the model's "
                              "context length")  # fmt: skip


def resolve_load(scenario, rate_qps, batch) -> tuple[float, float, bool]:
    """(rate or NaN, batch or NaN, offline scenario?) from exactly one of the three."""
    given = [k for k, v in (("scenario", scenario), ("rate_qps", rate_qps), ("batch", batch))
             if v is not None]  # fmt: skip
    if len(given) != 1:
        raise InvalidInputError(
            "give exactly one load: scenario= (offline, server_low, server_high), rate_qps= "
            f"(requests/s) or batch= (sequences); got {given or 'none'}"
        )
    if scenario is not None:
        if scenario not in SCENARIOS:
            raise InvalidInputError(f"unknown scenario {scenario!r}; use one of {SCENARIOS}")
        return LAMBDA_QPS.get(scenario, math.nan), math.nan, scenario == "offline"
    if rate_qps is not None:
        return checks.check_rate_qps(rate_qps), math.nan, False
    return math.nan, float(checks.check_batch(batch)), False


def check_num_gpus(num_gpus, model, device):
    """A whole number of GPUs in [1, 64] (or a :class:`Parallel`) whose layout splits the heads
    and experts evenly (vLLM's rules), on a GPU whose spec gives the interconnect bandwidth when
    there are several. Returns what it was given (an int stays an int)."""
    if isinstance(num_gpus, Parallel):
        check_deployment(model, num_gpus)
        deploy_args(device, num_gpus)  # InvalidInputError when the link bandwidth is unknown
        return num_gpus
    ok = isinstance(num_gpus, int | np.integer) and not isinstance(num_gpus, bool)
    if not ok or not 1 <= num_gpus <= MAX_GPUS:
        raise InvalidInputError(
            f"num_gpus must be a whole number in [1, {MAX_GPUS}], got {num_gpus!r}"
        )
    check_deployment(model, int(num_gpus), False)
    deploy_args(device, int(num_gpus))  # InvalidInputError when the link bandwidth is unknown
    return int(num_gpus)


def predict(llm, gpu, *, rate_qps: float | None = None, batch: float | None = None,
            scenario: str | None = None, t_in: int = DEFAULT_T_IN, t_out: int = DEFAULT_T_OUT,
            level: float = DEFAULT_LEVEL, num_gpus: int = 1,
            weights: str | None = None, parallel: Parallel | None = None) -> Prediction:  # fmt: skip
    """Power, per-request ITL, time per token and energy per token of ``llm`` on ``gpu``.

    ``llm``: a catalog name, an LLM, a config.json path or dict; ``gpu``: a catalog name, a GPU,
    a spec dict or JSON path. One load: ``rate_qps`` (Poisson arrivals), ``batch`` (sequences
    decoded together) or ``scenario`` (a Watt Counts load). ``num_gpus``: GPUs in one replica
    (tensor parallel; power and energy are the replica's), or ``parallel``: the replica's layout,
    ``wl.Parallel(tp=4)``, ``wl.Parallel(ep=8)`` (experts over 8 GPUs, data-parallel attention);
    ``weights``: the served weight format (None: the LLM's own). Raises CapacityError when the load is beyond what one replica can serve
    (the message says the capacity).
    """
    model, device = resolve_llm(llm), resolve_gpu(gpu)
    layout = check_num_gpus(layout_of(num_gpus, parallel), model, device)
    fmt = served_format(model, None if weights is None else canonical_format(weights))
    rate, bat, offline = resolve_load(scenario, rate_qps, batch)
    t_in, t_out = checks.check_tokens(t_in, t_out, model.context_length)
    level = check_level(level)
    deploy = {"num_gpus": layout, "weights": [fmt]}
    if offline:
        _, cap = R.build([model], [device], t_in, t_out, **deploy)
        bat = float(R.offline_in_flight(cap, OFFLINE_PROMPTS)[0])
    out = E.predict_arrays(HybridModel.pretrained(), [model], [device], t_in, t_out, rate, bat,
                           level, **deploy)  # fmt: skip
    _raise_for_status(out, model.name, device.name, rate, bat)
    inputs = Inputs(model.name, device.name, t_in, t_out, None if math.isnan(rate) else rate,
                    None if math.isnan(bat) else bat, level, layout.num_gpus, fmt,
                    model.architecture_name, layout.tp, layout.ep)  # fmt: skip
    return _record(HybridModel.pretrained(), out, 0, inputs, [model], [device])


def _raise_for_status(out: dict, llm: str, gpu: str, rate: float, batch: float) -> None:
    status = str(out["status"][0])
    if status == "ok":
        return
    cap, qps = int(out["max_batch"][0]), float(out["capacity_qps"][0])
    if status == "saturated":
        raise CapacityError(
            f"{rate:g} req/s is beyond what one {gpu} can serve with {llm}: its capacity is about "
            f"{qps:.3g} req/s ({cap} sequences in flight). Pass a lower rate_qps, or use more "
            "replicas (wl.rank_gpus plans them)."
        )
    if status == "does not fit in memory":
        raise CapacityError(f"{llm} does not fit in 90 % of the {gpu}'s memory with a KV cache; "
                            "pick a GPU with more memory (wl.rank_gpus lists them)")  # fmt: skip
    raise CapacityError(f"batch {batch:g} is above the {cap} sequences the {gpu}'s KV cache holds "
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


def _column(frame: pd.DataFrame, name: str, default) -> np.ndarray:
    if name not in frame:
        return np.full(len(frame), default, dtype=float)
    return pd.to_numeric(frame[name], errors="raise").to_numpy(dtype=float)


def predict_many(frame: pd.DataFrame, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
    """One output row per input row of ``frame`` (columns ``llm``, ``gpu``, and any of
    ``rate_qps``, ``batch`` — one per row, the other empty — ``t_in``, ``t_out``, ``num_gpus``,
    or ``tp`` and ``ep`` (a :class:`Parallel` per row), ``weights``).

    Returns the inputs with power_w, itl_s, time_per_token_s, energy_per_token_j (each with _lo
    and _hi), in_flight, capacity_qps, basis and ``status`` ('ok', 'saturated', 'does not fit in
    memory', ...); rows that are not 'ok' carry NaN values, never an exception.
    """
    for col in ("llm", "gpu"):
        if col not in frame:
            raise InvalidInputError(
                f"predict_many needs a column {col!r}; got {list(frame.columns)}"
            )
    llms = _resolve_each(frame["llm"], resolve_llm)
    gpus = _resolve_each(frame["gpu"], resolve_gpu)
    rate, bat = _column(frame, "rate_qps", np.nan), _column(frame, "batch", np.nan)
    if (np.isnan(rate) == np.isnan(bat)).any():
        raise InvalidInputError("each row needs exactly one of rate_qps and batch")
    t_in, t_out = _column(frame, "t_in", DEFAULT_T_IN), _column(frame, "t_out", DEFAULT_T_OUT)
    counts = _layouts(frame)
    weights = list(frame["weights"]) if "weights" in frame else [None] * len(frame)
    weights = [None if w is None or w != w else canonical_format(w) for w in weights]
    out = E.predict_arrays(HybridModel.pretrained(), llms, gpus, t_in, t_out, rate, bat,
                           check_level(level), counts, weights)  # fmt: skip
    keep = {k: v for k, v in out.items() if not k.startswith("_") and k != "widening"}
    arch = [m.architecture_name for m in llms]
    return frame.reset_index(drop=True).assign(
        llm_architecture=arch, t_in=t_in, t_out=t_out, **keep
    )


def _layouts(frame: pd.DataFrame) -> list[Parallel]:
    """Per row: Parallel(tp, ep) from columns ``tp``/``ep`` if given, else ``num_gpus`` (= tp)."""
    if "tp" not in frame and "ep" not in frame:
        return [as_layout(int(n)) for n in _column(frame, "num_gpus", 1)]
    tp, ep = _column(frame, "tp", 1), _column(frame, "ep", 1)
    return [Parallel(int(t), int(e)) for t, e in zip(tp, ep, strict=True)]


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
