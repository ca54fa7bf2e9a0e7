"""The paper's published WattGPU results (data/paper_wattgpu_results.csv), for side-by-side tables."""

from __future__ import annotations

from functools import cache

import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv

PAPER_RESULTS_NAME = "paper_wattgpu_results.csv"
_METRICS = ("mdape_pct", "pearson_r", "gpu_tau", "llm_tau")


@cache
def _table() -> pd.DataFrame:
    return read_csv(data_dir() / PAPER_RESULTS_NAME)


def paper_results(target: str, spec_version: str = "final") -> pd.DataFrame:
    """Rows of ``target`` ("power"|"itl"): target, model, scenario, strategy, paper_<metric>.

    ``spec_version`` "final" is the published table; "pre_tdp_fix" the authors' earlier run with
    L40S at 300 W and H200 at 600 W (power only).
    """
    t = _table()
    rows = t[(t["target"] == target) & (t["spec_version"] == spec_version)]
    keep = rows[["target", "model", "scenario", "strategy", *_METRICS]]
    return keep.rename(columns={m: f"paper_{m}" for m in _METRICS}).reset_index(drop=True)
