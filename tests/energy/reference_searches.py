"""The bracketed searches the backbone's closed-form solves replaced, kept as references for
tests/energy/test_backbone_searches.py and the "old search" figures of benchmarks/predict_speed.py
(neither the package nor a notebook uses them).

Each search calls ``f(idx, x)``: the function at points ``x`` (shape ``(len(idx), m)``) of the rows
``idx``, one vectorised evaluation for all of them. A small table is searched several steps per call
(every point the next steps may need, evaluated at once), a large one one step per call, so a call
holds about :data:`POINTS_PER_CALL` points either way and the answer does not depend on it:

- :func:`golden_max`: golden-section search for a maximum, x_a = hi − φ·(hi − lo), x_b = lo + φ·(hi
  − lo), φ = (√5 − 1)/2, keep [lo, x_b] when f(x_a) ≥ f(x_b) else [x_a, hi]; one new point per step
  (the kept one is reused: φ² = 1 − φ);
- :func:`first_nonpositive`: the first point of a grid where f ≤ 0;
- :func:`illinois_root`: the root of f in a bracket f(lo) > 0 ≥ f(hi) by the Illinois variant of
  regula falsi, x = hi − f_hi · (hi − lo)/(f_hi − f_lo), halving the f of an end kept twice in a
  row (Dowell & Jarratt 1971, BIT 11: 168–174; order 1.44); each row steps until its bracket holds
  adjacent floats, a few times fewer calls than bisection for the same answer.

:func:`reference_peak_batch` and :func:`reference_in_flight_at_rate` are the backbone's
``peak_batch`` and ``in_flight_at_rate`` as they were computed with these searches.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from wattgpu_lite.energy.backbone.solves import MAX_BATCH, PEAK_GRID_POINTS
from wattgpu_lite.energy.backbone.step_power import Constants, Rows, raw_busy_power_w, step_time_s

GRID_POINTS = 24  # geometric grid over (0, cap] that brackets the load
ROOT_RTOL = 4.0 * np.finfo(float).eps  # the load is narrowed until lo and hi are adjacent floats
ROOT_STEPS = 64  # at most (Illinois steps take ~10; bisection would take ~51)
END_PROBE = 1e-6  # ln B just below ln upper: is power falling into the upper batch?
GOLDEN_STEPS = 72  # golden-section steps in that neighbourhood: ln B to < 1e-14

Evaluate = Callable[[np.ndarray, np.ndarray], np.ndarray]  # f(rows idx, points (n, m)) -> (n, m)
PHI = (np.sqrt(5.0) - 1.0) / 2.0
POINTS_PER_CALL = 256  # points a search aims at per call (a call: ~0.15 ms + 0.4 µs a point)


def golden_points(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x_a, x_b) = (hi − φ·(hi − lo), lo + φ·(hi − lo)): the golden-section pair in [lo, hi]."""
    return hi - PHI * (hi - lo), lo + PHI * (hi - lo)


def lookahead_levels(n_rows: int, steps: int, points_per_call: int = POINTS_PER_CALL) -> int:
    """Steps one call resolves: the most k with n_rows · (2^k − 1) ≤ points_per_call (≥ 1, ≤ steps)."""
    k = int(np.floor(np.log2(points_per_call / max(n_rows, 1) + 1.0)))
    return int(min(max(k, 1), max(steps, 1)))


def _golden_tree(lo: np.ndarray, hi: np.ndarray, left: np.ndarray, levels: int):
    """The intervals and new points of the next ``levels`` steps after the decision ``left``, for
    every sequence of later decisions: per level j, arrays (n, 2^j) of lo, hi, the new point, and
    whether it is the interval's x_a (the other point is reused from the parent)."""
    a, b = golden_points(lo, hi)
    lo, hi = np.where(left, lo, a)[:, None], np.where(left, b, hi)[:, None]
    fresh_is_a = left[:, None]
    tree = []
    for level in range(levels):
        na, nb = golden_points(lo, hi)
        tree.append((lo, hi, np.where(fresh_is_a, na, nb), fresh_is_a))
        if level + 1 < levels:  # children: keep [lo, x_b] (new x_a) or [x_a, hi] (new x_b)
            lo = np.stack([lo, na], axis=2).reshape(len(lo), -1)
            hi = np.stack([nb, hi], axis=2).reshape(len(hi), -1)
            fresh_is_a = np.tile(np.array([True, False]), na.shape)
    return tree


def golden_max(f: Evaluate, lo: np.ndarray, hi: np.ndarray, steps: int,
               points_per_call: int = POINTS_PER_CALL) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(lo, hi) after ``steps`` golden-section steps towards a maximum of f on [lo, hi]
    (module docstring); the same answer for any ``points_per_call``."""
    lo, hi = np.asarray(lo, dtype=float).copy(), np.asarray(hi, dtype=float).copy()
    idx = np.arange(len(lo))
    fa, fb = f(idx, np.stack(golden_points(lo, hi), axis=1)).T
    done = 0
    while done < steps:
        levels = min(lookahead_levels(len(lo), steps, points_per_call), steps - done - 1)
        left = fa >= fb
        if levels == 0:  # the last step needs no new point
            a, b = golden_points(lo, hi)
            return np.where(left, lo, a), np.where(left, b, hi)
        tree = _golden_tree(lo, hi, left, levels)
        values = f(idx, np.concatenate([x for _, _, x, _ in tree], axis=1))
        kept, node, start = np.where(left, fa, fb), np.zeros(len(lo), dtype=np.int64), 0
        for level, (t_lo, t_hi, _, t_fresh_a) in enumerate(tree):
            fx = values[idx, start + node]
            start += 2**level
            fresh_a = t_fresh_a[idx, node]
            fa, fb = np.where(fresh_a, fx, kept), np.where(fresh_a, kept, fx)
            lo, hi = t_lo[idx, node], t_hi[idx, node]
            if level + 1 < levels:
                go_left = fa >= fb
                kept, node = np.where(go_left, fa, fb), 2 * node + (~go_left)
        done += levels
    return lo, hi


def first_nonpositive(f: Evaluate, points: np.ndarray,
                      points_per_call: int = POINTS_PER_CALL) -> tuple[np.ndarray, ...]:  # fmt: skip
    """(k, f at column k, f at column k − 1) per row: k the first column of ``points`` (n, K) where
    f ≤ 0 (K if none: both values NaN; k = 0: the second NaN). Columns are evaluated in blocks,
    each row until its first such point."""
    n, width = points.shape
    first, at, before = np.full(n, width), np.full(n, np.nan), np.full(n, np.nan)
    last = np.full(n, np.nan)  # f at the last column evaluated so far
    block = max(1, points_per_call // max(n, 1))
    for start in range(0, width, block):
        todo = np.flatnonzero(first == width)
        if not len(todo):
            break
        values = f(todo, points[todo, start : start + block])
        hit = (values <= 0).any(axis=1)
        k = np.argmax(values <= 0, axis=1)
        rows, kh, vals = todo[hit], k[hit], values[hit]
        first[rows], at[rows] = start + kh, vals[np.arange(len(rows)), kh]
        before[rows] = np.where(kh > 0, vals[np.arange(len(rows)), np.maximum(kh - 1, 0)],
                                last[rows])  # fmt: skip
        last[todo] = values[:, -1]
    return first, at, before


def illinois_root(f: Evaluate, lo: np.ndarray, hi: np.ndarray, f_lo: np.ndarray, f_hi: np.ndarray,
                  rtol: float, max_steps: int) -> np.ndarray:  # fmt: skip
    """The end ``hi`` (f ≤ 0) of a bracket f(lo) > 0 ≥ f(hi) (values ``f_lo``, ``f_hi``) after
    Illinois steps (module docstring), each row until hi − lo ≤ rtol · max(hi, 1e-9) or f = 0 at
    the new point, at most ``max_steps``; one point per unfinished row per call. A secant point
    that rounding puts outside (lo, hi) is replaced by the midpoint."""
    lo, hi = np.asarray(lo, dtype=float).copy(), np.asarray(hi, dtype=float).copy()
    f_lo, f_hi = np.asarray(f_lo, dtype=float).copy(), np.asarray(f_hi, dtype=float).copy()
    side = np.zeros(len(lo), dtype=np.int8)  # +1: lo was replaced last, −1: hi was
    for _ in range(max_steps):
        todo = np.flatnonzero(hi - lo > rtol * np.maximum(hi, 1e-9))
        if not len(todo):
            break
        a, b, fa, fb = lo[todo], hi[todo], f_lo[todo], f_hi[todo]
        x = b - fb * (b - a) / (fb - fa)
        x = np.where((x > a) & (x < b), x, 0.5 * (a + b))
        fx = f(todo, x[:, None])[:, 0]
        new_hi = fx <= 0
        keep_lo = new_hi & (side[todo] == -1)  # hi replaced twice: halve f at lo
        keep_hi = ~new_hi & (side[todo] == 1)
        f_lo[todo] = np.where(new_hi, np.where(keep_lo, 0.5 * fa, fa), fx)
        f_hi[todo] = np.where(new_hi, fx, np.where(keep_hi, 0.5 * fb, fb))
        lo[todo] = np.where(new_hi, np.where(fx == 0, x, a), x)
        hi[todo] = np.where(new_hi, x, b)
        side[todo] = np.where(new_hi, -1, 1)
    return hi


def on_points(rows: Rows, fn, *per_row: np.ndarray) -> Evaluate:
    """f(idx, x) for the searches above: ``fn(rows idx, x, per-row arrays idx)``
    at every point of ``x`` (shape (len(idx), m)) in one call, each row repeated m times."""

    def f(idx: np.ndarray, x: np.ndarray) -> np.ndarray:
        m = x.shape[1]
        sub = rows if len(idx) == len(rows.t_in) else rows.take(idx)
        extra = [np.repeat(np.asarray(a)[idx], m) for a in per_row]
        each = np.repeat(np.arange(len(sub.t_in)), m)  # row i at i·m ... i·m + m − 1
        return np.asarray(fn(sub.take(each), x.ravel(), *extra)).reshape(x.shape)

    return f


def reference_peak_batch(rows: Rows, c: Constants, upper: float | np.ndarray = 1024.0,
                         pieces: object | None = None) -> np.ndarray:  # fmt: skip
    """The search ``backbone.peak_batch`` replaced (``pieces`` ignored: the same signature, so
    it can be swapped in). Batch at which the raw busy power is highest on [1, upper] (``upper``
    per row or one for all; at most 1024): the best of the points ln B = 0, 0.22, 0.43, … below ln upper, a probe
    at ln upper − :data:`END_PROBE` and ln upper itself (:data:`PEAK_GRID_POINTS` on
    [0, ln 1024]; one call), then golden-section search
    (:func:`golden_max`, ``GOLDEN_STEPS`` steps) between the best
    point's two neighbours, to machine precision; ``upper`` where the best point is ln upper. The
    probe finds a peak inside the last grid step when power falls into ``upper``.

    The raw power rises while a step is memory-bound (more work per weight read) and may dip once
    it turns compute-bound (the weight read spread over a longer step); with several local peaks
    (a roofline corner per phase), the grid picks the highest one's neighbourhood.
    """
    n = len(rows.t_in)
    bound = np.clip(np.broadcast_to(np.asarray(upper, dtype=float), (n,)), 1.0, MAX_BATCH)
    top = np.log(bound)
    grid = np.linspace(0.0, np.log(MAX_BATCH), PEAK_GRID_POINTS)
    below = np.searchsorted(grid, top, side="left")  # the grid points below ln upper
    probe = np.maximum(top - END_PROBE, grid[np.maximum(below - 1, 0)])
    counts = below + 2  # and the probe, and ln upper
    row = np.repeat(np.arange(n), counts)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pos = np.arange(len(row)) - start[row]
    x = np.where(
        pos == counts[row] - 1,
        top[row],
        np.where(pos == counts[row] - 2, probe[row], grid[np.minimum(pos, len(grid) - 1)]),
    )
    power = raw_busy_power_w(rows.take(row), np.exp(x), c)
    best_power = np.maximum.reduceat(power, start)
    best = np.minimum.reduceat(np.where(power == best_power[row], pos, len(grid) + 2), start)
    refine = best < counts - 1
    out = bound.copy()
    if refine.any():
        k, at = best[refine], start[refine]
        lo = x[at + np.maximum(k - 1, 0)]
        hi = x[at + k + 1]
        sub = rows.take(refine)
        f = on_points(sub, lambda r, z: raw_busy_power_w(r, np.exp(z), c))
        lo, hi = golden_max(f, lo, hi, GOLDEN_STEPS)
        out[refine] = np.minimum(np.exp(0.5 * (lo + hi)), bound[refine])
    return out


def reference_in_flight_at_rate(rows: Rows, rate_qps: np.ndarray, cap: np.ndarray,
                                c: Constants, *, pieces: object | None = None) -> np.ndarray:  # fmt: skip
    """The search ``backbone.in_flight_at_rate`` replaced (``pieces`` ignored: the same
    signature, so it can be swapped in). Mean requests in flight L at Poisson rate
    λ: the smallest root of
    g(L) = λ · T_out · s(min(1 + L, cap)) − L on [0, cap] (Little's law with the per-request ITL
    at the batch a request sees). s grows with the batch, so g > 0 at L = 0; the first point of a
    geometric grid over (0, cap] where g ≤ 0 brackets the root, which Illinois steps narrow to
    ``ROOT_RTOL``, adjacent floats (:func:`illinois_root`): the load is
    a smooth function of the constants to machine precision, as the fit needs. No root: beyond
    capacity, L = cap.
    """
    n = len(rows.t_in)
    rate = np.broadcast_to(np.asarray(rate_qps, dtype=float), (n,))
    cap = np.broadcast_to(np.asarray(cap, dtype=float), (n,))

    def g(r: Rows, load: np.ndarray, lam: np.ndarray, top: np.ndarray) -> np.ndarray:
        return lam * r.t_out * step_time_s(r, np.minimum(1.0 + load, top), c) - load

    f = on_points(rows, g, rate, cap)
    grid = np.concatenate([[0.0], np.geomspace(1e-4, 1.0, GRID_POINTS)])
    points = grid[None, :] * cap[:, None]
    k, g_hi, g_lo = first_nonpositive(f, points)
    saturated = k == len(grid)
    row = np.arange(n)
    hi = np.where(saturated, cap, points[row, np.minimum(k, len(grid) - 1)])
    lo = np.where(saturated | (k == 0), hi, points[row, np.maximum(k - 1, 0)])
    load = illinois_root(f, lo, hi, g_lo, g_hi, ROOT_RTOL, ROOT_STEPS)
    return np.where(saturated, cap, load)
