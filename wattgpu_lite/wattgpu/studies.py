"""Studies around WattGPU's evaluation: fold maps, feature importance, a small grid search, the
linear models the paper says were worse, and the paper's 7-GPU reading beside ours. Everything
reuses ``evaluation.cross_predict`` (cached) and takes ``features=`` like it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pandas as pd

from wattgpu_lite.specs.resolve import resolve_gpu
from wattgpu_lite.wattgpu.evaluation import READINGS, cross_predict, dataset, evaluate, folds
from wattgpu_lite.wattgpu.metrics import scenario_metrics

Features = Sequence[str] | None


def fold_assignment(target: str, strategy: str) -> pd.DataFrame:
    """Which fold tests each (LLM, GPU) pair: columns llm, gpu, fold (one row per pair)."""
    frame = dataset(target)
    test_fold = pd.Series(-1, index=frame.index)
    for k, (_, test) in enumerate(folds(frame, strategy)):
        test_fold.iloc[test] = k
    pairs = frame[["llm", "gpu"]].assign(fold=test_fold.to_numpy())
    return pairs.drop_duplicates(["llm", "gpu"]).reset_index(drop=True)


def split_matrix(target: str, strategy: str) -> pd.DataFrame:
    """Each run's role in each fold, runs ordered by GPU then LLM then scenario: one row per
    (fold, run) with columns fold, position (0..n-1 in that order), gpu, llm, scenario, role
    ("train" or "test"). The data of scikit-learn's "visualizing cross-validation" figure."""
    frame = dataset(target)
    order = frame.sort_values(["gpu", "llm", "scenario"], kind="stable").index
    position = pd.Series(range(len(order)), index=order)
    parts = []
    for k, (_, test) in enumerate(folds(frame, strategy)):
        role = pd.Series("train", index=frame.index)
        role.iloc[test] = "test"
        parts.append(frame[["gpu", "llm", "scenario"]].assign(fold=k, role=role, position=position))
    out = pd.concat(parts).sort_values(["fold", "position"], kind="stable")
    return out[["fold", "position", "gpu", "llm", "scenario", "role"]].reset_index(drop=True)


def importance_summary(target: str, strategy: str = "logo", features: Features = None):
    """Normalised gain importance per input: mean and std over the folds, largest first."""
    imp = cross_predict(target, strategy, progress=False, features=features)["importance"]
    out = pd.DataFrame({"feature": imp.columns, "gain_mean": imp.mean(), "gain_std": imp.std()})
    return out.sort_values("gain_mean", ascending=False).reset_index(drop=True)


def _mdape_by_group(pred: pd.DataFrame) -> dict:
    m = scenario_metrics(pred).set_index("scenario")["mdape_pct"]
    return {f"mdape_{k}_pct": v for k, v in m.items()}


def grid_search(
    target: str, grid: dict[str, list], strategy: str = "logo", features: Features = None
) -> pd.DataFrame:
    """MdAPE (offline, server) of XGBoost for every combination in ``grid``, best first."""
    rows = []
    for values in itertools.product(*grid.values()):
        params = dict(zip(grid, values, strict=True))
        pred = cross_predict(target, strategy, params=params, progress=False, features=features)
        rows.append({**params, **_mdape_by_group(pred["predictions"])})
    table = pd.DataFrame(rows)
    table["mdape_mean_pct"] = table.filter(like="mdape_").mean(axis=1)
    return table.sort_values("mdape_mean_pct").reset_index(drop=True)


def compare_regressors(target: str, strategy: str = "logo", features: Features = None):
    """MdAPE of XGBoost (the paper's settings), linear regression and Elastic Net (alpha 0.01)."""
    models = {"xgb": None, "linear": {}, "elastic_net": {"alpha": 0.01, "max_iter": 5000}}
    rows = []
    for name, params in models.items():
        pred = cross_predict(
            target, strategy, model=name, params=params, progress=False, features=features
        )
        rows.append({"model": name, **_mdape_by_group(pred["predictions"])})
    return pd.DataFrame(rows)


def readings(
    target: str = "power",
    strategy: str = "all",
    metrics: Sequence[str] = ("mdape_pct", "pearson_r", "gpu_tau"),
) -> pd.DataFrame:
    """Every reading of ``evaluate`` beside the paper: one row per (model, scenario, strategy,
    metric), one column per reading ("all", "paper_7gpu") and "paper"."""
    keys = ["model", "scenario", "strategy"]
    tables = {r: evaluate(target, strategy, progress=False, reading=r) for r in READINGS}
    long = {r: t.melt(keys, list(metrics), "metric", r) for r, t in tables.items()}
    paper = tables["all"].melt(keys, [f"paper_{m}" for m in metrics], "metric", "paper")
    paper["metric"] = paper["metric"].str.removeprefix("paper_")
    out = long["all"]
    for r in list(READINGS)[1:]:
        out = out.merge(long[r], on=[*keys, "metric"])
    return out.merge(paper, on=[*keys, "metric"])


def per_gpu_mdape(target: str, strategy: str = "logo", features: Features = None):
    """MdAPE (%) per GPU (rows) and scenario group (columns offline, server) of the
    out-of-fold predictions of ``strategy``: under LOGO, the error on each GPU held out."""
    pred = cross_predict(target, strategy, progress=False, features=features)["predictions"]
    group = pred["scenario"].where(pred["scenario"] == "offline", "server")
    ape = (pred["y_pred"] / pred["y_true"] - 1).abs() * 100
    table = ape.groupby([pred["gpu"], group]).median().unstack()
    return table.rename_axis(index="gpu", columns=None)


RANGE_FIELDS = ("bandwidth_gbs", "fp16_tflops")  # the specs that set ITL and power's trends


def beyond_training(gpu, fields: Sequence[str] = RANGE_FIELDS) -> dict[str, tuple[float, ...]]:
    """The spec fields of ``gpu`` outside the range WattGPU's training rows span (its own
    dataset, the spec rows it was fitted on): {field: (its value, the lowest, the highest)}; {}
    when inside. The trees answer beyond that range as at its nearest edge: no split they
    learned lies there."""
    train, device, out = dataset("power"), resolve_gpu(gpu), {}
    for f in fields:
        lo, hi = float(train[f].min()), float(train[f].max())
        value = float(getattr(device, f))
        if not lo <= value <= hi:
            out[f] = (value, lo, hi)
    return out
