"""Calibration across sources: the backbone's constants fitted on the Watt Counts runs plus
published measurements from other harnesses, scored leave-one-source-out, by a protocol written
down before any score was seen (nothing in it is chosen by a held-out source):

- **Sources scored**: each ``source_title`` of ``data/external_measurements.csv`` with at least
  :data:`MIN_ROWS` values the kit can ask (ITL, power or throughput, in the source's own scope:
  :mod:`~wattgpu_lite.hybrid.report.external_scope`); smaller ones only train every fold.
- **Candidates** (:data:`CANDIDATES`): ``watt_counts``, fitted on the Watt Counts runs alone
  (t_grp = 0: the runs are dense); ``pooled``, those six and t_grp on the runs plus every
  training source's ITL, power and throughput (log ratios, soft-L1 loss of
  :func:`~wattgpu_lite.energy.backbone.constants_fit.fit_by`), each source weighted so that the
  sources together count as much as the runs and each as much as another (w_s = √(residuals of
  the runs / (sources · residuals of s))). Each later one, added after the
  previous table had been read, frees a constant the runs cannot identify: ``pooled_host`` the
  host's time per sequence c_seq, ``pooled_formats`` beside it the FP8 peak's share over the
  16-bit one, ``pooled_collectives`` beside c_seq the collectives' latency over NCCL's model,
  ``pooled_stack`` beside those ROCm's share of the peaks over CUDA's (after every MI300X source's
  throughput read too high). A later one may be scored with the earlier ones' inner scores and
  held-out rows read from the shipped table (``stored``: every fit is deterministic).
- **Inner folds**: the training sources, sorted by title, dealt round robin into
  :data:`INNER_FOLDS` groups; each candidate is fitted without a group and scored on it (the median
  |ln predicted/measured| of its values); the lower mean inner score is chosen.
- **Outer**: the chosen candidate, refitted on all the training sources, predicts the held-out one.

Every freed constant is refitted in every fold, t_grp too (until 2026-12-07 chosen once on every
source's rows: SOURCES.md); not the correction. Built by data/scripts/build_loso_calibration.py.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache, partial

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.energy.backbone import Constants, constants_fit, training_runs
from wattgpu_lite.hybrid.report import external, external_scope

MIN_ROWS = 20  # values a source needs to be held out and scored alone
INNER_FOLDS = 3
#: the constants each fitted candidate frees
FREED = {
    "pooled": constants_fit.POOLED,
    "pooled_host": constants_fit.WITH_HOST,
    "pooled_formats": constants_fit.WITH_FORMATS,
    "pooled_collectives": constants_fit.WITH_COLLECTIVES,
    "pooled_stack": constants_fit.WITH_STACK,
}
CANDIDATES = ("watt_counts", *FREED)  # in the order they were written down
QUANTITIES = ("itl_s", "power_w", "throughput_tokens_per_s")  # fitted and scored (energy = P/thr)
#: the pooled fits stop when a step lowers the loss by less than this share of it, or after
#: :data:`POOLED_EVALUATIONS`. The pooled loss has kinks (a run's step bound by bytes at some
#: constants, by the power ceiling at the next): left to 500 evaluations some folds' fits crawl
#: along one and end 1.7e-5 apart between two BLAS kernels; stopped at 60, within 7e-9.
POOLED_FTOL = 1e-10
POOLED_EVALUATIONS = 60


@dataclass(frozen=True)
class Asked:
    """The external rows the kit can ask, their questions (the batch capped at the KV capacity,
    ``requested`` the uncapped load) and, per quantity, the measured values."""

    rows: pd.DataFrame
    frame: pd.DataFrame
    measured: dict[str, np.ndarray]

    def take(self, mask: np.ndarray) -> Asked:
        rows, frame = (t[mask].reset_index(drop=True) for t in (self.rows, self.frame))
        return Asked(rows, frame, {q: v[mask] for q, v in self.measured.items()})

    @property
    def sources(self) -> np.ndarray:
        return self.rows["source_title"].to_numpy()


def asked() -> Asked:
    """Every row of the external table the kit can ask, with its measured values."""
    keep, frame = external.asked()
    rows = external.table().iloc[keep].reset_index(drop=True)
    measured = {q: rows[external.QUANTITIES[q]].to_numpy(dtype=float) for q in QUANTITIES}
    measured["itl_s"] = measured["itl_s"] / 1e3  # ms in the table
    return Asked(rows, external_scope.capped(frame).reset_index(drop=True), measured)


@cache
def watt_counts_constants() -> Constants:
    """Fitted on the Watt Counts runs alone: the ``watt_counts`` candidate, every table's before."""
    return constants_fit.fit_constants(training_runs.watt_counts())


def log_ratios(a: Asked, c: Constants) -> np.ndarray:
    """ln(predicted / measured) per quantity then row (NaN where the source gives no value or the
    kit no answer), the backbone at constants ``c`` asked each row as its harness ran."""
    scoped = external_scope.in_scope(a.rows, external_scope.at_constants(a.frame, c))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.concatenate([np.log(scoped[q]["predicted"] / a.measured[q]) for q in QUANTITIES])


def values_per_source(a: Asked) -> pd.Series:
    """Measured values per source (every quantity together)."""
    measured = np.concatenate([np.isfinite(a.measured[q]) for q in QUANTITIES])
    return pd.Series(np.tile(a.sources, len(QUANTITIES))[measured]).value_counts()


def fit_pooled(
    ts: training_runs.TrainingSet, a: Asked, names: tuple[str, ...] = constants_fit.POOLED
) -> Constants:
    """The ``pooled`` candidates (``names``: the constants freed, :data:`FREED`) on the runs ``ts``
    and the external rows ``a`` (the weights: the module docstring)."""
    base = log_ratios(a, watt_counts_constants())
    usable = np.isfinite(base)
    sources = np.tile(a.sources, len(QUANTITIES))[usable]
    counts = pd.Series(sources).value_counts()
    n_runs = 2 * len(ts.frame)
    weight = np.sqrt(n_runs / (len(counts) * counts.reindex(sources).to_numpy(dtype=float)))

    def residuals(c: Constants) -> np.ndarray:
        others = np.nan_to_num(log_ratios(a, c)[usable], nan=0.0, posinf=0.0, neginf=0.0)
        return np.concatenate([constants_fit.log_residuals(ts, c), weight * others])

    return constants_fit.fit_by(
        residuals, names=names, ftol=POOLED_FTOL, max_evaluations=POOLED_EVALUATIONS
    )


def inner_groups(sources: list[str], folds: int = INNER_FOLDS) -> list[list[str]]:
    """The training sources, sorted by title, dealt round robin into ``folds`` groups."""
    ordered = sorted(sources)
    return [ordered[k::folds] for k in range(folds) if ordered[k::folds]]


def score(a: Asked, c: Constants) -> float:
    """Median |ln predicted/measured| over every value of ``a``."""
    r = log_ratios(a, c)
    return float(np.median(np.abs(r[np.isfinite(r)])))


def candidate_constants(name: str, ts: training_runs.TrainingSet, a: Asked) -> Constants:
    """A candidate's constants, fitted on the runs ``ts`` and the external rows ``a``."""
    if name not in CANDIDATES:
        raise ValueError(f"unknown candidate {name!r}; the candidates are {CANDIDATES}")
    if name == "watt_counts":
        return constants_fit.fit_constants(ts)
    return fit_pooled(ts, a, FREED[name])


def choose(
    ts: training_runs.TrainingSet, train: Asked, known: dict[str, float] | None = None
) -> tuple[str, dict[str, float]]:
    """The candidate with the lower mean score over the inner folds of ``train``'s sources;
    ``known``: mean inner scores already computed (read from the shipped table), not refitted."""
    means = dict(known or {})
    todo = [name for name in CANDIDATES if name not in means]
    scores = {name: [] for name in todo}
    for group in inner_groups(sorted(set(train.sources))) if todo else []:
        held = np.isin(train.sources, group)
        for name in todo:
            c = candidate_constants(name, ts, train.take(~held))
            scores[name].append(score(train.take(held), c))
    means |= {name: float(np.mean(v)) for name, v in scores.items()}
    means = {name: means[name] for name in CANDIDATES}
    return min(CANDIDATES, key=lambda n: (means[n], CANDIDATES.index(n))), means


def held_out_table(a: Asked, c: Constants, before: Constants) -> pd.DataFrame:
    """Per quantity of held-out rows ``a``: values, MdAPE, median predicted/measured at ``c`` and
    at ``before`` (the Watt Counts constants)."""
    out, n = [], len(a.rows)
    for tag, constants in (("chosen", c), ("watt_counts", before)):
        r = log_ratios(a, constants)
        for k, q in enumerate(QUANTITIES):
            part = np.exp(r[k * n : (k + 1) * n])
            part = part[np.isfinite(part)]
            if len(part):
                mdape = float(np.median(np.abs(part - 1)) * 100)
                out.append((q, tag, len(part), mdape, float(np.median(part))))
    return pd.DataFrame(out, columns=["quantity", "basis", "values", "mdape_pct", "ratio"])


def scored_sources(a: Asked, min_rows: int = MIN_ROWS) -> list[str]:
    """The sources held out in turn: those with at least ``min_rows`` measured values, sorted."""
    return sorted(values_per_source(a).loc[lambda counts: counts >= min_rows].index)


def stored_inner(stored: pd.DataFrame | None, source: str) -> dict[str, float]:
    """The mean inner scores the table ``stored`` holds for ``source``'s fold, per candidate."""
    rows = pd.DataFrame() if stored is None else stored[stored["source"] == source]
    names = [name for name in CANDIDATES if len(rows) and f"inner_{name}" in rows]
    return {name: float(rows[f"inner_{name}"].iloc[0]) for name in names}


def fold_columns(chosen: Constants) -> dict[str, float]:
    """A fold's constants beside its candidate: µs per sequence and expert group, the ratios."""
    ratios = {f"chosen_{n}": getattr(chosen, n) for n in constants_fit.ACROSS_HARNESSES[2:]}
    times = {"chosen_seq_us": 1e6 * chosen.seq_s, "chosen_group_us": 1e6 * chosen.expert_group_s}
    return {**times, **ratios}


def held_out_source(source: str, stored: pd.DataFrame | None = None) -> pd.DataFrame:
    """One outer fold: ``source`` held out, the candidate chosen on the inner folds of the others,
    refitted on them, and the held-out values at the chosen and the Watt Counts constants.
    ``stored``: an older table; where its candidate still wins, its rows stand."""
    a, ts = asked(), training_runs.watt_counts()
    held = a.sources == source
    known = stored_inner(stored, source)
    name, inner = choose(ts, a.take(~held), known)
    scores = {f"inner_{k}": v for k, v in inner.items()}
    if name in known:  # an earlier candidate still wins: its stored held-out rows stand
        rows = stored[stored["source"] == source].reset_index(drop=True)
        if not rows["chosen"].eq(name).all():
            why = f"{source!r} chose {rows['chosen'].iloc[0]!r}, not {name!r}"
            raise ValueError(f"the stored fold of {why}: rebuild the table without `stored`")
        missing = {k: v for k, v in fold_columns(Constants()).items() if k not in rows}
        return rows.drop(columns=list(scores), errors="ignore").assign(**missing, **scores)
    chosen = candidate_constants(name, ts, a.take(~held))
    table = held_out_table(a.take(held), chosen, watt_counts_constants())
    return table.assign(source=source, chosen=name, **fold_columns(chosen), **scores)


def leave_one_source_out(
    min_rows: int = MIN_ROWS,
    only: list[str] | None = None,
    workers: int = 1,
    stored: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The outer loop: per held-out source (``only``: a subset) and quantity, the chosen candidate,
    its inner scores, the constants it fitted (:func:`fold_columns`) and the held-out values at the
    chosen and the Watt Counts constants; ``workers`` > 1: as many processes (the same table)."""
    sources = [s for s in scored_sources(asked(), min_rows) if only is None or s in only]
    return map_folds(partial(held_out_source, stored=stored), sources, workers)


def map_folds(
    fold: Callable[[str], pd.DataFrame], sources: list[str], workers: int = 1
) -> pd.DataFrame:
    """``fold`` per source, in ``workers`` processes (> 1), the parts joined in ``sources``' order."""
    if workers > 1 and len(sources) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return pd.concat(list(pool.map(fold, sources)), ignore_index=True)
    return pd.concat([fold(s) for s in sources], ignore_index=True)


def shipped() -> pd.DataFrame:
    """The leave-one-source-out table as built by ``data/scripts/build_loso_calibration.py``."""
    return read_csv(data_dir() / "hybrid" / "loso_sources.csv")
