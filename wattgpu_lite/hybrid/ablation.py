"""Grouped cross-validation of the configurations (:mod:`variants`): the ablation table,
leave-one-scenario-out, and the out-of-fold residuals that calibrate the prediction intervals.

Predictions are compared in the paper's units (power_w; ITL = aggregate 1/throughput offline,
per request on a server), so every cell sits beside the paper's published MdAPE.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from wattgpu_lite.hybrid.configs import CONFIGS, fit_variant
from wattgpu_lite.hybrid.intervals import nested_coverage
from wattgpu_lite.hybrid.physics import add_physics
from wattgpu_lite.runs import measurements
from wattgpu_lite.wattgpu.evaluation import STRATEGIES, TARGETS, folds
from wattgpu_lite.wattgpu.features import run_features
from wattgpu_lite.wattgpu.metrics import scenario_metrics
from wattgpu_lite.wattgpu.paper_results import paper_results
from wattgpu_lite.wattgpu.regressor import training_rows

_OOF: dict[tuple[str, str, str], pd.DataFrame] = {}


@cache
def _physics_runs() -> pd.DataFrame:
    return add_physics(run_features(measurements.load(dense_only=True)))


def dataset(target: str) -> pd.DataFrame:
    """Dense Watt Counts runs usable for ``target``, with paper, load and physics inputs."""
    return training_rows(_physics_runs(), target)


def _predict_paper_units(model, frame: pd.DataFrame) -> np.ndarray:
    out = model.predict(frame)
    return out["power_w" if model.target == "power" else "paper_itl_s"].to_numpy()


def predict_split(rows: pd.DataFrame, target: str, config: str, train, test) -> np.ndarray:
    """Fit ``config`` on rows ``train``, predict rows ``test`` (paper units)."""
    model = fit_variant(rows.iloc[train].reset_index(drop=True), CONFIGS[config], target)
    return _predict_paper_units(model, rows.iloc[test])


def _compute_oof(rows: pd.DataFrame, config: str, target: str, strategy: str, progress: bool):
    y_true = rows["power_w"] if target == "power" else rows["itl_s"]
    out = rows[["llm", "gpu", "scenario"]].assign(fold=-1, y_true=y_true, y_pred=np.nan)
    splits = folds(rows, strategy)
    desc = f"{config} {target} {strategy}"
    for k, (train, test) in enumerate(tqdm(splits, desc=desc, disable=not progress)):
        out.iloc[test, out.columns.get_loc("y_pred")] = predict_split(
            rows, target, config, train, test
        )
        out.iloc[test, out.columns.get_loc("fold")] = k
    return out.assign(log_residual=np.log(out["y_true"] / out["y_pred"]))


def out_of_fold(
    config: str, target: str, strategy: str, progress: bool = False, rows=None
) -> pd.DataFrame:
    """Out-of-fold predictions: llm, gpu, scenario, fold, y_true, y_pred (paper units) and
    log_residual = ln(y_true / y_pred). ``rows``: a physics-augmented runs table (default
    :func:`dataset`, whose results are cached per (config, target, strategy))."""
    if rows is not None:
        return _compute_oof(training_rows(rows, target), config, target, strategy, progress)
    key = (config, target, strategy)
    if key not in _OOF:
        _OOF[key] = _compute_oof(dataset(target), config, target, strategy, progress)
    return _OOF[key].copy()


def ablation_table(
    configs=tuple(CONFIGS), targets=TARGETS, strategies=STRATEGIES, progress: bool = False
) -> pd.DataFrame:
    """MdAPE [%] per (target, scenario group, strategy, config) beside the paper's."""
    parts = []
    for target in targets:
        for strategy in strategies:
            for config in configs:
                oof = out_of_fold(config, target, strategy, progress)
                m = scenario_metrics(oof)[["scenario", "mdape_pct", "pearson_r"]]
                parts.append(m.assign(target=target, strategy=strategy, config=config))
    table = pd.concat(parts, ignore_index=True)
    paper = pd.concat([paper_results(t).query("model == 'xgb'") for t in targets])
    table = table.merge(paper[["target", "scenario", "strategy", "paper_mdape_pct"]],
                        on=["target", "scenario", "strategy"], how="left")  # fmt: skip
    cols = ["target", "scenario", "strategy", "config", "mdape_pct", "paper_mdape_pct", "pearson_r"]
    return table[cols]


def leave_one_scenario_out(config: str, target: str) -> pd.DataFrame:
    """Train on two scenarios, predict the third (each in turn): rows of the held-out scenario
    with y_true, y_pred (paper units) and held_out."""
    rows = dataset(target)
    parts = []
    for held in measurements.SCENARIOS:
        test = np.flatnonzero(rows["scenario"] == held)
        train = np.flatnonzero(rows["scenario"] != held)
        pred = predict_split(rows, target, config, train, test)
        y = rows["power_w" if target == "power" else "itl_s"].to_numpy()[test]
        base = rows.iloc[test][["llm", "gpu", "scenario"]]
        parts.append(base.assign(held_out=held, config=config, y_true=y, y_pred=pred))
    return pd.concat(parts, ignore_index=True)


def coverage_table(config: str = "hybrid", levels=(0.8, 0.9), strategies=("logo", "lolo"),
                   progress: bool = False) -> pd.DataFrame:  # fmt: skip
    """Nested conformal coverage (:func:`intervals.nested_coverage`) per target, strategy,
    scenario group and level."""
    parts = [
        nested_coverage(out_of_fold(config, target, strategy, progress), level).assign(
            target=target, strategy=strategy, config=config)
        for target in TARGETS for strategy in strategies for level in levels
    ]  # fmt: skip
    cols = ["target", "strategy", "scenario", "level", "coverage", "median_width_rel", "config"]
    return pd.concat(parts, ignore_index=True)[cols]
