"""Intervals from the cross-source residuals of the *calibrated* backbone, nested inside the
leave-one-source-out folds of :mod:`~wattgpu_lite.hybrid.report.calibration`.

Per scored source s (nothing here is chosen or tuned on s):

- **Outer**: the candidate s's fold chose (the ``chosen`` column of the shipped LOSO table, read,
  never re-chosen), refitted on the Watt Counts runs and every other source
  (:func:`~wattgpu_lite.hybrid.report.calibration.candidate_constants`), predicts s's rows: ITL,
  power, throughput and J/token (the in-scope power over the in-scope throughput,
  :func:`~wattgpu_lite.hybrid.report.external_scope.in_scope`).
- **Residual pool**: per inner group g of the other sources
  (:func:`~wattgpu_lite.hybrid.report.calibration.inner_groups`), the same candidate fitted without
  g predicts g's rows; z = ln(measured / predicted) on those out-of-sample rows is the fold's pool
  (s's own rows are never in it).
- **Interval**: per regime, the 10 % and 90 % quantiles of a distribution of the pool's
  residuals, with the regime keys, the fallbacks and the physics clipping of
  :mod:`~wattgpu_lite.hybrid.report.external_intervals`, the prediction kept inside. Which
  distribution (the pooled rows, every source alike, or a source offset plus a within-source
  residual) is chosen per fold on the pool alone, each pool source judged by the rest
  (:func:`~wattgpu_lite.hybrid.report.interval_methods.choose`): ``interval`` in the table.

Four least-squares fits a source (one outer, three inner; 10-15 s each). Run by
``data/scripts/build_calibrated_intervals.py``; the shipped table is
``data/hybrid/calibrated_rows.csv`` (read and scored by
:mod:`~wattgpu_lite.hybrid.report.calibrated`).

**The shipped model's intervals** (:func:`shipped_cross_source`) are built as one more fold that
holds no source out: the pool of every source (three inner fits), the method that pool chooses,
and per regime cell the quantiles at every level of the predictor's grid, for each quantity whose
pool holds at least ``MIN_SOURCES`` sources of at least ``MIN_ROWS`` values (ITL; power has
one such source, the H200 decode steps: its between-source spread is unknown, and its held-out
intervals covered 38 % of that source's rows, so power keeps the runs' intervals). This rule was
written after the leave-one-source-out table had been read (disclosed in data/SOURCES.md).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd

from wattgpu_lite.energy.backbone import Constants, training_runs
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.report import (
    calibration,
    external,
    external_intervals,
    external_scope,
    interval_methods,
)

#: the shipped table's columns: ``row`` indexes data/external_measurements.csv
COLUMNS = [
    "source",
    "chosen",
    "interval",
    "row",
    "quantity",
    "measured",
    "predicted_watt_counts",
    "predicted_calibrated",
    "lo",
    "hi",
    "regime_depth",
    "gpu_seen",
    "replica",
    "batch_band",
    "context_band",
]
Fit = Callable[[str, training_runs.TrainingSet, calibration.Asked], Constants]


def asked_rows() -> calibration.Asked:
    """:func:`~wattgpu_lite.hybrid.report.calibration.asked` with each row's index in the external
    table (``row``) and among the asked rows (``ask``)."""
    a = calibration.asked()
    keep, _ = external.asked()
    rows = a.rows.assign(row=np.asarray(keep), ask=np.arange(len(a.rows)))
    return calibration.Asked(rows, a.frame, a.measured)


def scored_rows(a: calibration.Asked, c: Constants) -> pd.DataFrame:
    """Per (row of ``a``, quantity) measured and answered, the backbone at constants ``c`` in the
    measurement's scope (:func:`~wattgpu_lite.hybrid.report.external.long_form`'s columns), the
    row's regime and physical limits; ``ask`` and ``row`` the indices of :func:`asked_rows`."""
    pred = external_scope.at_constants(a.frame, c)
    local = external.long_form(a.rows, a.frame, external_scope.in_scope(a.rows, pred))
    limits = external_intervals.physical_limits(local, pred, a.rows)
    local = external_intervals.regimes(local, pred).join(limits)
    at = local["ask"].to_numpy()
    return local.assign(ask=a.rows["ask"].to_numpy()[at], row=a.rows["row"].to_numpy()[at])


def residual_pool(
    ts: training_runs.TrainingSet,
    train: calibration.Asked,
    name: str,
    fit: Fit = calibration.candidate_constants,
) -> pd.DataFrame:
    """The fold's pool: per inner group g of ``train``'s sources, g's rows (:func:`scored_rows`)
    predicted by candidate ``name`` fitted on ``ts`` and ``train`` without g."""
    parts = []
    for group in calibration.inner_groups(sorted(set(train.sources))):
        held = np.isin(train.sources, group)
        parts.append(scored_rows(train.take(held), fit(name, ts, train.take(~held))))
    return pd.concat(parts, ignore_index=True)


def fold_intervals(
    pool: pd.DataFrame, outer: pd.DataFrame, source: str, method: str = "pooled"
) -> pd.DataFrame:
    """``outer`` (``source``'s rows) with the interval ``lo_x``, ``hi_x`` from the residuals of
    ``pool`` alone (another source's rows: ``ValueError``) by the interval candidate ``method``
    (:mod:`~wattgpu_lite.hybrid.report.interval_methods`), per regime, clipped to physics."""
    if (pool["source_title"] == source).any():
        raise ValueError(f"the residual pool of {source!r} holds its own rows")
    return interval_methods.intervals(pool, outer, method).reset_index(drop=True)


def chosen_candidates() -> dict[str, str]:
    """The candidate each held-out source's fold chose, read from the shipped LOSO table."""
    return calibration.shipped().groupby("source")["chosen"].first().to_dict()


def fold_parts(
    source: str, chosen: dict[str, str] | None = None, fit: Fit = calibration.candidate_constants
) -> tuple[str, pd.DataFrame, pd.DataFrame]:
    """One fold's fits: the candidate, ``source``'s rows at the fold's constants
    (:func:`scored_rows`) and the fold's inner residual pool (:func:`residual_pool`)."""
    a, ts = asked_rows(), training_runs.watt_counts()
    name = (chosen_candidates() if chosen is None else chosen)[source]
    train = a.take(a.sources != source)
    outer = scored_rows(a.take(a.sources == source), fit(name, ts, train))
    return name, outer, residual_pool(ts, train, name, fit)


def fold_table(source: str, name: str, outer: pd.DataFrame, pool: pd.DataFrame) -> pd.DataFrame:
    """:data:`COLUMNS` of ``source``'s rows ``outer`` (:func:`scored_rows` at candidate ``name``'s
    constants) with the interval of the method the fold's ``pool`` alone chooses
    (:func:`~wattgpu_lite.hybrid.report.interval_methods.choose`), beside the same rows at the Watt
    Counts constants."""
    method, _ = interval_methods.choose(pool)
    x = fold_intervals(pool, outer, source, method)
    a = asked_rows()
    watt_counts = scored_rows(a.take(a.sources == source), calibration.watt_counts_constants())
    before = watt_counts.set_index(["row", "quantity"])["predicted"]
    at = pd.MultiIndex.from_frame(x[["row", "quantity"]])
    return x.assign(
        source=source,
        chosen=name,
        interval=method,
        predicted_watt_counts=before.reindex(at).to_numpy(),
        predicted_calibrated=x["predicted"],
        lo=x["lo_x"],
        hi=x["hi_x"],
    )[COLUMNS]


def held_out(
    source: str, chosen: dict[str, str] | None = None, fit: Fit = calibration.candidate_constants
) -> pd.DataFrame:
    """One fold (:data:`COLUMNS`): ``source``'s rows at the Watt Counts and at the fold's calibrated
    constants, with the interval of the fold's inner residual pool (module docstring)."""
    name, outer, pool = fold_parts(source, chosen, fit)
    return fold_table(source, name, outer, pool)


def all_folds(workers: int = 1, only: list[str] | None = None) -> pd.DataFrame:
    """:func:`held_out` for every scored source (``only``: a subset), ``workers`` processes."""
    scored = calibration.scored_sources(calibration.asked())
    sources = scored if only is None else [s for s in scored if s in only]
    fold = partial(held_out, chosen=chosen_candidates())
    return calibration.map_folds(fold, sources, workers)


def shipped_choice() -> tuple[str, dict[str, float]]:
    """The candidate of the shipped model's constants and the mean inner scores: chosen as each
    outer fold chooses (:func:`~wattgpu_lite.hybrid.report.calibration.choose`), on the inner
    folds of every source, none held out. The scores are the external sources' alone: no Watt
    Counts GPU or LLM is scored in the choice."""
    return calibration.choose(training_runs.watt_counts(), calibration.asked())


def rows_without(ts: training_runs.TrainingSet, a: calibration.Asked) -> np.ndarray:
    """Which external rows ``a`` a fit on the runs ``ts`` may see: none on a Watt Counts GPU or
    LLM that ``ts`` lacks (A100 SXM4 40GB and Mistral-7B-Instruct-v0.3 are in both tables)."""
    every = training_runs.watt_counts().frame
    gone = [set(every[c]) - set(ts.frame[c]) for c in ("gpu", "llm")]
    return (~a.frame["gpu"].isin(gone[0]) & ~a.frame["llm"].isin(gone[1])).to_numpy()


def constants_without(ts: training_runs.TrainingSet, name: str) -> Constants:
    """Candidate ``name``'s constants on the runs ``ts`` and the external rows :func:`rows_without`
    keeps: a fold that holds a GPU or an LLM out holds its rows of other harnesses out too. The
    shipped model's fit and its nested protocol's (``constants_by``)."""
    a = calibration.asked()
    return calibration.candidate_constants(name, ts, a.take(rows_without(ts, a)))


def shipped_cross_source(name: str | None = None) -> dict:
    """The shipped model's cross-source table (module docstring): the pool of every source under
    candidate ``name`` (None: the shipped model's), the method it chooses, :func:`~wattgpu_lite.hybrid.report.interval_methods.cross_source_table`."""
    name = HybridState.pretrained().built_with["constants"] if name is None else name
    pool = residual_pool(training_runs.watt_counts(), asked_rows(), name)
    method, scores = interval_methods.choose(pool)
    return interval_methods.cross_source_table(pool, method) | {
        "constants": name,
        "inner_scores": scores,
    }
