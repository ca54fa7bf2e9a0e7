"""The backbone's solves on the step's pieces: the peak batch and the load in flight at a rate,
with their one-row twins on Python floats (the same bits, :mod:`~.one_row_solves`); exact to
the last bits (:mod:`~wattgpu_lite.energy.backbone.searches`)."""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy.backbone import one_row_solves, searches, step_power
from wattgpu_lite.energy.backbone.one_row_solves import EPS
from wattgpu_lite.energy.backbone.searches import Pieces
from wattgpu_lite.energy.backbone.step_power import Constants, Rows, host_step_s, idle_power_w

MAX_BATCH = 1024.0  # the peak batch is searched on [1, 1024]
PEAK_GRID_POINTS = 33  # ln B on [0, ln 1024] every 0.22: the global peak's neighbourhood


def _pieces_power_w(rows: Rows, p: Pieces, batch: np.ndarray, c: Constants) -> np.ndarray:
    """Raw busy power at ``batch`` (n, m), pieces: min(P_idle + N/(W + T_out·t_host), TDP)."""
    w, dyn = searches.switched(p, batch)
    power = idle_power_w(rows, c)[:, None] + dyn / (w + rows.t_out[:, None] * host_step_s(batch, c))
    return np.minimum(power, rows.replica_tdp_w[:, None])


def _power_slope(rows: Rows, p: Pieces, branch: tuple, batch: np.ndarray, *, c: Constants) -> tuple:
    """(h, h') with h = N'·S − N·S', S = W + T_out·t_host(B), on the ``branch`` (W's and N's
    coefficients) at ``batch``: the sign of dP/dB and its derivative, for Newton on dP/dB = 0."""
    (s, s1, s2), (n, n1, n2) = ([searches.curve(p, e, batch, k) for k in range(3)] for e in branch)
    s, s1 = s + rows.t_out * host_step_s(batch, c), s1 + rows.t_out * c.seq_s
    return n1 * s - n * s1, n2 * s - n * s2


def _stationary_peaks(
    rows: Rows, p: Pieces, lo: np.ndarray, hi: np.ndarray, *, c: Constants
) -> np.ndarray:
    """Per row, the B in [lo, hi] (one piece) where dP/dB falls through 0 (h(lo) > 0 > h(hi),
    :func:`_power_slope`), by Newton on h kept inside the bracket (bisection when a step leaves
    it); ``lo`` where h does not change sign that way (P's maximum there is an end)."""
    branch = searches.branch_of(p, 0.5 * (lo + hi))
    a, b = lo.copy(), hi.copy()
    inside = (_power_slope(rows, p, branch, a, c=c)[0] > 0) & (
        _power_slope(rows, p, branch, b, c=c)[0] < 0
    )
    x, active = 0.5 * (a + b), inside.copy()  # a row stops at its own last step
    for _ in range(searches.NEWTON_STEPS):
        h, dh = _power_slope(rows, p, branch, x, c=c)
        a, b = np.where(h > 0, x, a), np.where(h > 0, b, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            nxt = x - h / dh
        nxt = np.where((nxt > a) & (nxt < b), nxt, 0.5 * (a + b))
        done = np.abs(nxt - x) <= 4.0 * EPS * x
        x = np.where(active, nxt, x)
        active &= ~done
        if not active.any():
            break
    return np.where(inside, x, lo)


def _per_row(value, n: int) -> np.ndarray:
    """``value`` (one or one per row) as n floats: np.broadcast_to's, without it if n already."""
    value = np.asarray(value, dtype=float)
    return value if value.shape == (n,) else np.broadcast_to(value, (n,))


def peak_batch(
    rows: Rows, c: Constants, upper: float | np.ndarray = 1024.0, pieces: Pieces | None = None
) -> np.ndarray:
    """Batch at which the raw busy power is highest on [1, upper] (``upper`` per row or one for
    all; at most 1024), from the step's pieces (:func:`step_pieces`, one call; ``pieces`` if
    given). Between two breakpoints of s(B) (:func:`~wattgpu_lite.energy.backbone.searches.breakpoints`)
    a dense model's N and s are affine, so P = P_idle + N/(T_out·s) is monotone there: the peak is
    the best of 1, ``upper`` and the breakpoints, exactly. A MoE's pieces are curved (the experts
    a step touches): the best of those points and a grid of :data:`PEAK_GRID_POINTS` in ln B, then
    Newton on dP/dB = 0 (analytic derivatives) on the pieces either side of it.

    The raw power rises while a step is memory-bound and may dip once it turns compute-bound;
    with several local peaks (a roofline corner per phase), the best point is the highest one."""
    n = len(rows.t_in)
    bound = np.minimum(np.maximum(_per_row(upper, n), 1.0), MAX_BATCH)  # np.clip's values
    p = step_power.step_pieces(rows, c) if pieces is None else pieces
    if n == 1 and not p.curved[0]:  # one dense row (a single predict's): on its floats
        return one_row_solves.peak_affine(rows, p, float(bound[0]), c)
    ends = [np.ones((n, 1)), bound[:, None], searches.cuts_within(p, bound)]
    points = np.concatenate(ends, axis=1)
    curved, out = p.curved, np.empty(n)
    flat = ~curved
    if flat.any():
        sub, sub_p, at = _part(rows, p, flat, points)
        best = np.argmax(_pieces_power_w(sub, sub_p, at, c), axis=1)
        out[flat] = at[np.arange(len(at)), best]
    if curved.any():
        sub, sub_p, at = _part(rows, p, curved, points)
        out[curved] = _curved_peak(sub, sub_p, at, bound[curved], c=c)
    return out


def _part(
    rows: Rows, p: Pieces, mask: np.ndarray, points: np.ndarray
) -> tuple[Rows, searches.Pieces, np.ndarray]:
    """(rows, pieces, points) of the rows ``mask``: the whole set itself when it is every row
    (a single predict's one row; a copy would hold the same values)."""
    if mask.all():
        return rows, p, points
    return rows.take(mask), p.take(mask), points[mask]


def _curved_peak(
    rows: Rows, p: Pieces, points: np.ndarray, bound: np.ndarray, *, c: Constants
) -> np.ndarray:
    """:func:`peak_batch` for rows whose pieces are curved: the best of ``points`` and a grid in
    ln B, refined by :func:`_stationary_peaks` on the interval either side of it."""
    grid = np.exp(np.linspace(0.0, np.log(MAX_BATCH), PEAK_GRID_POINTS))
    at = np.sort(
        np.concatenate([points, np.minimum(grid[None, :], bound[:, None])], axis=1), axis=1
    )
    best = np.argmax(_pieces_power_w(rows, p, at, c), axis=1)
    row = np.arange(len(at))
    top = at[row, best][:, None]
    below = np.max(np.where(at < top, at, -np.inf), axis=1, initial=-np.inf)
    above = np.min(np.where(at > top, at, np.inf), axis=1, initial=np.inf)
    top = top[:, 0]
    lo, hi = np.where(np.isfinite(below), below, top), np.where(np.isfinite(above), above, top)
    stationary = [_stationary_peaks(rows, p, a, b, c=c) for a, b in ((lo, top), (top, hi))]
    tries = np.stack([top, *stationary], axis=1)
    return tries[row, np.argmax(_pieces_power_w(rows, p, tries, c), axis=1)]


def in_flight_at_rate(
    rows: Rows, rate_qps: np.ndarray, cap: np.ndarray, c: Constants, *, pieces: Pieces | None = None
) -> np.ndarray:
    """Mean requests in flight L at Poisson rate λ: the smallest root of
    g(L) = λ · T_out · s(min(1 + L, cap)) − L on [0, cap] (Little's law with the per-request ITL
    at the batch a request sees), from the step's pieces (:func:`step_pieces`, one call;
    ``pieces`` if given). g > 0 at L = 0; between the breakpoints of s (and cap − 1, where the
    batch stops growing) g is affine for a dense model and concave for a MoE, so the first of
    those points where g ≤ 0 closes the piece holding the smallest root, and Newton from that end
    reaches it without overshooting: one step when affine, to adjacent floats either way. No root:
    beyond capacity, L = cap.
    """
    n = len(rows.t_in)
    rate, cap = _per_row(rate_qps, n), _per_row(cap, n)
    p = step_power.step_pieces(rows, c) if pieces is None else pieces
    host = (rows.t_out * c.step_s, rows.t_out * c.seq_s)  # T_out·t_host(B) = a + b·B
    curved, out = p.curved, np.empty(n)
    if n == 1 and not curved[0]:  # one dense row (a single predict's): on its floats
        return one_row_solves.smallest_root_affine(p, rate, cap, host)
    for part in (~curved, curved):  # a dense row's evaluations skip the powers of ρ
        if part.all():  # every row (a single predict's one): the arrays themselves
            return _smallest_root(p, rate, cap, host)
        if part.any():
            out[part] = _smallest_root(
                p.take(part), rate[part], cap[part], (host[0][part], host[1][part])
            )
    return out


def _smallest_root(
    p: Pieces, rate: np.ndarray, cap: np.ndarray, host: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """:func:`in_flight_at_rate` on the pieces ``p`` (``host`` = (T_out·c_step, T_out·c_seq): the
    host's time over a request's steps, a + b·B, affine in B like a dense piece)."""
    fixed, per_seq = host
    n = len(rate)
    cuts = searches.cuts_within(p, np.maximum(cap, 1.0)) - 1.0
    ends = [np.zeros((n, 1)), cap[:, None], np.maximum(cap - 1.0, 0.0)[:, None], cuts]
    loads = np.sort(np.concatenate(ends, axis=1), axis=1)
    batch = np.minimum(1.0 + loads, cap[:, None])
    host_s = fixed[:, None] + per_seq[:, None] * batch
    nonpositive = rate[:, None] * (searches.switched(p, batch)[0] + host_s) - loads <= 0
    k = np.argmax(nonpositive, axis=1)
    saturated = ~nonpositive.any(axis=1)
    row = np.arange(n)
    lo, hi = loads[row, np.maximum(k - 1, 0)], loads[row, k]
    w, _ = searches.branch_of(p, np.minimum(1.0 + 0.5 * (lo + hi), cap))
    x, grows = hi.copy(), hi > lo
    for _ in range(searches.NEWTON_STEPS):  # g(x) = λ·(W(b) + T_out·t_host(b)) − x, b ≤ cap
        batch = np.minimum(1.0 + x, cap)
        demand = rate * (searches.curve(p, w, batch) + fixed + per_seq * batch)
        g = demand - x
        slope = rate * (searches.curve(p, w, batch, 1) + per_seq) * (1.0 + x < cap) - 1.0
        grows &= np.abs(g) > 4.0 * EPS * (demand + x)  # a residual above the rounding of its terms
        if not grows.any():
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(grows, g / slope, 0.0)
        x = np.clip(x - np.where(np.isfinite(step), step, 0.0), lo, hi)
    return np.where(saturated, cap, x)
