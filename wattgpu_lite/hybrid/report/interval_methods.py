"""Candidate ways to turn a fold's residual pool into 80 % intervals, and the inner choice among
them (issue 28, item 5). Written down before any candidate was scored.

Every candidate reads only the pool's log residuals z = ln(measured / predicted) of *other*
sources, per regime cell with the keys, the ``min_rows`` fallbacks and the physics clipping of
:mod:`~wattgpu_lite.hybrid.report.external_intervals` (the prediction kept inside); the interval is
predicted · exp(Q(0.1)), predicted · exp(Q(0.9)) of a distribution D of z:

- ``pooled`` (today's): D = the cell's residuals, every row alike (``np.quantile``).
- ``source_weighted``: the same rows, each weighted 1 / (its source's rows in the cell), so every
  source counts alike and a big one (LLM-Inference-Bench's 1,046 throughput rows) no longer rules.
- ``two_level``: z = o_s + e, the source's offset o_s = the median z of source s over the quantity
  (all regimes) and e = z − o_s its within-source residual. D = the sum O + E of the offsets of
  the pool's sources giving the quantity (each alike) and the cell's within-source residuals
  (each source alike): wide where sources disagree, narrow where they agree.
- ``two_level_shrunk``: as ``two_level``, O a normal (:data:`NODES` quantile nodes) with the
  offsets' mean and the variance ((K − 1)·s²_q + K0·s²_all) / (K − 1 + K0), s²_q the offsets'
  variance of the quantity over its K sources, s²_all the same pooled over every quantity of the
  pool and K0 = :data:`PRIOR_SOURCES` pseudo-sources: few sources, a spread near the pooled one.

Weighted quantiles: values sorted, weights summing to one, Q(p) interpolated linearly at the
midpoints of the cumulative weights (clamped at the ends): the Hazen rule for equal weights.

**Choice** (:func:`choose`), on a fold's pool alone: each pool source p in turn gets each
candidate's intervals from the rest of the pool; per (p, quantity) the mean log interval score
(Gneiting & Raftery 2007) ln(hi/lo) + (2/α)·(ln lo − ln y)⁺ + (2/α)·(ln y − ln hi)⁺ with
α = 1 − level; the candidate with the lowest mean over those cells (each alike) is chosen, ties to
the earlier in :data:`CANDIDATES`. The held-out source is never in the pool, so never in the choice.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy.stats import norm

from wattgpu_lite.hybrid.predict import intervals as predictor_intervals
from wattgpu_lite.hybrid.report import external_intervals
from wattgpu_lite.hybrid.report.calibrated import QUANTITY

LEVEL = 0.8
MIN_SOURCES = 3  # sources of >= MIN_ROWS values a quantity's pool needs to ship its intervals
REGIME = ("gpu_seen", "replica", "batch_band", "context_band")  # a cell's labels
CANDIDATES = ("pooled", "source_weighted", "two_level", "two_level_shrunk")
NODES = 25  # normal quantile nodes of the shrunk offset distribution
PRIOR_SOURCES = 3.0  # K0: pseudo-sources of the pooled offset spread


def weighted_quantiles(values: np.ndarray, weights: np.ndarray, ps: list[float]) -> np.ndarray:
    """Q(p) of the distribution ``values`` with ``weights`` (module docstring: the Hazen rule)."""
    order = np.argsort(values, kind="stable")
    v, w = values[order], weights[order] / weights.sum()
    mid = np.cumsum(w) - w / 2
    return np.interp(ps, mid, v)


def log_residuals(rows: pd.DataFrame) -> pd.Series:
    """z = ln(measured / predicted) per row."""
    return np.log(rows["measured"] / rows["predicted"])


def offsets(others: pd.DataFrame) -> pd.DataFrame:
    """Per (quantity, source) of ``others``: the offset o_s, the median z (``offset``)."""
    z = others.assign(z=log_residuals(others))
    return z.groupby(["quantity", "source_title"])["z"].median().rename("offset").reset_index()


def offset_nodes(table: pd.DataFrame, quantity: str, shrunk: bool) -> np.ndarray:
    """The offset distribution O of ``quantity`` (equal weights): the sources' offsets, or
    ``shrunk``: the normal nodes of the module docstring (``table``: :func:`offsets`)."""
    o = table.loc[table["quantity"] == quantity, "offset"].to_numpy(dtype=float)
    if not shrunk:
        return o
    centred = table["offset"] - table.groupby("quantity")["offset"].transform("mean")
    dof = float((table.groupby("quantity").size() - 1).sum())
    var_all = float((centred**2).sum() / dof) if dof > 0 else 0.0
    var_q = float(np.var(o, ddof=1)) if len(o) > 1 else 0.0
    var = ((len(o) - 1) * var_q + PRIOR_SOURCES * var_all) / (len(o) - 1 + PRIOR_SOURCES)
    return o.mean() + np.sqrt(var) * norm.ppf((np.arange(NODES) + 0.5) / NODES)


def _source_weights(sources: pd.Series) -> np.ndarray:
    """1 / (rows of the row's source) per row: every source alike."""
    return 1.0 / sources.map(sources.value_counts()).to_numpy(dtype=float)


def cell_band(cell: pd.DataFrame, method: str, table: pd.DataFrame, ends: list[float]) -> tuple:
    """(z_lo, z_hi) of one regime cell of the pool (``cell``: its rows with ``z``)."""
    z = cell["z"].to_numpy(dtype=float)
    weights = _source_weights(cell["source_title"])
    if method == "source_weighted":
        return tuple(weighted_quantiles(z, weights, ends))
    quantity = cell["quantity"].iloc[0]
    own = table[table["quantity"] == quantity].set_index("source_title")["offset"]
    within = z - own.reindex(cell["source_title"]).to_numpy(dtype=float)
    o = offset_nodes(table, quantity, shrunk=method == "two_level_shrunk")
    sums = (o[:, None] + within[None, :]).ravel()
    sum_weights = np.tile(weights / weights.sum(), len(o))
    return tuple(weighted_quantiles(sums, sum_weights, ends))


def bands(
    others: pd.DataFrame,
    mine: pd.DataFrame,
    method: str,
    level: float = LEVEL,
    min_rows: int = external_intervals.MIN_ROWS,
) -> pd.DataFrame:
    """``z_lo``, ``z_hi`` and ``regime_depth`` per row of ``mine`` (one source's rows) from the
    residuals of ``others`` alone by candidate ``method`` (module docstring), indexed like
    ``mine``; NaN where no cell down to the quantity alone has ``min_rows`` rows."""
    if method not in CANDIDATES:
        raise ValueError(f"unknown interval method {method!r}; the candidates are {CANDIDATES}")
    if method == "pooled":
        ext = pd.concat([others, mine], ignore_index=True)
        source = mine["source_title"].iloc[0]
        out = external_intervals.held_out_bands(ext, source, level, min_rows)
        return out.set_axis(mine.index)
    ends = [(1 - level) / 2, (1 + level) / 2]
    pool = others.assign(z=log_residuals(others))
    table = offsets(others)
    out = pd.DataFrame(index=mine.index, columns=["z_lo", "z_hi", "regime_depth"], dtype=float)
    for depth, key in enumerate(external_intervals.REGIME_KEYS):
        todo = out["z_lo"].isna().to_numpy()
        if not todo.any():
            break
        sizes = pool.groupby(list(key)).size()
        wanted = mine.loc[todo, list(key)].drop_duplicates()
        for cell in map(tuple, wanted.to_numpy()):
            if sizes.get(cell[0] if len(key) == 1 else cell, 0) < min_rows:
                continue
            rows = (pool[list(key)].to_numpy() == np.array(cell, dtype=object)).all(axis=1)
            band = cell_band(pool[rows], method, table, ends)
            at = todo & (mine[list(key)].to_numpy() == np.array(cell, dtype=object)).all(axis=1)
            out.loc[at] = (*band, depth)
    return out


def intervals(others: pd.DataFrame, mine: pd.DataFrame, method: str) -> pd.DataFrame:
    """``mine`` with ``lo_x``, ``hi_x``, ``covered_x``, ``width_x`` from :func:`bands`, clipped to
    physics, the prediction inside (:func:`~wattgpu_lite.hybrid.report.external_intervals.bounded`)."""
    return external_intervals.bounded(mine, bands(others, mine, method))


def interval_score(x: pd.DataFrame, level: float = LEVEL) -> np.ndarray:
    """Per row of ``x`` (:func:`intervals`), the log interval score (module docstring)."""
    y, lo, hi = (np.log(x[c].to_numpy(dtype=float)) for c in ("measured", "lo_x", "hi_x"))
    alpha = 1 - level
    return hi - lo + 2 / alpha * (np.maximum(lo - y, 0) + np.maximum(y - hi, 0))


def inner_scores(pool: pd.DataFrame) -> dict[str, float]:
    """Per candidate, the mean over (pool source, quantity) cells of the mean log interval score,
    each pool source's intervals from the rest of the pool alone (module docstring)."""
    scores = {}
    for method in CANDIDATES:
        parts = []
        for source in sorted(pool["source_title"].unique()):
            mine = (pool["source_title"] == source).to_numpy()
            x = intervals(pool[~mine], pool[mine], method)
            parts.append(x.assign(score=interval_score(x)))
        cells = pd.concat(parts).groupby(["source_title", "quantity"])["score"].mean()
        scores[method] = float(cells.mean())
    return scores


def choose(pool: pd.DataFrame) -> tuple[str, dict[str, float]]:
    """The candidate with the lowest :func:`inner_scores` (ties: the earlier), and the scores."""
    scores = inner_scores(pool)
    return min(CANDIDATES, key=lambda m: (scores[m], CANDIDATES.index(m))), scores


def regime_cells(quantity: str) -> pd.DataFrame:
    """The 16 regime cells of ``quantity`` in the predictor's order
    (:func:`~wattgpu_lite.hybrid.predict.interval_steps.cell_step`): GPU seen, then not; one GPU,
    then several; in flight up to the batch split, then above; context up to its split, then above."""
    batch, context = external_intervals.BATCH_SPLIT, external_intervals.CONTEXT_SPLIT
    cells = itertools.product(
        (True, False),
        ("one GPU", "several GPUs"),
        external_intervals.band_labels(batch),
        external_intervals.band_labels(context),
    )
    return pd.DataFrame(list(cells), columns=list(REGIME)).assign(
        quantity=quantity, source_title=""
    )


def cross_source_table(
    pool: pd.DataFrame, method: str, levels=predictor_intervals.LEVEL_GRID
) -> dict:
    """Per target whose quantity the ``pool`` holds from at least :data:`MIN_SOURCES` sources of
    ``MIN_ROWS`` values: each regime cell's log-residual quantiles z_lo, z_hi at (1 ∓ level) / 2
    for every level of ``levels`` by interval ``method``
    (:func:`bands`), with the cell's fallback depth,
    rows and sources; ValueError if a cell has no quantile."""
    targets = {}
    for target, quantity in QUANTITY.items():
        own = pool[pool["quantity"] == quantity]
        if (own["source_title"].value_counts() >= external_intervals.MIN_ROWS).sum() < MIN_SOURCES:
            continue
        cells = regime_cells(quantity)
        per_level = [bands(pool, cells, method, level) for level in levels]
        if any(b["z_lo"].isna().any() for b in per_level):
            raise ValueError(f"a regime cell of {quantity} has no residuals to read")
        out = []
        for k, cell in cells.iterrows():
            depth = int(per_level[0].loc[k, "regime_depth"])
            key = list(external_intervals.REGIME_KEYS[depth])[1:]  # the quantity's rows: own
            like = (own[key] == cell[key]).all(axis=1)
            labels = {c: cell[c].item() if hasattr(cell[c], "item") else cell[c] for c in REGIME}
            out.append(
                {
                    **labels,
                    "regime_depth": depth,
                    "rows": int(like.sum()),
                    "sources": int(own.loc[like, "source_title"].nunique()),
                    "z_lo": [float(b.loc[k, "z_lo"]) for b in per_level],
                    "z_hi": [float(b.loc[k, "z_hi"]) for b in per_level],
                }
            )
        targets[target] = {"quantity": quantity, "levels": list(levels), "cells": out}
    return {
        "about": "log-residual quantiles ln(measured / predicted) of the backbone on other "
        "harnesses' measurements, per regime cell (hybrid.report.calibrated_folds)",
        "method": method,
        "splits": {
            "batch": external_intervals.BATCH_SPLIT,
            "context": external_intervals.CONTEXT_SPLIT,
        },
        "min_sources": MIN_SOURCES,
        "min_rows": external_intervals.MIN_ROWS,
        "targets": targets,
    }
