"""The backbone's solves of ONE dense row on its Python floats (a single predict's): the peak
batch and the load in flight at a rate of :mod:`~wattgpu_lite.energy.backbone.solves`, the same
operations in the same order on each value, so the same bits
(tests/energy/test_backbone_searches.py holds them equal to the rows' solves)."""

from __future__ import annotations

import math

import numpy as np

from wattgpu_lite.energy.backbone import searches
from wattgpu_lite.energy.backbone.searches import Pieces
from wattgpu_lite.energy.backbone.step_power import Constants, Rows, host_step_s, idle_power_w
from wattgpu_lite.energy.float_twin import maximum, minimum

EPS = float(np.finfo(float).eps)


def peak_affine(rows: Rows, p: Pieces, bound: float, c: Constants) -> np.ndarray:
    """:func:`~.solves.peak_batch` of ONE row whose pieces are affine, in Python floats:
    the raw busy power (:func:`~.solves._pieces_power_w`, the same operations in the
    same order) at 1, ``bound`` and the breakpoints below it, the first best of them (numpy's
    argmax; a point repeated, as 1 is for every breakpoint above ``bound``, once: its power is
    the same)."""
    coef = p.coef[:, :, 0].tolist()
    points = list(dict.fromkeys([1.0, bound, *cuts_within_one(p, bound)]))
    idle = float(idle_power_w(rows, c)[0])
    t_out = float(rows.t_out[0])
    tdp = float(rows.replica_tdp_w[0])
    power = []
    for b in points:
        w = searches.affine_switched(coef, p.groups, b)
        dyn = coef[-1][0] + coef[-1][1] * b
        power.append(min(idle + dyn / (w + t_out * host_step_s(b, c)), tdp))
    return np.array([points[max(range(len(points)), key=power.__getitem__)]])


def cuts_within_one(p: Pieces, hi: float) -> list[float]:
    """:func:`searches.cuts_within` of ONE row at its floats: its breakpoints at most ``hi``,
    1 for the others (a NaN one too)."""
    cuts = (p.cuts if p.cuts is not None else searches.with_cuts(p).cuts)[0].tolist()
    return [x if x <= hi else 1.0 for x in cuts]


def smallest_root_affine(
    p: Pieces, rate: np.ndarray, cap: np.ndarray, host: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """:func:`~.solves._smallest_root` of ONE row whose pieces are affine (``p.curved``
    false), on Python floats: the same operations in the same order on each value (numpy's exp
    where that takes it, :func:`searches.curve`), so the same bits, without a numpy call per
    operation (tests/energy/test_backbone_searches.py holds the two equal)."""
    lam, b_max = float(rate[0]), float(cap[0])
    fixed, per_seq = float(host[0][0]), float(host[1][0])
    coef = p.coef[:, :, 0].tolist()  # (K, 4): a_0, a_B, a_T, a_1 of each expression
    cuts = [x - 1.0 for x in cuts_within_one(p, maximum(b_max, 1.0))]
    loads = sorted([0.0, b_max, max(b_max - 1.0, 0.0), *cuts])
    k, saturated = 0, True
    for j, load in enumerate(loads):  # the first load where g ≤ 0 (numpy's argmax)
        if j and load == loads[j - 1]:  # a repeated load: g as at the one before, > 0
            continue
        batch = min(1.0 + load, b_max)
        host_s = fixed + per_seq * batch
        if lam * (searches.affine_switched(coef, p.groups, batch) + host_s) - load <= 0:
            k, saturated = j, False
            break
    lo, hi = loads[max(k - 1, 0)], loads[k]
    w = searches.affine_branch(coef, p.groups, min(1.0 + 0.5 * (lo + hi), b_max))
    rate_t, rate_1 = float(p.log_rho[0] * p.t_in[0]), float(p.log_rho[0])
    x, grows = hi, hi > lo
    for _ in range(searches.NEWTON_STEPS):
        batch = min(1.0 + x, b_max)
        # ρ's powers, in [0, 1]; where their coefficient is ±0 (a dense row) 0 gives the same bits
        u_t = np.exp(rate_t * batch) if w[2] != 0 else 0.0
        u_1 = np.exp(rate_1 * batch) if w[3] != 0 else 0.0
        demand = lam * (w[0] + w[1] * batch + w[2] * u_t + w[3] * u_1 + fixed + per_seq * batch)
        g = demand - x
        grew = float(1.0 + x < b_max)  # the batch still grows with x
        slope = lam * (w[1] + w[2] * rate_t * u_t + w[3] * rate_1 * u_1 + per_seq) * grew - 1.0
        grows = grows and abs(g) > 4.0 * EPS * (demand + x)
        if not grows:
            break
        step = g / slope if slope != 0.0 else 0.0
        x = min(max(x - (step if math.isfinite(step) else 0.0), lo), hi)
    return np.array([b_max if saturated else x], dtype=float)


def steps_and_busy(
    rows: Rows, loads: np.ndarray, found: tuple, c: Constants, *, p_idle: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`~.backbone.step_and_power_from` of ONE row at its five ``loads`` (the KV cap, then
    the four busy points of :func:`~.backbone.busy_points`), ``found`` = (t_req, dynamic) there,
    then :func:`~.backbone.steps_and_busy_from` of the busy points, on its floats (the same
    operations in the same order; numpy's minimum and maximum): (s(cap), s at the first busy
    point, the largest raw power of the other three), arrays of one; None where a step is 0
    (Python raises where numpy gives inf or NaN)."""
    t_out, tdp, idle = (float(a[0]) for a in (rows.t_out, rows.replica_tdp_w, p_idle))
    step, power = [], []
    try:
        for b, t_req, dynamic in zip(*(a.tolist() for a in (loads, *found)), strict=True):
            step.append(b * t_req / t_out + host_step_s(b, c))
            power.append(minimum(idle + dynamic * b / t_out / step[-1], tdp))
    except ZeroDivisionError:
        return None
    busy = maximum(maximum(power[2], power[3]), power[4])
    return np.array(step[:1]), np.array(step[1:2]), np.array([busy])
