"""Cross-validated evaluation of WattGPU, laid out like the paper's Tables 2 and 3.

Strategies (WattGPU §5): ``cv`` = GroupKFold(5) with groups = (LLM, GPU) pair, so the repeats of
a configuration never straddle train and test; ``logo`` = leave one GPU out; ``lolo`` = leave one
LLM out. ``kfold`` (plain, shuffled KFold over runs) exists only to show leakage: the five repeats
of a configuration land on both sides, so it is never in the paper's tables. Baselines (TDP,
load-scaled TDP, roofline) do not learn and are scored on the same rows.

Readings (``reading=``): ``"all"`` scores every row. ``"paper_7gpu"`` scores power as the authors'
notebook did: its TDP lookup drops duplicate TDP *values*, so the H100 NVL (400 W, like the A100)
gets no TDP, its predictions become NaN in watts and it leaves every power metric, while the
models still train on all eight GPUs. The paper's ITL figures are on all eight GPUs.

An evaluation of the published model, not an answer: the predictions are the trees' raw output,
an ITL below the physical floor included (:mod:`~wattgpu_lite.wattgpu.physical_limits`; the
LOGO source of ``rank_gpus`` refuses those rows).

    wl.evaluate(target="power", strategy="logo")                        # ours beside the paper's
    wl.evaluate("power", "logo", reading="paper_7gpu")                  # the paper's reading
    wl.evaluate("itl", "logo", features=[...])                          # any inputs, re-scored
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import pandas as pd

from wattgpu_lite.errors import InvalidInputError, require
from wattgpu_lite.runs import measurements
from wattgpu_lite.wattgpu.baselines import BASELINES
from wattgpu_lite.wattgpu.features import FEATURES, run_features
from wattgpu_lite.wattgpu.inputs import check_features
from wattgpu_lite.wattgpu.metrics import scenario_metrics
from wattgpu_lite.wattgpu.paper_results import paper_results
from wattgpu_lite.wattgpu.predictor import ITL_PARAMS, POWER_PARAMS
from wattgpu_lite.wattgpu.regressor import fit_target, target_values, to_natural, training_rows

STRATEGIES = ("cv", "logo", "lolo")
WHAT = "evaluating WattGPU held out (wl.evaluate, `evaluate --model wattgpu`)"
LEAKY = "kfold"  # plain KFold over runs, for the leakage lesson only
TARGETS = ("power", "itl")
READINGS: dict[str, tuple[str, ...]] = {"all": (), "paper_7gpu": ("H100 NVL",)}
KFOLD_SEED = 0
# cross_predict's results, newest last: (target, strategy, model, params, inputs) -> predictions
# and importances; at most CROSS_PREDICT_CACHED kept (a study sweeps many inputs)
CROSS_PREDICT_CACHED = 32
_CACHE: OrderedDict[tuple, dict] = OrderedDict()


def clear_cross_predict_cache() -> None:
    """Forget every cached :func:`cross_predict` result."""
    _CACHE.clear()


def _check(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise InvalidInputError(f"unknown {name} {value!r}; use one of {', '.join(allowed)}")


def dataset(target: str) -> pd.DataFrame:
    """The dense Watt Counts runs usable for ``target``, with every input attached."""
    _check("target", target, TARGETS)
    return training_rows(run_features(measurements.load(dense_only=True)), target)


# the kit's one fold builder's kinds: held-out group -> what it holds out (the hybrid's nested
# protocol uses them too: logo/lolo outside, logo/llm5 inside, cv for its pooled intervals)
FOLD_KINDS = {
    "cv": "5 folds grouped by (LLM, GPU) pair",
    "logo": "one GPU",
    "lolo": "one LLM",
    "llm5": "5 folds grouped by LLM",
    LEAKY: "5 shuffled folds over runs (leaky)",
}


def held_out_masks(frame: pd.DataFrame, kind: str) -> list[tuple[str, np.ndarray]]:
    """(group name, held-out row mask) per fold of ``kind`` (:data:`FOLD_KINDS`), for a frame with
    ``llm`` and ``gpu`` columns: the kit's one fold builder. LOGO and LOLO hold out each GPU or
    LLM in name order; the grouped five-fold kinds are scikit-learn's GroupKFold (deterministic),
    the leaky ``kfold`` a KFold shuffled with seed 0. Each row is held out exactly once."""
    _check("fold kind", kind, tuple(FOLD_KINDS))
    n = len(frame)
    if kind in ("logo", "lolo"):
        key = frame["gpu" if kind == "logo" else "llm"]
        return [(str(name), (key == name).to_numpy()) for name in sorted(key.unique())]
    selection = require("sklearn.model_selection", "train", WHAT)
    if kind == LEAKY:
        splits = selection.KFold(n_splits=5, shuffle=True, random_state=KFOLD_SEED).split(frame)
    else:
        groups = frame["llm"] if kind == "llm5" else frame["llm"] + "|" + frame["gpu"]
        splits = selection.GroupKFold(n_splits=5).split(frame, groups=groups)
    out = []
    for k, (_, test) in enumerate(splits):
        mask = np.zeros(n, dtype=bool)
        mask[test] = True
        out.append((f"fold {k}", mask))
    return out


def folds(frame: pd.DataFrame, strategy: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) row positions of each fold of ``strategy`` (or of the leaky ``kfold``), from
    :func:`held_out_masks`."""
    _check("strategy", strategy, (*STRATEGIES, LEAKY))
    return [(np.flatnonzero(~m), np.flatnonzero(m)) for _, m in held_out_masks(frame, strategy)]


def _one_fold(
    frame, target, train, test, *, model, params, columns
) -> tuple[np.ndarray, pd.Series]:
    rows = frame.iloc[train].reset_index(drop=True)
    fitted = fit_target(rows, target, columns, params, kind=model)
    importance = pd.Series(fitted.importance(), index=fitted.preprocessor.feature_names)
    return fitted.predict(frame.iloc[test]), importance


def cross_predict(
    target: str,
    strategy: str,
    model: str = "xgb",
    params: dict | None = None,
    progress: bool = True,
    features: Sequence[str] | None = None,
) -> dict:
    """Out-of-fold predictions ("predictions": llm, gpu, scenario, fold, y_true, y_pred) and
    per-fold feature importances ("importance": fold x feature), with the model's inputs
    ``features`` (default: the paper's list for ``target``). Cached per arguments."""
    _check("target", target, TARGETS)
    default = (POWER_PARAMS if target == "power" else ITL_PARAMS) if model == "xgb" else {}
    params = dict(default if params is None else params)
    columns = check_features(target, FEATURES[target] if features is None else features)
    key = (target, strategy, model, json.dumps(params, sort_keys=True), columns)
    if key not in _CACHE:
        frame = dataset(target)
        out = frame[["llm", "gpu", "scenario"]].assign(fold=-1, y_true=np.nan, y_pred=np.nan)
        out["y_true"] = to_natural(target_values(frame, target), frame, target)
        imps = {}
        splits = folds(frame, strategy)
        tqdm = require("tqdm.auto", "train", WHAT).tqdm
        for k, (train, test) in enumerate(
            tqdm(splits, desc=f"{target} {strategy}", disable=not progress)
        ):
            pred, imps[k] = _one_fold(
                frame, target, train, test, model=model, params=params, columns=columns
            )
            out.loc[out.index[test], ["fold", "y_pred"]] = np.column_stack(
                [np.full(len(test), k), pred]
            )
        _CACHE[key] = {"predictions": out, "importance": pd.DataFrame(imps).T}
        while len(_CACHE) > CROSS_PREDICT_CACHED:
            _CACHE.popitem(last=False)
    _CACHE.move_to_end(key)
    return {name: value.copy() for name, value in _CACHE[key].items()}


def baseline_predictions(target: str) -> dict[str, pd.DataFrame]:
    """Each baseline's predictions on the rows of ``target`` (same layout as cross_predict)."""
    frame = dataset(target)
    y_true = to_natural(target_values(frame, target), frame, target)
    base = frame[["llm", "gpu", "scenario"]].assign(y_true=y_true)
    return {n: base.assign(y_pred=f(frame)) for n, (t, f) in BASELINES.items() if t == target}


def scored_rows(pred: pd.DataFrame, target: str, reading: str = "all") -> pd.DataFrame:
    """The prediction rows a ``reading`` scores (see the module docstring)."""
    _check("reading", reading, tuple(READINGS))
    if reading != "all" and target != "power":
        raise InvalidInputError(
            f"reading {reading!r} applies to power only: the paper's ITL figures are on all "
            "eight GPUs (the H100 NVL left only the power metrics, through its TDP lookup)"
        )
    return pred[~pred["gpu"].isin(READINGS[reading])]


def evaluate(
    target: str = "power",
    strategy: str = "logo",
    progress: bool = True,
    features: Sequence[str] | None = None,
    reading: str = "all",
) -> pd.DataFrame:
    """Our metrics beside the paper's (paper_* columns): the XGBoost rows of ``strategy``
    ("all" for the three) on inputs ``features`` and the baselines, one row per scenario
    group, scored on the rows of ``reading`` ("all" or the paper's "paper_7gpu" for power)."""
    strategies = STRATEGIES if strategy == "all" else (strategy,)
    for s in strategies:
        _check("strategy", s, STRATEGIES)
    preds = {
        ("xgb", s): cross_predict(target, s, progress=progress, features=features)["predictions"]
        for s in strategies
    }
    preds |= {(n, "none"): p for n, p in baseline_predictions(target).items()}
    parts = [
        scenario_metrics(scored_rows(p, target, reading)).assign(model=m, strategy=s)
        for (m, s), p in preds.items()
    ]
    paper = paper_results(target).drop(columns=["target"])
    merged = pd.concat(parts, ignore_index=True).merge(
        paper, on=["model", "scenario", "strategy"], how="left"
    )
    return merged[_COLUMNS].rename(columns=_UNITS[target])


_COLUMNS = [
    "model",
    "scenario",
    "strategy",
    "mdape_pct",
    "paper_mdape_pct",
    "pearson_r",
    "paper_pearson_r",
    "gpu_tau",
    "paper_gpu_tau",
    "llm_tau",
    "paper_llm_tau",
    "median_abs_error",
    "mean_abs_error",
    "n_runs",
]
_UNITS = {
    "power": {"median_abs_error": "median_abs_error_w", "mean_abs_error": "mean_abs_error_w"},
    "itl": {"median_abs_error": "median_abs_error_s", "mean_abs_error": "mean_abs_error_s"},
}
