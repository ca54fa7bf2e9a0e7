"""The largest rate one replica serves under an ITL SLA, for every deployment of a ranking at once.

At Poisson rate λ a replica holds L requests in flight, L = λ · T_out · s(min(1 + L, cap))
(Little's law, :mod:`wattgpu_lite.energy.backbone`). Read the other way, each load has one rate,

    λ(L) = L / (T_out · s(min(1 + L, cap))),

increasing in L (s grows at most linearly with the batch), and the per-request ITL,
max(s(min(1 + L, cap)) · e^f, s_floor), grows with L too (physics, and the correction's monotone
constraints). So the largest rate whose ITL meets the SLA is λ(L*), L* the largest load that does:
a search over L needs no root of Little's law: rounds of K loads of every deployment in one call
narrow each bracket to 1e-12 of L (:mod:`~wattgpu_lite.hybrid.predict.sla_rounds`: pairs astride
where the ITL line meets the SLA and where a feature of the correction jumps, the rest spread):
4-8 calls for the catalog instead of 13-14 by a plain grid.
The ITL is the one ``wl.predict`` gives (:mod:`wattgpu_lite.hybrid.predict.steps`), from the same steps.
A ranking asks it through :mod:`~wattgpu_lite.hybrid.predict.chain`: ``chain.replicas(...)``, then
:meth:`Replicas.max_rate_under_sla`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wattgpu_lite.energy import backbone, many_calls, physical
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.hybrid.predict import bounds, intervals, sla_rounds, steps
from wattgpu_lite.hybrid.predict.correction import feature_matrix, load_features
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.trees import FixedCodes

LIGHT_QPS = 1e-6  # the lightest load: a replica's ITL with no neighbours


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
    model: HybridState  # the hybrid whose steps the search runs

    def max_rate_under_sla(self, sla_s: float) -> tuple[np.ndarray, np.ndarray]:
        """(r_max, ITL at the lightest load) per deployment: r_max the largest rate [req/s] one
        replica serves with ITL ≤ ``sla_s``, below its capacity by 1 part in 10^9 (0 if even the
        lightest load misses the SLA; NaN if the weights do not fit)."""
        top_qps = self.capacity_qps * (1 - 1e-9)
        r_max = np.where(self.cap >= 1, 0.0, np.nan)
        light = np.full(len(self.cap), np.nan)
        idx = np.flatnonzero((self.cap >= 1) & (LIGHT_QPS < self.capacity_qps))
        if not len(idx):
            return r_max, light
        load, itl, bpf = _light_and_top(self, idx, top_qps[idx])
        light[idx] = itl[:, 0]
        meets = itl[:, 0] <= sla_s
        idx, itl, load, bpf = idx[meets], itl[meets], load[meets], bpf[meets]
        r_max[idx] = top_qps[idx]  # the SLA holds up to the capacity
        search = np.flatnonzero(itl[:, 1] > sla_s)
        if len(search):
            ends = (
                load[search, 0],
                load[search, 1],
                np.full(len(search), LIGHT_QPS),
                itl[search, 0],
                itl[search, 1],
                bpf[search, 0],
                bpf[search, 1],
            )
            itl_at = lambda rows, loads: itl_at_load(self, idx[search][rows], loads)  # noqa: E731
            levels = sla_rounds.feature_levels(self.model.corrections.get("itl"))
            r_max[idx[search]] = sla_rounds.largest_good_rate(
                itl_at, ends, sla_s=sla_s, levels=levels
            )
        return r_max, light


def plan_rows(
    llm, gpus, layouts, t_in, *, t_out, weights=None, serving=None
) -> tuple[backbone.Rows, np.ndarray]:
    """(rows, KV capacity in sequences; < 1: the weights do not fit) of the deployments ``gpus``
    × ``layouts`` (one per row) of ``llm``; ``serving``: the KV-cache format, engine and
    concurrency limit as keywords of :func:`~wattgpu_lite.energy.backbone.row_arrays.build`."""
    n = len(gpus)
    return row_arrays.build(
        [llm] * n, gpus, t_in, t_out, num_gpus=layouts, weights=[weights] * n, **(serving or {})
    )


def replicas(
    model: HybridState, llm, gpus, layouts, *, t_in, t_out, weights, serving=None
) -> Replicas:
    """The deployments ``gpus`` × ``layouts`` (one per row) of ``llm``, built once (``serving``:
    the KV-cache format, engine and concurrency limit as keywords of ``row_arrays.build``)."""
    n = len(gpus)
    rows, cap = plan_rows(llm, gpus, layouts, t_in, t_out=t_out, weights=weights, serving=serving)
    physics_only = steps.physics_only_rows(model, [llm] * n, rows)
    correction = model.corrections.get("itl")
    idx = np.flatnonzero(~physics_only) if correction is not None else np.zeros(0, dtype=np.int64)
    static, fixed = np.zeros((0, 0)), None
    if len(idx):
        zero = {
            k: np.zeros(len(idx)) for k in ("log_in_flight", "busy_fraction", "log_bytes_per_flop")
        }
        corrected_gpus = [gpus[i] for i in idx]
        static = feature_matrix(
            [llm] * len(idx), corrected_gpus, zero, correction.columns, families=correction.families
        )
        fixed = correction.fixed_part(static)
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
    return Replicas(**found, **corrected, physics=kept, per_row=per_row, slots=slots, model=model)


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


def itl_at_load(rep: Replicas, idx: np.ndarray, load: np.ndarray):
    """(ITL s, rate req/s, bytes per FLOP) of the deployments ``idx`` at loads ``load`` (shape
    (len(idx), m)): s(B)·e^f at least s_floor(B), B = min(1 + L, cap), λ(L) (module docstring)
    and the step's bytes per FLOP (a load feature of the correction)."""
    row_of = np.repeat(idx, load.shape[1])
    t_out = rep.rows.t_out[row_of]
    flat = load.ravel()
    batch = np.minimum(1.0 + flat, np.maximum(rep.cap[row_of], 1.0))
    taken = rep.per_row.take(row_of, axis=1)
    args = rep.physics | {k: taken[at] for k, at in rep.slots.items()}
    found = many_calls.split_calls(physical.evaluate_at_load(args, {physical.BATCH: batch}), 3)
    floor, per_flop = bounds.floors_from(t_out, batch, found)
    step = backbone.step_from_times(t_out, batch, found[2][1], rep.model.constants)
    itl = step.copy()
    static_of = rep.static_of[row_of]
    where = np.flatnonzero(static_of >= 0)
    if len(where):
        correction = rep.model.corrections["itl"]
        static_row = static_of[where]
        loads = load_features(
            {"in_flight": flat[where], "busy_fraction": -np.expm1(-flat[where])},
            per_flop[where],
        )
        if rep.fixed is None:  # a walked forest: every column of every point
            x = rep.static[static_row]
            for j, column in enumerate(correction.columns):
                if column in loads:
                    x[:, j] = loads[column]
            f = correction.predict(x)
        else:  # the load columns alone, beside the kept codes of the others
            f = correction.predict_at_loads(rep.fixed, static_row, loads)
        factor = np.exp(f)
        itl[where] *= np.where(rep.one_sided[row_of[where]], np.maximum(factor, 1.0), factor)
    itl = np.maximum(itl, floor)
    rate = flat / (t_out * step)
    return itl.reshape(load.shape), rate.reshape(load.shape), per_flop.reshape(load.shape)


def _light_and_top(rep: Replicas, idx: np.ndarray, top_qps: np.ndarray):
    """(loads L, ITLs s, bytes per FLOP) of the deployments ``idx`` at the lightest rate
    ``LIGHT_QPS`` (column 0) and at ``top_qps`` (column 1): one solve of Little's law on the
    deployments' step pieces (found once, each row's own: the same for its two rates), one
    evaluation."""
    rows, twice = rep.rows.take(idx), np.tile(np.arange(len(idx)), 2)
    pieces = backbone.step_pieces(rows, rep.model.constants).take(twice)
    rate = np.concatenate([np.full(len(idx), LIGHT_QPS), top_qps])
    safe = np.maximum(rep.cap[idx[twice]], 1.0)
    load = backbone.in_flight_at_rate(
        rows.take(twice), rate, safe, rep.model.constants, pieces=pieces
    )
    load = load.reshape(2, -1).T
    itl, _, per_flop = itl_at_load(rep, idx, load)
    return load, itl, per_flop
