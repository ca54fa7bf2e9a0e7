"""The candidate variants of data/hybrid/candidates.json, the rule that picks one, and the fits.

The file was committed before any variant was scored on held-out runs; the code only reads it.
One fit = the backbone's constants (shared by all candidates) + one correction per candidate and
target. Predictions are in the targets' units (power_w; ITL as Watt Counts reports it). XGBoost is
imported only inside :func:`fit_correction`, so predicting never imports it and importing this
module needs numpy only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.energy.backbone import Constants, idle_power_w, training_runs
from wattgpu_lite.energy.backbone.constants_fit import fit_constants
from wattgpu_lite.errors import require
from wattgpu_lite.hybrid.predict import bounds, correction
from wattgpu_lite.hybrid.predict.correction import (
    FEATURE_GROUPS,
    MONOTONE_DOWN,
    MONOTONE_UP,
    TARGET_CLIP,
)
from wattgpu_lite.jsonfiles import read_json

PATH = "hybrid/candidates.json"
SCORE_DECIMALS = 2  # scores (MdAPE, %) are compared to 0.01 percentage points


@dataclass(frozen=True)
class Candidate:
    """One variant: the correction's inputs (empty: the backbone alone) and its bound."""

    name: str
    columns: tuple[str, ...]
    bound: float

    @property
    def physics_only(self) -> bool:
        return not self.columns


@cache
def spec() -> dict:
    """The whole candidates file."""
    return read_json(data_dir() / PATH, what="candidates file")


def candidates() -> tuple[Candidate, ...]:
    """The candidates, in the file's order."""
    out = []
    for c in spec()["candidates"]:
        cols = [
            col for g in c["groups"] for col in FEATURE_GROUPS[g] if col not in c.get("drop", ())
        ]
        cols += ["model_type"] if c["family"] else []
        out.append(Candidate(c["name"], tuple(cols), float(c["bound"])))
    return tuple(out)


def xgb_params() -> dict:
    """XGBoost settings of every correction."""
    return dict(spec()["xgboost"])


def select(scores: dict[str, float]) -> str:
    """The candidate with the lowest score (mean over scenario groups of the inner MdAPE, in %)
    at :data:`SCORE_DECIMALS` decimals; a tie goes to the earlier candidate of the file. Scores
    closer than that are one score: a last-bit difference never flips the choice."""
    names = [c.name for c in candidates() if c.name in scores]
    values = np.round(np.array([scores[n] for n in names]), SCORE_DECIMALS)
    return names[int(np.argmin(values))]


def fit_correction(
    x: np.ndarray,
    residual: np.ndarray,
    columns: Sequence[str],
    bound: float,
    *,
    params: dict,
    families: Sequence[str] = (),
    seed: int = 0,
) -> correction.Correction:
    """Fit the forest on clipped log residuals ln(y / y_physics) with the monotone constraints,
    rounded to ``TREE_DECIMALS`` decimals (a last-bit difference moves no split)."""
    cons = tuple(1 if c in MONOTONE_UP else -1 if c in MONOTONE_DOWN else 0 for c in columns)
    xgb = require("xgboost", "train", "fitting the hybrid's correction")
    model = xgb.XGBRegressor(**params, monotone_constraints=cons, random_state=seed, n_jobs=1)
    model.fit(x, np.round(np.clip(residual, -TARGET_CLIP, TARGET_CLIP), correction.TREE_DECIMALS))
    text = model.get_booster().save_raw("json").decode()
    return correction.Correction(tuple(columns), float(bound), tuple(families), text)


@dataclass(frozen=True)
class Fitted:
    """The constants and, per (candidate name, target), the correction (None: physics alone)."""

    constants: Constants
    corrections: dict[tuple[str, str], correction.Correction | None]


def matrix(ts: training_runs.TrainingSet, out: dict, cand: Candidate, families=()) -> np.ndarray:
    """The correction's input matrix of a set of rows for one candidate."""
    batch = bounds.step_batch(out["in_flight"], ts.loads.offline, np.maximum(ts.loads.cap, 1.0))
    loads = correction.load_features(out, bounds.bytes_per_flop(ts.rows, batch))
    return correction.feature_matrix(ts.llms, ts.gpus, loads, cand.columns, families=families)


#: the constants of a set of runs: :func:`fit_constants` (the runs alone) by default; the shipped
#: model's also fit other harnesses' rows (data/scripts/build_hybrid_model.py)
ConstantsBy = Callable[[training_runs.TrainingSet], Constants]


def fit_all(
    ts: training_runs.TrainingSet,
    cands: tuple[Candidate, ...] | None = None,
    seed: int = 0,
    constants_by: ConstantsBy = fit_constants,
) -> Fitted:
    """Constants on ``ts`` by ``constants_by`` (from the default start, never a warm one: a fold's
    constants depend on its own runs alone, not on the fold fitted before it), then each
    candidate's corrections on the log residuals (``seed``: XGBoost's random state)."""
    cands = candidates() if cands is None else cands
    const = constants_by(ts)
    out = training_runs.physics(ts, const)
    phys = training_runs.paper_units(out, ts.loads.offline)
    families = tuple(sorted({m.model_type for m in ts.llms}))
    fits: dict[tuple[str, str], correction.Correction | None] = {}
    for cand in cands:
        x = None if cand.physics_only else matrix(ts, out, cand, families)
        for target in training_runs.TARGETS:
            if x is None:
                fits[cand.name, target] = None
                continue
            resid = np.log(ts.target(target) / phys[target])
            fits[cand.name, target] = fit_correction(
                x,
                resid,
                cand.columns,
                cand.bound,
                params=xgb_params(),
                families=families,
                seed=seed,
            )
    return Fitted(const, fits)


def predict_fitted(
    fitted: Fitted, ts: training_runs.TrainingSet, cand: Candidate
) -> dict[str, np.ndarray]:
    """Predictions of ``cand`` for the rows of ``ts``, per target (targets' units)."""
    out = training_runs.physics(ts, fitted.constants)
    phys = training_runs.paper_units(out, ts.loads.offline)
    result = {}
    for target in training_runs.TARGETS:
        corr = fitted.corrections[cand.name, target]
        if corr is None:
            result[target] = phys[target]
            continue
        x = matrix(ts, out, cand, corr.families)
        result[target] = phys[target] * np.exp(corr.predict(x))
    idle = idle_power_w(ts.rows, fitted.constants)  # the estimate stops at the idle estimate
    result["power"] = np.clip(result["power"], idle, ts.rows.replica_tdp_w)
    return result
