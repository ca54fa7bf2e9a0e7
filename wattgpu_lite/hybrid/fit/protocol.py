"""The honest protocol: nested cross-validation of the hybrid predictor.

For every outer fold (one held-out GPU, or one held-out LLM):

1. inner folds on the training part only (leave one GPU out, or five folds grouped by LLM) score
   every candidate of data/hybrid/candidates.json, and the selection rule picks one per target;
2. the backbone constants, the chosen correction and the conformal scores (the chosen candidate's
   inner held-out residuals) are all refitted on the training part;
3. the held-out rows are predicted once, with 80 % and 90 % intervals, and scored.

Nothing of the held-out GPU or LLM touches steps 1–2. The result is one row per held-out run and
target (:func:`nested`), summarised per held-out group (:mod:`wattgpu_lite.hybrid.report.results`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.energy.backbone import training_runs
from wattgpu_lite.energy.backbone.constants_fit import fit_constants
from wattgpu_lite.errors import require
from wattgpu_lite.hybrid.fit.candidates import (
    ConstantsBy,
    candidates,
    fit_all,
    predict_fitted,
    select,
)
from wattgpu_lite.hybrid.fit.conformal import group_quantile
from wattgpu_lite.metrics import mdape_pct
from wattgpu_lite.wattgpu.evaluation import held_out_masks

LEVELS = (0.8, 0.9)
WHAT = "fitting the hybrid (hybrid.fit)"  # tqdm, XGBoost and SciPy: the [train] extra
INNER = {"logo": "logo", "lolo": "llm5"}


def regime(ts: training_runs.TrainingSet) -> np.ndarray:
    """'offline' or 'server' per row (the Mondrian groups and the paper's scenario groups)."""
    return np.where(ts.loads.offline, "offline", "server")


def folds(ts: training_runs.TrainingSet, kind: str) -> list[tuple[str, np.ndarray]]:
    """(group name, held-out mask) per fold: 'logo' one GPU, 'lolo' one LLM, 'llm5' five folds
    grouped by LLM, 'cv' five folds grouped by (LLM, GPU) pair — the kit's one fold builder
    (:func:`wattgpu_lite.wattgpu.evaluation.held_out_masks`), on the training set's frame."""
    return held_out_masks(ts.frame, kind)


def held_out(
    ts: training_runs.TrainingSet,
    kind: str,
    progress: bool = False,
    seed: int = 0,
    constants_by: ConstantsBy = fit_constants,
) -> dict:
    """Out-of-fold predictions of every candidate: {"group": labels, (name, target): array}
    (``seed``: XGBoost's random state; ``constants_by``: :func:`fit_all`'s)."""
    out: dict = {"group": np.empty(len(ts.frame), dtype=object)}
    tqdm = require("tqdm.auto", "train", WHAT).tqdm
    for name, test in tqdm(folds(ts, kind), desc=f"folds {kind}", disable=not progress):
        fill_fold(out, ts, ~test, test, group=name, seed=seed, constants_by=constants_by)
    return out


def fill_fold(
    out: dict,
    ts: training_runs.TrainingSet,
    train,
    test,
    *,
    group: str,
    seed: int,
    constants_by: ConstantsBy = fit_constants,
) -> None:
    """Fit every candidate on the ``train`` rows and write its predictions of the ``test`` rows
    and their ``group`` label into ``out`` (:func:`held_out`'s dict)."""
    fitted = fit_all(ts.take(train), seed=seed, constants_by=constants_by)
    out["group"][test] = group
    for cand in candidates():
        pred = predict_fitted(fitted, ts.take(test), cand)
        for target in training_runs.TARGETS:
            out.setdefault((cand.name, target), np.empty(len(ts.frame)))[test] = pred[target]


def scenario_mdape(y_true, y_pred, reg) -> float:
    """Mean over the scenario groups present of the MdAPE: the selection score."""
    return float(np.mean([mdape_pct(y_true[reg == r], y_pred[reg == r]) for r in np.unique(reg)]))


def choose(ts: training_runs.TrainingSet, oof: dict) -> dict[str, str]:
    """The selection rule on inner held-out predictions: one candidate per target."""
    reg = regime(ts)
    return {
        t: select({c.name: scenario_mdape(ts.target(t), oof[c.name, t], reg) for c in candidates()})
        for t in training_runs.TARGETS
    }


def calibrate(ts: training_runs.TrainingSet, oof: dict, chosen: dict[str, str]) -> dict:
    """{(target, regime, level): q} from the chosen candidates' inner held-out residuals."""
    reg, table = regime(ts), {}
    for t, name in chosen.items():
        score = np.abs(np.log(ts.target(t) / oof[name, t]))
        for r in np.unique(reg):
            m = reg == r
            for lv in LEVELS:
                table[t, r, lv] = group_quantile(score[m], oof["group"][m], lv)
    return table


def _outer_rows(
    test: training_runs.TrainingSet, pred, chosen, table, *, group: str, away, physics
) -> list:
    """The held-out rows; those outside the support carry the physics candidate and its q."""
    reg, parts = regime(test), []
    for t in training_runs.TARGETS:
        y, yhat = test.target(t), pred[t]
        frame = test.frame[["llm", "gpu", "scenario"]].assign(
            target=t,
            regime=reg,
            held_out=group,
            candidate=np.where(away, PHYSICS, chosen[t]),
            y_true=y,
            y_pred=yhat,
        )
        for lv in LEVELS:
            q = np.array(
                [
                    (physics if a else table).get((t, r, lv), np.inf)
                    for r, a in zip(reg, away, strict=True)
                ]
            )
            frame[f"q{int(lv * 100)}"] = q
            frame[f"covered{int(lv * 100)}"] = np.abs(np.log(y / yhat)) <= q
        parts.append(frame)
    return parts


def nested(
    ts: training_runs.TrainingSet | None = None,
    outer: str = "logo",
    progress: bool = False,
    groups: tuple[str, ...] | None = None,
    constants_by: ConstantsBy = fit_constants,
):
    """One row per held-out run and target: y_true, y_pred, the candidate chosen, the 80/90 %
    half-widths q80/q90 and whether each interval covered the measurement. ``groups``: only
    these outer folds (held-out GPU or LLM names), e.g. one fold run live in a notebook."""
    ts = training_runs.watt_counts() if ts is None else ts
    outer_folds = folds(ts, outer)
    if groups is not None:
        known = [name for name, _ in outer_folds]
        unknown = [g for g in groups if g not in known]
        if unknown:
            raise ValueError(f"no outer fold {unknown} in {outer}; the folds are {known}")
        outer_folds = [(name, test) for name, test in outer_folds if name in groups]
    parts = []
    tqdm = require("tqdm.auto", "train", WHAT).tqdm
    for group, test in tqdm(outer_folds, desc=f"outer {outer}", disable=not progress):
        train = ts.take(~test)
        oof = held_out(train, INNER[outer], constants_by=constants_by)
        chosen = choose(train, oof)
        table = calibrate(train, oof, chosen)
        physics = calibrate(train, oof, {t: PHYSICS for t in training_runs.TARGETS})
        cands = {c.name: c for c in candidates()}
        names = tuple(dict.fromkeys((*chosen.values(), PHYSICS)))
        fitted = fit_all(train, tuple(cands[n] for n in names), constants_by=constants_by)
        held = ts.take(test)
        away = outside_support(train, held)
        pred = {}
        for t in training_runs.TARGETS:
            learned = predict_fitted(fitted, held, cands[chosen[t]])[t]
            pred[t] = np.where(away, predict_fitted(fitted, held, cands[PHYSICS])[t], learned)
        parts += _outer_rows(held, pred, chosen, table, group=group, away=away, physics=physics)
    return pd.concat(parts, ignore_index=True)


PHYSICS = "physics"  # the backbone-alone candidate of candidates.json


def outside_support(
    train: training_runs.TrainingSet, test: training_runs.TrainingSet
) -> np.ndarray:
    """Rows of ``test`` whose GPU lies beyond the training GPUs' range of peak bandwidth or FP16
    FLOP/s: the shipped predictor answers them with the backbone alone
    (:func:`wattgpu_lite.hybrid.predict.intervals.outside_support`), and so does the protocol. The engine's
    one-sided rule beyond the training context (:func:`wattgpu_lite.hybrid.predict.intervals.beyond_context`)
    changes no Watt Counts row: every run is asked at the designed 195 tokens, inside every
    training fold's measured context range (a test holds it)."""
    away = np.zeros(len(test.frame), dtype=bool)
    for attr in ("bandwidth", "flops"):
        lo, hi = getattr(train.rows, attr).min(), getattr(train.rows, attr).max()
        v = getattr(test.rows, attr)
        away |= (v > hi * (1 + 1e-9)) | (v < lo * (1 - 1e-9))
    return away
