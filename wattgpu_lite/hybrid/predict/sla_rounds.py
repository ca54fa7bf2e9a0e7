"""The rounds of the SLA search (:mod:`~wattgpu_lite.hybrid.predict.sla`): the largest load L in
a bracket [lo, hi] whose ITL meets the SLA (lo meets it, hi does not), the ITL increasing in L.

Each round evaluates K loads of every open bracket in one call: pairs a hair either side
(0.45·LOAD_RTOL, relative) of the loads where the crossing is likely, the rest spread over the
bracket. The ITL is max(s(B)·e^f, s_floor(B)), B = min(1 + L, cap): continuous in L where the
correction f stays on one leaf, and it jumps where a load feature of f (ln L, 1 − e^−L, ln of the
bytes per FLOP at B), rounded to TREE_DECIMALS decimals as ``correction.load_features`` rounds
it and compared in float32 as the forest compares it, reaches a split threshold θ. So the likely
loads are

- the regula-falsi load, where the ITL line through the bracket's ends meets the SLA: exact
  where the ITL is one line there (one piece of the step, one leaf);
- per load feature, the load where the feature, interpolated in ln L between the bracket's ends,
  reaches the level at which its rounded value reaches the split threshold nearest it
  (:func:`feature_levels`): a jump across the SLA closes in one or two rounds.

A pair that straddles the crossing leaves a bracket narrower than LOAD_RTOL; the candidates are
only places to look (every load is evaluated), so a wrong guess costs a round, never a number.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from wattgpu_lite.hybrid.predict.correction import TREE_DECIMALS, raw_load_features
from wattgpu_lite.hybrid.predict.trees import Forest

LOAD_RTOL = 1e-12  # the bracket on L* is narrowed to 1 part in 10^12
POINTS_PER_CALL = 256  # loads evaluated per round over all deployments (the forest costs per load)
MAX_ROUNDS = 60
LOAD_COLUMNS = ("log_in_flight", "busy_fraction", "log_bytes_per_flop")


def largest_good_rate(itl_at, bracket, *, sla_s: float, levels: dict) -> np.ndarray:
    """λ(L) at the largest load L of each bracket whose ITL meets ``sla_s`` (module docstring).

    ``itl_at(rows, loads)`` → (ITL s, rate req/s, bytes per FLOP) of bracket rows ``rows`` at
    ``loads`` (len(rows), m); ``bracket`` = (lo, hi, the rate at lo, ITL at lo, at hi, bytes per
    FLOP at lo, at hi); ``levels``: :func:`feature_levels` of the ITL correction ({} without)."""
    lo, hi, rate_lo, itl_lo, itl_hi, bpf_lo, bpf_hi = (np.array(v, dtype=float) for v in bracket)
    for _ in range(MAX_ROUNDS):
        todo = np.flatnonzero(hi - lo > LOAD_RTOL * hi)
        if not len(todo):
            break
        ends = lo[todo], hi[todo]
        slope = np.maximum(itl_hi[todo] - itl_lo[todo], np.finfo(float).tiny)
        guess = ends[0] + np.clip((sla_s - itl_lo[todo]) / slope, 0.0, 1.0) * (ends[1] - ends[0])
        at_ends = [
            raw_load_features({"in_flight": x, "busy_fraction": -np.expm1(-x)}, bpf)
            for x, bpf in ((ends[0], bpf_lo[todo]), (ends[1], bpf_hi[todo]))
        ]
        jumps = [
            _level_load(v, (at_ends[0][c], at_ends[1][c]), ends, guess) for c, v in levels.items()
        ]
        pairs = _astride(np.column_stack([guess, *jumps]), ends)
        k = max(pairs.shape[1] + 8, POINTS_PER_CALL // len(todo))
        points = np.sort(np.concatenate([_interior(ends, k - pairs.shape[1]), pairs], 1), 1)
        itl, rate, bpf = itl_at(todo, points)
        good = itl <= sla_s
        first_bad = np.where(good.all(axis=1), k, np.argmin(good, axis=1))
        row = np.arange(len(todo))
        moved, short = first_bad > 0, first_bad < k
        below, above = (row[moved], first_bad[moved] - 1), (row[short], first_bad[short])
        lo[todo[moved]], itl_lo[todo[moved]] = points[below], itl[below]
        rate_lo[todo[moved]], bpf_lo[todo[moved]] = rate[below], bpf[below]
        hi[todo[short]], itl_hi[todo[short]], bpf_hi[todo[short]] = (
            points[above],
            itl[above],
            bpf[above],
        )
    return rate_lo


def _level_load(levels, g_ends, ends, guess) -> np.ndarray:
    """Per bracket (``ends`` = (lo, hi), the feature there ``g_ends`` = (g_lo, g_hi)), the load
    where the feature g, linear in ln L between (lo, g_lo) and (hi, g_hi), reaches the level strictly between g_lo and g_hi nearest g at ``guess``;
    ``guess`` where no level lies between. (ln L: exact for log_in_flight; the bytes per FLOP
    fall about as 1/B, nearer a line in ln L than in L over a wide bracket.)"""
    (g_lo, g_hi), (x_lo, x_hi) = g_ends, np.log(ends)
    span = np.where(x_hi > x_lo, x_hi - x_lo, 1.0)
    g_at = g_lo + (np.log(guess) - x_lo) / span * (g_hi - g_lo)
    j = np.searchsorted(levels, g_at)
    left, right = levels[np.maximum(j - 1, 0)], levels[np.minimum(j, len(levels) - 1)]
    level = np.where(np.abs(right - g_at) < np.abs(left - g_at), right, left)
    inside = (level - g_lo) * (level - g_hi) < 0
    dg = np.where(inside, g_hi - g_lo, 1.0)
    return np.where(inside, np.exp(x_lo + (level - g_lo) / dg * (x_hi - x_lo)), guess)


def _astride(centres: np.ndarray, ends) -> np.ndarray:
    """(n, 2m) loads 0.45·LOAD_RTOL either side (relative) of each of the (n, m) ``centres``,
    clipped strictly inside each bracket ``ends`` = (lo, hi): if L* lies between a pair, the bracket it leaves is
    narrower than LOAD_RTOL."""
    lo, hi = ends
    either_side = 0.45 * LOAD_RTOL * centres
    pairs = np.concatenate([centres - either_side, centres + either_side], axis=1)
    return np.clip(pairs, np.nextafter(lo, np.inf)[:, None], np.nextafter(hi, -np.inf)[:, None])


def _interior(ends, k: int) -> np.ndarray:
    """k loads strictly inside each bracket ``ends`` = (lo, hi): evenly spaced in ln L while
    hi > 4·lo, else in L."""
    lo, hi = ends
    t = np.arange(1, k + 1) / (k + 1)
    wide = hi > 4.0 * lo
    geometric = np.exp(np.log(lo)[:, None] + t * np.log(hi / lo)[:, None])
    linear = lo[:, None] + t * (hi - lo)[:, None]
    return np.where(wide[:, None], geometric, linear)


def feature_levels(corr) -> dict[str, np.ndarray]:
    """Per load feature with splits in the correction ``corr`` (None: {}), the sorted levels of
    the raw feature at which its rounded value (TREE_DECIMALS decimals, compared in float32)
    reaches a split threshold θ: (k − ½)·10^−d, k the first whole number whose grid value
    k·10^−d reaches θ in float32."""
    if corr is None:
        return {}
    return _levels_of(corr.forest_json, tuple(corr.columns))


@lru_cache(maxsize=8)
def _levels_of(forest_json: str, columns: tuple[str, ...]) -> dict[str, np.ndarray]:
    forest, scale, out = Forest.from_json(forest_json), 10.0**TREE_DECIMALS, {}
    for name in LOAD_COLUMNS:
        if name not in columns:
            continue
        splits = (forest.feature == columns.index(name)) & (forest.left >= 0)
        theta = np.unique(forest.threshold[splits])
        k = np.ceil(theta.astype(float) * scale) - 2.0
        for _ in range(4):  # a grid value within two steps of θ·10^d: step up to the first
            k = np.where(np.float32(np.round(k / scale, TREE_DECIMALS)) < theta, k + 1.0, k)
        if len(k):
            out[name] = (k - 0.5) / scale
    return out
