"""Predictions for many rows at once, as named steps that fill one typed result.

    rows → backbone → correction → bounds → intervals        (:func:`predict_arrays`)

(resolve, before them, turns names into LLMs and GPUs and checks each request:
:mod:`~wattgpu_lite.energy.request`; the intervals' steps:
:mod:`~wattgpu_lite.hybrid.predict.interval_steps`). Rows are independent; each step is one
numpy operation over all of them and returns a frozen record.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wattgpu_lite.energy import backbone
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.energy.uniques import subset
from wattgpu_lite.hybrid.predict import bounds, interval_steps, intervals, one_config, one_row
from wattgpu_lite.hybrid.predict.correction import load_features, pairs_of
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.result import Backbone, StepResult, status_of, status_ok
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.llm import LLM


def physics_at(
    rows: backbone.Rows, cap, rate, batch, *, c: backbone.Constants, ok: np.ndarray
) -> dict[str, np.ndarray]:
    """Backbone outputs (:data:`PHYSICS`) for mixed batch rows (rate NaN) and rate rows, on the
    ``ok`` rows alone, NaN on the others (each part's rows gathered by index: one search of the
    mask, not one per array)."""
    offline = np.isnan(rate)
    out = {k: np.full(len(offline), np.nan) for k in PHYSICS}
    for mask, fn in (
        (offline & ok, lambda r, m: backbone.at_batch(r, batch[m], c)),
        (~offline & ok, lambda r, m: backbone.at_rate(r, rate[m], cap[m], c)),
    ):
        if mask.any():
            idx = np.flatnonzero(mask)
            for key, value in fn(rows.take(idx), idx).items():
                out[key][idx] = value
    return out


PHYSICS = ("in_flight", "itl_s", "time_per_token_s", "power_w", "busy_fraction")


def backbone_step(model: HybridState, rows: backbone.Rows, cap, rate, *, batch) -> Backbone:
    """Step 2: the status of each row, then the backbone at its load (rows that are not OK get
    NaN: every value the physics feeds is masked where a row is not OK). One row (a single
    predict) takes :func:`one_row.one_row_backbone`, the same values from fewer physics calls,
    when it is OK."""
    if len(rate) == 1:
        one = one_row.one_row_backbone(model, rows, cap, rate, batch=batch)
        if one is not None:
            return one
    return rows_backbone(model, rows, cap, rate, batch=batch)


def rows_backbone(model: HybridState, rows: backbone.Rows, cap, rate, *, batch) -> Backbone:
    """:func:`backbone_step` for any rows, each status first (the capacity, one physics call),
    then the backbone of the OK rows at their loads (the pieces and one call; the physics is
    elementwise: an OK row's values are its own), then the floor and bytes per FLOP of the step
    a request sees (one call, on the OK rows: :func:`_floors_of_ok`)."""
    c = model.constants
    safe_cap = np.maximum(cap, 1.0)
    # a replica that holds no sequence (its weights do not fit) serves none: 0 q/s, not the
    # capacity of the stand-in single sequence its physics is evaluated at
    capacity = np.where(cap >= 1, backbone.capacity_qps(rows, safe_cap, c), 0.0)
    status = status_of(cap, rate, batch, capacity)
    ok = status_ok(status)
    offline = np.isnan(rate)
    physics = physics_at(rows, safe_cap, rate, batch, c=c, ok=ok)
    step_batch = bounds.step_batch(physics["in_flight"], offline, safe_cap)
    floor, per_flop = _floors_of_ok(rows, step_batch, ok)
    found = {"status": status, "offline": offline, "capacity_qps": capacity, "physics": physics}
    step = {"step_batch": step_batch, "floor_s": floor, "bytes_per_flop": per_flop}
    return one_row.filled_backbone(rows, c, cap, **found, **step)


def _floors_of_ok(
    rows: backbone.Rows, step_batch: np.ndarray, ok: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(floor s, bytes per FLOP) of the step a request sees (:func:`bounds.floor_and_per_flop`)
    on the ``ok`` rows, NaN on the others: every value they feed is masked where a row is not
    OK (the physics is elementwise: an OK row's values are its own)."""
    if ok.all():
        return bounds.floor_and_per_flop(rows, step_batch)
    idx = np.flatnonzero(ok)
    floor, per_flop = np.full(len(ok), np.nan), np.full(len(ok), np.nan)
    if len(idx):
        floor[idx], per_flop[idx] = bounds.floor_and_per_flop(rows.take(idx), step_batch[idx])
    return floor, per_flop


def physics_only_rows(model: HybridState, llms: Sequence[LLM], rows: backbone.Rows) -> np.ndarray:
    """Rows the correction leaves alone: configurations the runs never cover, a GPU outside the
    training support, or a model without correction (one row's kept per configuration,
    :func:`one_config.kept_fact`: it reads the LLM, the GPU count, the always-read weights' bits
    and the GPU's peaks alone)."""
    if len(llms) == 1:
        read = (rows.num_gpus, rows.model.always_bits, rows.bandwidth, rows.flops)  # the support
        key = ("odd", llms[0], *(float(a[0]) for a in read))
        return one_config.kept_fact(model, key, lambda: _physics_only(model, llms, rows))
    return _physics_only(model, llms, rows)


def _physics_only(model: HybridState, llms: Sequence[LLM], rows: backbone.Rows) -> np.ndarray:
    """:func:`physics_only_rows` of any rows."""
    uncovered = intervals.physics_only(llms, rows.num_gpus, rows.model.always_bits)
    return (
        uncovered
        | intervals.outside_support(model, intervals.support_values(rows))
        | (not model.corrects)
    )


def correction_step(
    model: HybridState,
    llms: Sequence[LLM],
    gpus: Sequence[GPU],
    rows: backbone.Rows,
    *,
    backbone_result: Backbone,
    physics_only: np.ndarray,
) -> dict[str, np.ndarray]:
    """Step 3: exp(clipped correction) per target (1 on ``odd`` rows, at least 1 beyond the
    training runs' context: :func:`intervals.beyond_context`), from the load features and the
    bytes per FLOP of the step a request sees."""
    loads = load_features(backbone_result.physics, backbone_result.bytes_per_flop)
    idx = np.flatnonzero(~physics_only)
    if 0 < len(idx) < len(physics_only):  # corrected rows: pairs found once, for every target
        llms, gpus = subset(llms, idx), subset(gpus, idx)
        loads = {k: v[idx] for k, v in loads.items()}
    pairs = pairs_of(llms, gpus) if len(idx) else None
    factors = {}
    for target, correction in model.corrections.items():
        log_factor = np.zeros(len(physics_only))
        if correction is not None and len(idx):
            log_factor[idx] = correction.predict_loads(llms, gpus, loads, pairs)
        factors[target] = np.exp(log_factor)
    return intervals.one_sided(
        factors, intervals.beyond_context(model, intervals.support_values(rows))
    )


def bounds_step(rows: backbone.Rows, backbone_result: Backbone, factor: dict[str, np.ndarray]):
    """Step 4: the corrected values held inside the bounds — power in [P_idle, G · TDP] (the
    estimate never below the idle estimate, itself above the hard floor), ITL at least the step
    floor. Returns (power W, ITL s, floor s)."""
    power = np.minimum(  # np.clip's values, without its wrappers
        np.maximum(
            backbone_result.physics["power_w"] * factor["power"],
            np.maximum(backbone_result.idle_power_w, backbone_result.power_floor_w),
        ),
        rows.replica_tdp_w,
    )
    floor_s = backbone_result.floor_s
    return power, np.maximum(backbone_result.physics["itl_s"] * factor["itl"], floor_s), floor_s


def predict_arrays(
    model: HybridState,
    llms: Sequence[LLM],
    gpus: Sequence[GPU],
    t_in,
    *,
    t_out,
    rate_qps,
    batch,
    level: float = 0.8,
    num_gpus=1,
    weights: Sequence[str | None] | None = None,
    built: tuple[backbone.Rows, np.ndarray] | None = None,
    kv_cache=None,
    engine=None,
    max_num_seqs=None,
) -> StepResult:
    """Every quantity of a prediction, one value per row, from the named steps in order.

    ``rate_qps`` NaN = batch mode (``batch`` sequences), else Poisson arrivals. ``num_gpus``: GPUs
    per replica or a layout per row; ``weights``: the served weight format per row (None: the LLM's
    own); ``kv_cache``, ``engine``, ``max_num_seqs``: the KV-cache format, the serving engine and
    its concurrency limit, one value or one per row (None: "auto", vLLM, the engine's default);
    ``built``: the rows and KV capacities of :func:`row_arrays.build` for these arguments, when the
    caller has them already (a ranking builds them once). Rows beyond the replica's capacity or
    whose weights do not fit get their :class:`Status` and NaN values."""
    rates, batches = (np.full(len(llms), v, dtype=float) for v in (rate_qps, batch))  # one or n
    serving = {"kv_cache": kv_cache, "engine": engine, "max_num_seqs": max_num_seqs}
    rows, cap = built or row_arrays.build(
        llms, gpus, t_in, t_out, num_gpus=num_gpus, weights=weights, **serving
    )
    backbone_result = backbone_step(model, rows, cap, rates, batch=batches)
    ok = status_ok(backbone_result.status)
    physics_only = physics_only_rows(model, llms, rows)
    factor = correction_step(  # a row not OK keeps no corrected value: the forests skip it
        model, llms, gpus, rows, backbone_result=backbone_result, physics_only=physics_only | ~ok
    )
    power, itl, floor = bounds_step(rows, backbone_result, factor)
    basis = interval_steps.basis_step(model, llms, gpus, physics_only)
    cells, widths, widen, watched = interval_steps.cells_and_widths(
        model, llms, gpus, rows, backbone_result=backbone_result, basis=basis, level=level
    )
    values = interval_steps.bounded_intervals(
        rows, backbone_result, power, itl, floor=floor, widths=widths
    )
    every = bool(ok.all())
    masked = {
        f"{q}{s}": _where_ok(ok, v, every)
        for q, three in values.items()
        for s, v in zip(("", "_lo", "_hi"), three, strict=True)
    }
    for key, value in (
        ("in_flight", backbone_result.physics["in_flight"]),
        ("busy_fraction", backbone_result.physics["busy_fraction"]),
        ("itl_floor_s", floor),
        ("backbone_itl_s", backbone_result.physics["itl_s"]),
        ("backbone_power_w", backbone_result.physics["power_w"]),
        ("widening", widen),
    ):
        masked[key] = _where_ok(ok, value, every)
    return StepResult(
        status=backbone_result.status,
        offline=backbone_result.offline,
        step_batch=backbone_result.step_batch,  # NaN where not OK, as the in_flight it reads
        factor=factor,
        rows=rows,
        constants=model.constants,
        capacity_qps=backbone_result.capacity_qps,
        max_batch=cap,
        idle_power_w=backbone_result.idle_power_w,
        power_floor_w=backbone_result.power_floor_w,
        replica_tdp_w=rows.replica_tdp_w,
        basis=intervals.BASIS_TEXT[basis],
        basis_code=basis,
        cell=cells,
        watched=watched,
        **masked,
    )


def _where_ok(ok: np.ndarray, value, every: bool) -> np.ndarray:
    """``value`` on the ``ok`` rows, NaN on the others (a float copy of ``value`` when ``every``
    row is OK and it has one value per row: the values np.where gives, without the mask)."""
    if every and getattr(value, "shape", None) == ok.shape:
        return np.array(value, dtype=float)
    return np.where(ok, value, np.nan)
