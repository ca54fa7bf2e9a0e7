"""The backbone step of a single predict (:func:`one_row_backbone`), and what it keeps of its
row's configuration: the physics' arguments laid out once.

A warm ``wl.predict`` asks the backbone for one row. Its configuration (LLM, GPU, layout, formats) and the fitted constants fix
every argument of the physics but the tokens and the batch: the step coefficients' arguments
(:func:`~wattgpu_lite.energy.backbone.step_arguments`) and those of the one evaluation of the
floor, the bytes per FLOP (:func:`~wattgpu_lite.hybrid.predict.bounds.floor_calls`) and the
request at its ``COLUMNS`` batches (:func:`~wattgpu_lite.energy.backbone.request_call`), laid side
by side along one axis of 2 + COLUMNS elements. :func:`setup` builds them once per configuration
(kept), and runs the physics' operations that read no token or batch
(:func:`~wattgpu_lite.energy.physical.configured_symbols`); every call adds its tokens and batches
(:func:`step_values`, :func:`evaluate`: the rest). The generated physics is elementwise, so each
element is the value the calls made one by one give.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cached_property, lru_cache
from typing import NamedTuple

import numpy as np

from wattgpu_lite.energy import backbone, physical
from wattgpu_lite.energy.args import symbol_values
from wattgpu_lite.energy.backbone import one_row_solves, searches, step_power
from wattgpu_lite.hybrid.predict import bounds
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.result import Backbone, Status

COLUMNS = 5  # the request at its cap and at the four busy points (backbone.busy_points)
SIZES = (1, 1, COLUMNS)  # elements of the floor's, the bytes per FLOP's and the request's calls
SETUPS_CACHED = 256  # configurations kept (:func:`setup`)
_TOKENS = ("t_in", "t_out")  # the Rows fields a configuration does not fix
_INTS = ("peak_kind", "peak_kind_expert")  # the Rows fields that are indexes
_RECORDS = {"model": physical.RECORDS["model"], "deploy": physical.RECORDS["deploy"]}
_CONFIG_FIELDS = tuple(f.name for f in fields(backbone.Rows) if f.name not in _TOKENS)


class Setup(NamedTuple):
    """One configuration's physics arguments but its tokens and batches, read-only."""

    step_args: dict[str, float]  # the step coefficients' arguments but T_in and T_out
    configured: dict[str, np.ndarray]  # the physics but its loads' part, of SIZES elements
    idle_w: np.ndarray  # the replica's idle power estimate (backbone.idle_power_w)
    floor_w: np.ndarray  # its hard power floor (backbone.power_floor_w)
    dense: bool  # no power of ρ in its step (ρ = 0: log ρ at most searches.LOG_TINY)


def config_of(rows: backbone.Rows) -> bytes:
    """The configuration of one row of ``rows``: every field but the tokens, as the bytes of
    their float values in the order of :class:`~wattgpu_lite.energy.backbone.Rows` (NaN
    included, so a GPU without an idle spec is one key); a record's fields in its order."""
    parts = []
    for name in _CONFIG_FIELDS:
        part = getattr(rows, name)
        if isinstance(part, tuple):
            parts.extend(part)
        else:
            parts.append(part)
    return np.concatenate(parts, dtype=float).tobytes()


def rows_of(config: bytes) -> backbone.Rows:
    """The one row :func:`config_of` describes, with one token of each kind (a setup reads none)."""
    values, at, named = np.frombuffer(config, dtype=float), 0, {}
    for f in fields(backbone.Rows):
        record = _RECORDS.get(f.name)
        width = 0 if f.name in _TOKENS else len(record._fields) if record else 1
        part = [values[at + k : at + k + 1].copy() for k in range(width)]
        at += width
        if f.name in _TOKENS:
            named[f.name] = np.ones(1)
        else:
            named[f.name] = (
                record._make(part)
                if record
                else part[0].astype(np.int64)
                if f.name in _INTS
                else part[0]
            )
    return backbone.Rows(**named)


@lru_cache(maxsize=SETUPS_CACHED)
def setup(config: bytes, c: backbone.Constants) -> Setup:
    """The :class:`Setup` of a configuration (:func:`config_of`) under the constants ``c``: each
    argument of the physics by symbol name, the three calls' values side by side (each repeated
    over its SIZES elements; an argument all three share, too: arrays of one length, which
    numpy combines without broadcasting)."""
    rows = rows_of(config)
    step_args = {
        k: v for k, v in backbone.step_arguments(rows, c).items() if k not in ("T_in", "T_out")
    }
    calls = [*bounds.floor_calls(rows, np.ones(1)), backbone.request_call(rows, np.ones(1), c)]
    named = [{"kappa": call["kappa"]} for call in calls]
    for name in ("model", "hardware", "deploy"):
        for call, into in zip(calls, named, strict=True):
            into.update(symbol_values(physical.as_record(name, call[name])))
    symbols = {k: _side_by_side([call[k] for call in named]) for k in named[0]}
    configured = physical.flat(physical.configured_symbols(symbols))
    idle_w, floor_w = backbone.idle_power_w(rows, c), backbone.power_floor_w(rows)
    for v in (*configured.values(), idle_w, floor_w):
        v.flags.writeable = False
    dense = bool(step_power.log_rho_of(rows)[0] <= searches.LOG_TINY)
    return Setup(step_args, configured, idle_w=idle_w, floor_w=floor_w, dense=dense)


def _side_by_side(values: list) -> np.ndarray:
    """One argument's values, one per call, each repeated over its SIZES elements: one
    read-only array."""
    out = np.concatenate(
        [
            np.broadcast_to(np.asarray(v, dtype=float).reshape(-1), (k,))
            for v, k in zip(values, SIZES, strict=True)
        ]
    )
    out.flags.writeable = False
    return out


def step_values(s: Setup, rows: backbone.Rows) -> dict[str, float]:
    """:func:`~wattgpu_lite.energy.backbone.step_arguments` of the one row ``rows``."""
    return {**s.step_args, "T_in": float(rows.t_in[0]), "T_out": float(rows.t_out[0])}


def _known_flat(p: searches.Pieces, dense: bool) -> searches.Pieces:
    """``p``, its ``curved`` (a functools.cached_property of searches.Pieces, found by its first
    reader) set to False when its configuration is ``dense``: the value it finds there whatever
    the coefficients (log ρ ≤ LOG_TINY), without the arrays' test; as it is otherwise."""
    found = getattr(p, "__dict__", None)
    if dense and found is not None and isinstance(type(p).__dict__.get("curved"), cached_property):
        found.setdefault("curved", np.zeros(1, dtype=bool))
    return p


def evaluate(
    s: Setup, rows: backbone.Rows, step_batch: np.ndarray, loads: np.ndarray
) -> tuple[np.ndarray, np.ndarray, tuple]:
    """(s_floor s, bytes per FLOP) at the step's batch ``step_batch`` (one element) and the
    request's (t_req, dynamic J) at its COLUMNS batches ``loads``, from ONE call of the physics
    (:func:`~wattgpu_lite.hybrid.predict.bounds.floor_and_per_flop` and the request's call:
    the same values)."""
    n = sum(SIZES)
    found = physical.evaluate_at_load(
        s.configured,
        {
            "T_in": np.full(n, rows.t_in[0]),
            "T_out": np.full(n, rows.t_out[0]),
            "B": np.concatenate([step_batch, step_batch, loads]),
        },
    )
    # elementwise: each quantity of all the elements, then each call's own (no dict sliced)
    floor, per_flop = bounds.floors_from(rows.t_out, step_batch, [found, found])
    terms, times = found
    t_req, dynamic = backbone.terms_of(terms, times)
    return floor[:1], per_flop[1:2], (t_req[2:], dynamic[2:])


def filled_backbone(rows: backbone.Rows, c, cap, watts=None, **parts) -> Backbone:
    """The Backbone of ``parts`` with what this path and the general one (``steps.rows_backbone``)
    fill alike: the cap (at least 1) beside the cache's own, the idle power estimate and the hard
    power floor (``watts``: the two, when the caller has them, :class:`Setup`)."""
    idle, floor = (
        (backbone.idle_power_w(rows, c), backbone.power_floor_w(rows)) if watts is None else watts
    )
    return Backbone(
        cap=np.maximum(cap, 1.0), max_batch=cap, idle_power_w=idle, power_floor_w=floor, **parts
    )


def _ok(cap, rate, batch, capacity) -> bool:
    """Whether :func:`~wattgpu_lite.hybrid.predict.result.status_of` the one row is OK, on its
    floats (the same comparisons): weights that fit, a batch within the KV cache's sequences,
    a rate below the capacity."""
    k, r, b, q = (float(a[0]) for a in (cap, rate, batch, capacity))
    return not (k < 1 or (b > k if r != r else r >= q))


def one_row_backbone(
    model: HybridState, rows: backbone.Rows, cap, rate, *, batch
) -> Backbone | None:
    """:func:`backbone_step` of one row from two physics calls instead of four: the step's pieces
    (:func:`backbone.step_pieces`, from the kept arguments of its configuration,
    :func:`setup`), then ONE evaluation (:func:`evaluate`, the values of
    :func:`bounds.floor_and_per_flop` and the request's call) of the floor and bytes per
    FLOP at the step's batch, s(cap) for the capacity cap / (T_out · s(cap)), and s(B), P_raw(B)
    at the batches :func:`backbone.busy_points` names (the request's five batches). A dense
    row's load and peak batch, its steps and busy power are found on its floats (the same bits
    as the arrays', :mod:`~wattgpu_lite.energy.backbone.one_row_solves`). The load is solved before the
    capacity is known, so this holds only when the row is OK (then the load is the one
    :func:`backbone_step` uses); None otherwise, or where a step is 0 (the caller takes the
    general path: its stand-in load, its values)."""
    c = model.constants
    safe_cap = np.maximum(cap, 1.0)
    offline = np.isnan(rate)
    kept = setup(config_of(rows), c)  # the configuration's arguments, laid out
    pieces = _known_flat(backbone.pieces_from(rows, step_values(kept, rows)), kept.dense)
    if offline[0]:
        load, step_at, busy_batch = batch, batch, batch
    else:
        load, busy, step_at, busy_batch = backbone.rate_loads(
            rows, rate, safe_cap, c, pieces=pieces
        )
    at = backbone.busy_points(rows, step_at, busy_batch, c, pieces=pieces)
    step_batch = bounds.step_batch(load, offline, safe_cap)
    # the request at cap and at the four busy points, beside the floor's two calls: one call
    loads = np.concatenate([safe_cap, at[0]])
    floor, per_flop, found = evaluate(kept, rows, step_batch, loads)
    got = one_row_solves.steps_and_busy(rows, loads, found, c, p_idle=kept.idle_w)
    if got is None:  # a zero step (numpy's inf or NaN there): the general path
        return None
    capacity = backbone.capacity_from_step(rows, safe_cap, got[0])
    if not _ok(cap, rate, batch, capacity):
        return None
    step, power = got[1:]
    physics = (
        backbone.batch_outputs(batch, step, power)
        if offline[0]
        else backbone.rate_outputs(
            rows, rate, load, busy, itl=step, p_busy=power, c=c, p_idle=kept.idle_w
        )
    )
    return filled_backbone(
        rows,
        c,
        cap,
        (kept.idle_w, kept.floor_w),
        status=np.array([Status.OK], dtype=object),
        offline=offline,
        capacity_qps=capacity,
        physics=physics,
        step_batch=step_batch,
        floor_s=floor,
        bytes_per_flop=per_flop,
    )
