"""The largest rate one replica serves under an ITL SLA, for every deployment of a ranking at once.

At Poisson rate λ a replica holds L requests in flight, L = λ · T_out · s(min(1 + L, cap))
(Little's law, :mod:`wattgpu_lite.energy.backbone`). Read the other way, each load has one rate,

    λ(L) = L / (T_out · s(min(1 + L, cap))),

increasing in L (s grows at most linearly with the batch), and the per-request ITL,
max(s(min(1 + L, cap)) · e^f, s_floor), grows with L too (physics, and the correction's monotone
constraints). So the largest rate whose ITL meets the SLA is λ(L*), L* the largest load that does:
a search over L needs no root of Little's law, and each round evaluates K loads of every
deployment in one call until the bracket is 1e-12 of L wide: K − 2 spread over the bracket
(narrowing it (K − 1)-fold) and a pair astride where the line through the bracket's ends meets
the SLA, which closes it at once where the ITL is one line there (one piece of the step, one leaf
of the trees): 6–11 calls for the catalog instead of 13–14.
The ITL is the one ``wl.predict`` gives (:mod:`wattgpu_lite.hybrid.predict.steps`), from the same steps.
A ranking asks it through :mod:`~wattgpu_lite.hybrid.predict.chain` (``replicas``, ``max_rate_under_sla``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wattgpu_lite.energy import backbone, backbone_rows, many_calls, physical
from wattgpu_lite.hybrid.predict import bounds, intervals, steps
from wattgpu_lite.hybrid.predict.correction import feature_matrix, load_features
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.trees import FixedCodes

LIGHT_QPS = 1e-6  # the lightest load: a replica's ITL with no neighbours
LOAD_RTOL = 1e-12  # the bracket on L* is narrowed to 1 part in 10^12
POINTS_PER_CALL = 256  # loads evaluated per round over all deployments (the forest costs per load)
MAX_ROUNDS = 60


@dataclass(frozen=True)
class Replicas:
    """Rows of every deployment, built once, and what the SLA search reads of them."""

    rows: backbone.Rows
    cap: np.ndarray  # KV capacity in sequences (< 1: the weights do not fit)
    capacity_qps: np.ndarray  # cap / (T_out · s(cap)), at a capacity of at least 1
    static_of: np.ndarray  # per row, its position in ``static`` (-1: no learned ITL correction)
    one_sided: np.ndarray  # per row: beyond the training context, the factor is at least 1
    static: np.ndarray  # their correction inputs but the load (columns of the forest)
    fixed: FixedCodes | None  # what ``static`` gives the forest (None: the forest is walked)
    # the floor's, bytes per FLOP's and step time's physics stacked, what reads no load
    # evaluated (physical.configured_symbols) and the tokens: those with one value per row in
    # ``per_row`` (one take a round, :func:`_per_row_matrix`), the others here
    physics: dict
    per_row: np.ndarray  # (values, rows): every per-row symbol's values
    slots: dict  # symbol -> its row (1-D symbols) or rows (a slice: stacked) of ``per_row``


def plan_rows(
    llm, gpus, layouts, t_in, *, t_out, weights=None, serving=None
) -> tuple[backbone.Rows, np.ndarray]:
    """(rows, KV capacity in sequences; < 1: the weights do not fit) of the deployments ``gpus``
    × ``layouts`` (one per row) of ``llm``; ``serving``: the KV-cache format, engine and
    concurrency limit as keywords of :func:`~wattgpu_lite.energy.backbone_rows.build`."""
    n = len(gpus)
    return backbone_rows.build(
        [llm] * n, gpus, t_in, t_out, num_gpus=layouts, weights=[weights] * n, **(serving or {})
    )


def replicas(
    model: HybridState, llm, gpus, layouts, *, t_in, t_out, weights, serving=None
) -> Replicas:
    """The deployments ``gpus`` × ``layouts`` (one per row) of ``llm``, built once (``serving``:
    the KV-cache format, engine and concurrency limit as keywords of ``backbone_rows.build``)."""
    n = len(gpus)
    rows, cap = plan_rows(llm, gpus, layouts, t_in, t_out=t_out, weights=weights, serving=serving)
    odd = steps.physics_only_rows(model, [llm] * n, rows)
    corr = model.corrections.get("itl")
    idx = np.flatnonzero(~odd) if corr is not None else np.zeros(0, dtype=np.int64)
    static, fixed = np.zeros((0, 0)), None
    if len(idx):
        zero = {
            k: np.zeros(len(idx)) for k in ("log_in_flight", "busy_fraction", "log_bytes_per_flop")
        }
        static = feature_matrix(
            [llm] * len(idx), [gpus[i] for i in idx], zero, corr.columns, families=corr.families
        )
        fixed = corr.fixed_part(static)
    beyond = intervals.beyond_context(model, intervals.support_values(rows))
    batch = np.ones(n)  # each round's batch replaces it
    calls = [*bounds.floor_calls(rows, batch), backbone.request_call(rows, batch, model.constants)]
    physics = physical.symbol_arrays(**many_calls.stacked_calls(calls))
    tokens = {k: physics.pop(k) for k in physical.LOADS if k != physical.BATCH}
    del physics[physical.BATCH]
    physics = physical.configured_symbols(physics) | tokens  # each round: its loads' part
    safe = np.maximum(cap, 1.0)  # s(cap) of the request's call: cap / (T_out · s(cap))
    times = physical.evaluate_at_load(physics, {physical.BATCH: safe})[1]
    step = backbone.step_from_times(
        rows.t_out, safe, {k: v[2] for k, v in times.items()}, model.constants
    )
    capacity = backbone.capacity_from_step(rows, safe, step)
    per_row, slots = _per_row_matrix(physics, n)
    static_of = np.full(n, -1)
    static_of[idx] = np.arange(len(idx))
    found = {"rows": rows, "cap": cap, "capacity_qps": capacity, "static_of": static_of}
    corrected = {"one_sided": beyond, "static": static, "fixed": fixed}
    kept = {k: v for k, v in physics.items() if k not in slots}
    return Replicas(**found, **corrected, physics=kept, per_row=per_row, slots=slots)


def _per_row_matrix(physics: dict, n: int) -> tuple[np.ndarray, dict]:
    """(matrix, slots): the symbols of ``physics`` with one value per row (last axis ``n``; the
    others broadcast) stacked as the rows of one (values, n) matrix, and where each one lies in
    it: a round takes the rows it evaluates once, and each symbol is a view of the taken matrix
    (the same values)."""
    slots, parts, at = {}, [], 0
    for k, v in physics.items():
        if v.shape[-1:] == (n,):
            size = 1 if v.ndim == 1 else v.shape[0]
            slots[k] = at if v.ndim == 1 else slice(at, at + size)
            parts.append(v.reshape(size, n))
            at += size
    return np.concatenate(parts) if parts else np.zeros((0, n)), slots


def itl_at_load(model: HybridState, rep: Replicas, idx: np.ndarray, load: np.ndarray):
    """(ITL s, rate req/s) of the deployments ``idx`` at loads ``load`` (shape (len(idx), m)):
    s(B)·e^f at least s_floor(B), B = min(1 + L, cap), and λ(L) (module docstring)."""
    row_of = np.repeat(idx, load.shape[1])
    t_out = rep.rows.t_out[row_of]
    flat = load.ravel()
    batch = np.minimum(1.0 + flat, np.maximum(rep.cap[row_of], 1.0))
    taken = rep.per_row.take(row_of, axis=1)
    args = rep.physics | {k: taken[at] for k, at in rep.slots.items()}
    found = many_calls.split_calls(physical.evaluate_at_load(args, {physical.BATCH: batch}), 3)
    floor, per_flop = bounds.floors_from(t_out, batch, found)
    step = backbone.step_from_times(t_out, batch, found[2][1], model.constants)
    itl = step.copy()
    static_of = rep.static_of[row_of]
    where = np.flatnonzero(static_of >= 0)
    if len(where):
        corr = model.corrections["itl"]
        static_row = static_of[where]
        loads = load_features(
            {"in_flight": flat[where], "busy_fraction": -np.expm1(-flat[where])},
            per_flop[where],
        )
        if rep.fixed is None:  # a walked forest: every column of every point
            x = rep.static[static_row]
            for j, column in enumerate(corr.columns):
                if column in loads:
                    x[:, j] = loads[column]
            f = corr.predict(x)
        else:  # the load columns alone, beside the kept codes of the others
            f = corr.predict_at_loads(rep.fixed, static_row, loads)
        factor = np.exp(f)
        itl[where] *= np.where(rep.one_sided[row_of[where]], np.maximum(factor, 1.0), factor)
    itl = np.maximum(itl, floor)
    return itl.reshape(load.shape), (flat / (t_out * step)).reshape(load.shape)


def max_rate_under_sla(
    model: HybridState, rep: Replicas, sla_s: float
) -> tuple[np.ndarray, np.ndarray]:
    """(r_max, ITL at the lightest load) per deployment: r_max the largest rate [req/s] one
    replica serves with ITL ≤ ``sla_s``, below its capacity by 1 part in 10^9 (0 if even the
    lightest load misses the SLA; NaN if the weights do not fit)."""
    top_qps = rep.capacity_qps * (1 - 1e-9)
    r_max = np.where(rep.cap >= 1, 0.0, np.nan)
    light = np.full(len(rep.cap), np.nan)
    idx = np.flatnonzero((rep.cap >= 1) & (LIGHT_QPS < rep.capacity_qps))
    if not len(idx):
        return r_max, light
    load, itl = _light_and_top(model, rep, idx, top_qps[idx])
    light[idx] = itl[:, 0]
    meets = itl[:, 0] <= sla_s
    idx, itl, load = idx[meets], itl[meets], load[meets]
    r_max[idx] = top_qps[idx]  # the SLA holds up to the capacity
    search = itl[:, 1] > sla_s
    if search.any():
        bracket = (load[search, 0], load[search, 1], itl[search, 0], itl[search, 1])
        r_max[idx[search]] = _largest_good_rate(model, rep, idx[search], bracket, sla_s=sla_s)
    return r_max, light


def _light_and_top(model: HybridState, rep: Replicas, idx: np.ndarray, top_qps: np.ndarray):
    """(loads L, ITLs s) of the deployments ``idx`` at the lightest rate ``LIGHT_QPS`` (column
    0) and at ``top_qps`` (column 1): one solve of Little's law on the deployments' step pieces
    (found once, each row's own: the same for its two rates), one evaluation."""
    rows, twice = rep.rows.take(idx), np.tile(np.arange(len(idx)), 2)
    pieces = backbone.step_pieces(rows, model.constants).take(twice)
    rate = np.concatenate([np.full(len(idx), LIGHT_QPS), top_qps])
    safe = np.maximum(rep.cap[idx[twice]], 1.0)
    load = backbone.in_flight_at_rate(rows.take(twice), rate, safe, model.constants, pieces=pieces)
    load = load.reshape(2, -1).T
    return load, itl_at_load(model, rep, idx, load)[0]


def _largest_good_rate(model, rep, idx, bracket, *, sla_s) -> np.ndarray:
    """λ(L) at the largest load L in [lo, hi] whose ITL meets ``sla_s`` (lo meets it, hi does
    not; ``bracket`` = (lo, hi, ITL at lo, ITL at hi)), by rounds of K loads inside each bracket:
    K − 2 spread over it and two a hair either side of the load where the ITL line through the
    bracket's ends meets the SLA (:func:`_secant_pair`). Where the ITL is one line over the
    bracket (one piece of the step, one leaf of the trees) the pair closes it in one round;
    elsewhere the spread points narrow it (K − 1)-fold, as a plain grid would."""
    lo, hi, itl_lo, itl_hi = (np.array(v, dtype=float) for v in bracket)
    rate_lo = np.full(len(idx), LIGHT_QPS)
    for _ in range(MAX_ROUNDS):
        todo = np.flatnonzero(hi - lo > LOAD_RTOL * hi)
        if not len(todo):
            break
        k = max(4, POINTS_PER_CALL // len(todo))
        spread = _interior(lo[todo], hi[todo], k - 2)
        pair = _secant_pair(lo[todo], hi[todo], itl_lo[todo], itl_hi[todo], sla_s)
        points = np.sort(np.concatenate([spread, pair], axis=1), axis=1)
        itl, rate = itl_at_load(model, rep, idx[todo], points)
        good = itl <= sla_s
        first_bad = np.where(good.all(axis=1), k, np.argmin(good, axis=1))
        row = np.arange(len(todo))
        moved, short = first_bad > 0, first_bad < k
        lo[todo[moved]] = points[row[moved], first_bad[moved] - 1]
        itl_lo[todo[moved]] = itl[row[moved], first_bad[moved] - 1]
        rate_lo[todo[moved]] = rate[row[moved], first_bad[moved] - 1]
        hi[todo[short]] = points[row[short], first_bad[short]]
        itl_hi[todo[short]] = itl[row[short], first_bad[short]]
    return rate_lo


def _secant_pair(lo, hi, itl_lo, itl_hi, sla_s: float) -> np.ndarray:
    """(n, 2) loads 0.45·LOAD_RTOL either side (relative) of L_s = lo + (SLA − ITL_lo)·(hi − lo)
    / (ITL_hi − ITL_lo), the load where the line through the bracket's ends meets the SLA, kept
    strictly inside (lo, hi): if the ITL is that line, L* lies between the two and the bracket
    they leave is narrower than LOAD_RTOL (regula falsi, verified by evaluating both); clipped
    strictly inside the bracket."""
    slope = np.maximum(itl_hi - itl_lo, np.finfo(float).tiny)
    guess = lo + np.clip((sla_s - itl_lo) / slope, 0.0, 1.0) * (hi - lo)
    half = 0.45 * LOAD_RTOL * guess
    pair = np.stack([guess - half, guess + half], axis=1)
    inside = np.nextafter(lo, np.inf)[:, None], np.nextafter(hi, -np.inf)[:, None]
    return np.clip(pair, *inside)


def _interior(lo: np.ndarray, hi: np.ndarray, k: int) -> np.ndarray:
    """k loads strictly inside each (lo, hi): evenly spaced in ln L while hi > 4·lo, else in L."""
    t = np.arange(1, k + 1) / (k + 1)
    wide = hi > 4.0 * lo
    geometric = np.exp(np.log(lo)[:, None] + t * np.log(hi / lo)[:, None])
    linear = lo[:, None] + t * (hi - lo)[:, None]
    return np.where(wide[:, None], geometric, linear)
