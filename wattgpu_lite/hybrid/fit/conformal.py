"""Prediction intervals that hold for a GPU (or an LLM) never seen: conformal at the group level.

A held-out row's score is s = |ln(y / ŷ)|, so the interval [ŷ·e^(−q), ŷ·e^(+q)] scales with the
prediction. Rows of one GPU are not exchangeable with rows of another: a GPU the model misjudges is
off on all its rows at once. So the half-width q is set from the held-out *groups* (one GPU, or one
LLM, per group), as data/hybrid/candidates.json states:

- each group weighs the same, whatever its row count (no finite-sample inflation: counted in groups,
  level·(G+1)/G exceeds 1 at 90 % with 8 GPUs, and every interval would be infinite);
- no calibration group may be covered less than ``FLOOR`` (60 %): q is at least the largest of the
  groups' own 0.6-quantiles.

Scores are kept apart per scenario group (offline = a batch, server = a rate): Mondrian conformal.
"""

from __future__ import annotations

import numpy as np

from wattgpu_lite.hybrid.predict.intervals import LEVEL_GRID

FLOOR = 0.6


def weighted_quantile(scores: np.ndarray, weights: np.ndarray, level: float) -> float:
    """Smallest s with (sum of weights of scores ≤ s) ≥ level · total weight; +inf if level > 1."""
    if level > 1:
        return float("inf")
    order = np.argsort(scores, kind="stable")
    cum = np.cumsum(weights[order])
    k = int(np.searchsorted(cum, level * cum[-1] - 1e-12))
    return float(scores[order][min(k, len(scores) - 1)])


def group_quantile(scores, groups, level: float, floor: float = FLOOR) -> float:
    """The half-width q (log units) from held-out scores and their group labels (see module)."""
    s, g = np.asarray(scores, dtype=float), np.asarray(groups)
    names, codes, counts = np.unique(g, return_inverse=True, return_counts=True)
    q_level = weighted_quantile(s, 1.0 / counts[codes], level)
    q_floor = max(
        float(np.quantile(s[codes == k], floor, method="higher")) for k in range(len(names))
    )
    return max(q_level, q_floor)


def table(scores, groups, regimes, per_group_floor: bool = True) -> dict[str, dict[str, float]]:
    """{regime: {level: q}} on :data:`LEVEL_GRID` from held-out scores and their groups."""
    s, g, r = (np.asarray(a) for a in (scores, groups, regimes))
    out = {}
    for reg in np.unique(r):
        m = r == reg
        if per_group_floor:
            out[str(reg)] = {f"{lv:g}": group_quantile(s[m], g[m], lv) for lv in LEVEL_GRID}
        else:
            w = np.ones(int(m.sum()))
            out[str(reg)] = {f"{lv:g}": weighted_quantile(s[m], w, lv) for lv in LEVEL_GRID}
    return out
