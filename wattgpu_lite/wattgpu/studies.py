"""Studies around WattGPU's evaluation: fold maps, feature importance, a small grid search, and the
linear models the paper says were worse. Everything reuses ``evaluation.cross_predict`` (cached).
"""

from __future__ import annotations

import itertools

import pandas as pd

from wattgpu_lite.wattgpu.evaluation import cross_predict, dataset, folds
from wattgpu_lite.wattgpu.metrics import scenario_metrics


def fold_assignment(target: str, strategy: str) -> pd.DataFrame:
    """Which fold tests each (LLM, GPU) pair: columns llm, gpu, fold (one row per pair)."""
    frame = dataset(target)
    test_fold = pd.Series(-1, index=frame.index)
    for k, (_, test) in enumerate(folds(frame, strategy)):
        test_fold.iloc[test] = k
    pairs = frame[["llm", "gpu"]].assign(fold=test_fold.to_numpy())
    return pairs.drop_duplicates(["llm", "gpu"]).reset_index(drop=True)


def importance_summary(target: str, strategy: str = "logo") -> pd.DataFrame:
    """Normalised gain importance per input: mean and std over the folds, largest first."""
    imp = cross_predict(target, strategy, progress=False)["importance"]
    out = pd.DataFrame({"feature": imp.columns, "gain_mean": imp.mean(), "gain_std": imp.std()})
    return out.sort_values("gain_mean", ascending=False).reset_index(drop=True)


def _mdape_by_group(pred: pd.DataFrame) -> dict:
    m = scenario_metrics(pred).set_index("scenario")["mdape_pct"]
    return {f"mdape_{k}_pct": v for k, v in m.items()}


def grid_search(target: str, grid: dict[str, list], strategy: str = "logo") -> pd.DataFrame:
    """MdAPE (offline, server) of XGBoost for every combination in ``grid``, best first."""
    rows = []
    for values in itertools.product(*grid.values()):
        params = dict(zip(grid, values, strict=True))
        pred = cross_predict(target, strategy, params=params, progress=False)["predictions"]
        rows.append({**params, **_mdape_by_group(pred)})
    table = pd.DataFrame(rows)
    table["mdape_mean_pct"] = table.filter(like="mdape_").mean(axis=1)
    return table.sort_values("mdape_mean_pct").reset_index(drop=True)


def compare_regressors(target: str, strategy: str = "logo") -> pd.DataFrame:
    """MdAPE of XGBoost (the paper's settings), linear regression and Elastic Net (alpha 0.01)."""
    models = {"xgb": None, "linear": {}, "elastic_net": {"alpha": 0.01, "max_iter": 5000}}
    rows = []
    for name, params in models.items():
        pred = cross_predict(target, strategy, model=name, params=params, progress=False)
        rows.append({"model": name, **_mdape_by_group(pred["predictions"])})
    return pd.DataFrame(rows)
