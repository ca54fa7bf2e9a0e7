"""Leakage: what a score means depends on what the folds keep apart (scikit-learn's "common
pitfalls"). Each (LLM, GPU, scenario) configuration was run five times; a plain KFold over runs
puts four repeats in training and one in the test fold, so the model is tested on a configuration
it has already seen. Grouping the folds by (LLM, GPU) pair (the paper's CV), or by GPU (LOGO),
keeps every repeat on one side.

    leakage_table("power")    # MdAPE under plain KFold and under grouped folds, and the gap
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.wattgpu.evaluation import LEAKY, cross_predict, dataset, folds
from wattgpu_lite.wattgpu.metrics import scenario_metrics


def seen_share(frame: pd.DataFrame, splits) -> float:
    """Share of test runs whose (LLM, GPU, scenario) configuration is also in their training
    fold: 0 for grouped folds, close to 1 for plain KFold over repeated runs."""
    config = (frame["llm"] + "|" + frame["gpu"] + "|" + frame["scenario"]).to_numpy()
    seen = [np.isin(config[test], config[train]).sum() for train, test in splits]
    return float(np.sum(seen) / len(frame))


def leakage_table(target: str, grouped: str = "cv") -> pd.DataFrame:
    """Per scenario group: MdAPE of the same XGBoost under plain KFold (``kfold``) and under
    ``grouped`` folds, the gap in points, and each split's share of test runs already seen."""
    frame = dataset(target)
    rows = []
    for strategy in (LEAKY, grouped):
        pred = cross_predict(target, strategy, progress=False)["predictions"]
        share = seen_share(frame, folds(frame, strategy))
        rows.append(
            scenario_metrics(pred)[["scenario", "mdape_pct"]].assign(
                strategy=strategy, seen_share=share
            )
        )
    long = pd.concat(rows)
    wide = long.pivot(index="scenario", columns="strategy", values="mdape_pct")
    out = pd.DataFrame(
        {
            "mdape_kfold_pct": wide[LEAKY],
            f"mdape_{grouped}_pct": wide[grouped],
            "gap_points": wide[grouped] - wide[LEAKY],
            "ratio": wide[grouped] / wide[LEAKY],
            "seen_share_kfold": long.loc[long["strategy"] == LEAKY, "seen_share"].iloc[0],
            f"seen_share_{grouped}": long.loc[long["strategy"] == grouped, "seen_share"].iloc[0],
        }
    )
    return out.reset_index()
