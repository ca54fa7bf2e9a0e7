"""Solves over many rows at once, for the backbone (:mod:`~wattgpu_lite.energy.backbone`).

The solves work on a function given in pieces (:class:`Pieces`, from
:mod:`~wattgpu_lite.energy.symbolic_step`): W(B) = R + Σ_g op_g(products), every expression
a_0 + a_B·B + a_T·ρ^(T_in·B) + a_1·ρ^B. :func:`breakpoints` gives the B where two products of a
group are equal (a line's root; for a MoE, Newton on one convex or concave exponential, from the
side it cannot overshoot), :func:`switched` W and N at any B, :func:`branch_of` and :func:`curve`
one piece's smooth branch and its derivatives, for Newton steps without a physics call. (The
bracketed searches they replaced: the tests' references, tests/energy/reference_searches.py.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import numpy as np

TINY = 1e-300  # ρ = 0 (a dense model): log ρ read as log TINY, ρ^B = 0 to the last bit
CUT_MAX = 2.0**20  # breakpoints are found on [1, CUT_MAX] once per table, then kept in range
ROW_BLOCK = 8192  # rows per block of switched's (rows, m) expressions, one at a time
LOG_TINY = float(np.log(TINY))  # log ρ at or below it: ρ = 0 (found once)
NEWTON_STEPS = 40  # at most; a dense row's piece is affine (one step), a MoE's converges in ~5


@dataclass(frozen=True)
class Pieces:
    """Per row, K expressions e = a_0 + a_B·B + a_T·ρ^(T_in·B) + a_1·ρ^B (``coef`` (K, 4, n)):
    the products of the ``groups`` ((op, size), in order), then the remainder R, then N, so that
    W(B) = R + Σ_g op_g(products of g) and N(B) (:mod:`wattgpu_lite.energy.symbolic_step`)."""

    coef: np.ndarray
    log_rho: np.ndarray  # (n,) log ρ, ρ = 1 − k/E (log TINY where ρ = 0)
    t_in: np.ndarray  # (n,)
    groups: tuple[tuple[str, int], ...]
    cuts: np.ndarray | None = None  # (n, M) breakpoints in [1, CUT_MAX] (:func:`with_cuts`)

    def take(self, mask: np.ndarray) -> Pieces:
        """The rows ``mask``."""
        cuts = None if self.cuts is None else self.cuts[mask]
        coef = np.ascontiguousarray(self.coef[:, :, mask])
        return Pieces(coef, self.log_rho[mask], self.t_in[mask], self.groups, cuts=cuts)

    @cached_property
    def curved(self) -> np.ndarray:
        """(n,) rows with a power of ρ in some piece (a MoE), found once per (frozen) Pieces."""
        return (self.coef[:, 2:] != 0).any(axis=(0, 1)) & (self.log_rho > LOG_TINY)


def powers(p: Pieces, batch: np.ndarray, curved: bool) -> tuple | None:
    """(ρ^(T_in·B), ρ^B) at ``batch`` (n, m) if ``curved`` (any row of the whole call is)."""
    u_t = np.exp((p.log_rho * p.t_in)[:, None] * batch) if curved else None
    return None if u_t is None else (u_t, np.exp(p.log_rho[:, None] * batch))


def piece_value(p: Pieces, k: int, batch: np.ndarray, u: tuple | None) -> np.ndarray:
    """Expression k at ``batch`` (n, m): a_0 + a_B·B (+ a_T·ρ^(T_in·B) + a_1·ρ^B: ``u``)."""
    a = p.coef[k][..., None]
    out = a[0] + a[1] * batch
    if u is not None:
        out += a[2] * u[0] + a[3] * u[1]
    return out


def active_branch(p: Pieces, batch: np.ndarray) -> list[np.ndarray]:
    """Per group, the index (n, m) of its product that the max / min takes at ``batch``."""
    out, start, u = [], 0, powers(p, batch, bool(p.curved.any()))
    for op, size in p.groups:
        part = np.stack([piece_value(p, k, batch, u) for k in range(start, start + size)])
        out.append(start + (np.argmax(part, axis=0) if op == "max" else np.argmin(part, axis=0)))
        start += size
    return out


def switched(p: Pieces, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(W, N) at ``batch`` (n, m): every group's max / min taken where it is; :data:`ROW_BLOCK`
    rows at a time (each value is its row's and point's alone: the same values)."""
    n, curved = len(batch), bool(p.curved.any())
    if n <= ROW_BLOCK:
        return _switched(p, batch, curved)
    w, dyn = np.empty(batch.shape), np.empty(batch.shape)
    for s in range(0, n, ROW_BLOCK):
        rows = slice(s, s + ROW_BLOCK)
        part = Pieces(p.coef[:, :, rows], p.log_rho[rows], p.t_in[rows], p.groups)  # views
        w[rows], dyn[rows] = _switched(part, batch[rows], curved)
    return w, dyn


def _switched(p: Pieces, batch: np.ndarray, curved: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`switched` of one block (``curved``: any row of the call is): each expression folded
    into its group's max / min as made (in order). A group 0 on every row (one node's
    communication) adds +0 to W, never −0 (its callers add the host's time at once): skipped."""
    u, zero = powers(p, batch, curved), ~p.coef.any(axis=(1, 2))
    w, start = piece_value(p, len(p.coef) - 2, batch, u), 0
    for op, size in p.groups:
        if not zero[start : start + size].all():
            fold, best = (
                (np.maximum if op == "max" else np.minimum),
                piece_value(p, start, batch, u),
            )
            for k in range(start + 1, start + size):
                fold(best, piece_value(p, k, batch, u), out=best)
            w = w + best
        start += size
    return w, piece_value(p, len(p.coef) - 1, batch, u)


def branch_of(p: Pieces, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(W's, N's coefficients (4, n)) on the piece holding ``batch`` (n,): R plus, per group,
    the product its max / min takes there — smooth in B, equal to W on that piece."""
    row = np.arange(len(batch))
    w = p.coef[-2] + sum(p.coef[k[:, 0], :, row].T for k in active_branch(p, batch[:, None]))
    return w, p.coef[-1]


def affine_switched(coef: list, groups: tuple[tuple[str, int], ...], batch: float) -> float:
    """:func:`switched`'s W of ONE row whose pieces are affine, at one ``batch``, in Python floats
    (``coef``: its (K, 4) coefficients as lists): R + each group's max / min, in that order."""
    values = [a[0] + a[1] * batch for a in coef]
    w, start = values[-2], 0
    for op, size in groups:
        part = values[start : start + size]
        w = w + (max(part) if op == "max" else min(part))
        start += size
    return w


def affine_branch(coef: list, groups: tuple[tuple[str, int], ...], batch: float) -> list[float]:
    """:func:`branch_of`'s W coefficients of ONE row whose pieces are affine, at one ``batch``,
    in Python floats: R plus the sum of the products each group's max / min takes (the first
    where several tie, as numpy's argmax / argmin)."""
    values = [a[0] + a[1] * batch for a in coef]
    t0 = t1 = t2 = t3 = start = 0  # the four sums, each from 0 in the groups' order
    for op, size in groups:
        part = values[start : start + size]
        a = coef[start + part.index(max(part) if op == "max" else min(part))]
        t0, t1, t2, t3 = t0 + a[0], t1 + a[1], t2 + a[2], t3 + a[3]
        start += size
    return [coef[-2][0] + t0, coef[-2][1] + t1, coef[-2][2] + t2, coef[-2][3] + t3]  # R + sums


def curve(p: Pieces, coef: np.ndarray, batch: np.ndarray, order: int = 0) -> np.ndarray:
    """d^order e / dB^order at ``batch`` (n,) of ``coef`` (4, n): a branch of ``p`` (branch_of)."""
    rate_t, rate_1 = p.log_rho * p.t_in, p.log_rho
    u_t, u_1 = np.exp(rate_t * batch), np.exp(rate_1 * batch)
    a0, a_b, a_t, a_1 = coef
    if order == 0:
        return a0 + a_b * batch + a_t * u_t + a_1 * u_1
    if order == 1:
        return a_b + a_t * rate_t * u_t + a_1 * rate_1 * u_1
    return a_t * rate_t**2 * u_t + a_1 * rate_1**2 * u_1


def _crossings(d0, d_b, d_u, rate, *, lo, hi) -> list[np.ndarray]:
    """Roots in [lo, hi] of δ(B) = d0 + d_b·B + d_u·e^(rate·B) (rate < 0; at most two, one on each
    side of δ's one stationary point, where e^(rate·B) = −d_b / (d_u·rate)): per side, Newton
    from the end where δ has the sign of δ'' (= d_u), which converges without overshooting on a
    convex or concave monotone branch; NaN where a side holds no root."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        turn = np.log(-d_b / (d_u * rate)) / rate
    turn = np.where(np.isfinite(turn), np.clip(turn, lo, hi), hi)

    def delta(b, order=0):
        e = np.exp(rate * b)
        return (d0 + d_b * b + d_u * e, d_b + d_u * rate * e)[order]

    roots = []
    for left, right in ((lo, turn), (turn, hi)):
        f_l, f_r = delta(left), delta(right)
        has = (f_l * f_r <= 0) & (right > left)
        x = np.where(f_l * np.sign(d_u) >= 0, left, right)
        active = has.copy()  # a row stops at its own last step: its root, whatever its neighbours
        for _ in range(NEWTON_STEPS):
            with np.errstate(divide="ignore", invalid="ignore"):
                step = delta(x) / delta(x, 1)
            step = np.where(active & np.isfinite(step), step, 0.0)
            x = np.clip(x - step, left, right)
            active &= np.abs(step) > 4.0 * np.finfo(float).eps * np.abs(x)
            if not active.any():
                break
        roots.append(np.where(has, x, np.nan))
    return roots


@lru_cache(maxsize=16)
def _pairs(groups: tuple[tuple[str, int], ...]) -> tuple[tuple[int, int], ...]:
    """Every pair (i, j) of products of one group (kept per ``groups``)."""
    pairs, start = [], 0
    for _, size in groups:
        pairs += [(i, j) for i in range(start, start + size) for j in range(i + 1, start + size)]
        start += size
    return tuple(pairs)


def breakpoints(p: Pieces, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """(n, M) every B in [lo, hi] where two products of one group are equal (NaN elsewhere): the
    ends of the pieces of W. A pair differs by δ = Δa_0 + Δa_B·B + Δa_T·ρ^(T_in·B) + Δa_1·ρ^B: a
    line (its root in closed form), or for a MoE a line and one power (a group is of one phase),
    :func:`_crossings` (two roots at most, a second set of columns); both powers: refused."""
    i, j = np.array(_pairs(p.groups)).T
    c, powered = p.coef, bool(p.coef[:, 2:].any())  # none: every pair a line (d_u = 0)
    d = [c[i, k] - c[j, k] for k in range(4 if powered else 2)]  # Δa_0, Δa_B (, Δa_T, Δa_1)
    if powered and np.any((d[2] != 0) & (d[3] != 0)):
        raise ValueError("a group mixes the prefill and decode powers of ρ")
    lo, hi = np.broadcast_to(lo, d[0].shape), np.broadcast_to(hi, d[0].shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        line = -d[0] / d[1]
    first = np.where((line >= lo) & (line <= hi), line, np.nan)
    d_u = d[2] + d[3] if powered else 0.0  # no power: no pair curved
    rate = np.where(d[2] != 0, p.log_rho * p.t_in, p.log_rho) if powered else 0.0
    curved = (d_u != 0) & (rate > LOG_TINY)
    if not np.any(curved):
        return first.T
    second = np.full(first.shape, np.nan)
    roots = _crossings(
        d[0][curved], d[1][curved], d_u[curved], rate[curved], lo=lo[curved], hi=hi[curved]
    )
    first[curved], second[curved] = roots
    return np.concatenate([first, second]).T


def with_cuts(p: Pieces) -> Pieces:
    """``p`` with its :func:`breakpoints` on [1, CUT_MAX] kept (one affine row's on floats)."""
    n = len(p.t_in)
    if n == 1 and not p.curved[0]:
        return Pieces(p.coef, p.log_rho, p.t_in, p.groups, cuts=affine_breakpoints(p))
    return replace(p, cuts=breakpoints(p, np.ones(n), np.full(n, CUT_MAX)))


def affine_breakpoints(p: Pieces) -> np.ndarray:
    """:func:`breakpoints` on [1, CUT_MAX] of ONE row whose pieces are affine, in Python floats:
    each pair's line root −Δa_0 / Δa_B where it lies in range, NaN elsewhere (a parallel pair's
    too, as numpy's ±inf or NaN quotient), (1, pairs). A pair with both powers is refused."""
    coef, out = p.coef[:, :, 0].tolist(), []
    for i, j in _pairs(p.groups):
        a, b = coef[i], coef[j]
        d0, d_b = a[0] - b[0], a[1] - b[1]
        if a[2] - b[2] != 0 and a[3] - b[3] != 0:
            raise ValueError("a group mixes the prefill and decode powers of ρ")
        line = -d0 / d_b if d_b != 0 else np.nan
        out.append(line if 1.0 <= line <= CUT_MAX else np.nan)
    return np.array([out], dtype=float)


def cuts_within(p: Pieces, hi: np.ndarray) -> np.ndarray:
    """(n, M') the breakpoints of ``p`` in [1, hi] (per row), 1 elsewhere (a repeated end; a
    column 1 on every row is dropped: each caller gives the end 1 itself)."""
    cuts = p.cuts if p.cuts is not None else with_cuts(p).cuts
    inside = cuts <= hi[:, None]
    return np.where(inside, cuts, 1.0)[:, inside.any(axis=0)]
