"""The shipped results of notebook 06 (built by benchmarks/beyond_the_papers.py) and loaders.

data/beyond_ablation.csv — MdAPE per target, scenario group, strategy, configuration;
data/beyond_coverage.csv — nested conformal coverage of the default configuration;
data/beyond_loso.csv — leave-one-scenario-out MdAPE, categorical vs numeric load.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.errors import DataFileError
from wattgpu_lite.hybrid.ablation import ablation_table, coverage_table, leave_one_scenario_out
from wattgpu_lite.hybrid.configs import DEFAULT_CONFIG
from wattgpu_lite.wattgpu.metrics import mdape_pct

SOURCE = "benchmarks/beyond_the_papers.py (seed 0) on data/watt_counts_runs.csv"
LOSO_CONFIGS = ("paper", "load", "hybrid")


def path(name: str) -> Path:
    """data/beyond_<name>.csv."""
    return data_dir() / f"beyond_{name}.csv"


def loso_table(configs=LOSO_CONFIGS, targets=("power", "itl")) -> pd.DataFrame:
    """MdAPE [%] on the held-out scenario per target and configuration."""
    rows = []
    for target in targets:
        for config in configs:
            pred = leave_one_scenario_out(config, target)
            for held, g in pred.groupby("held_out", sort=False):
                rows.append({"target": target, "held_out": held, "config": config,
                             "mdape_pct": mdape_pct(g["y_true"], g["y_pred"]),
                             "n_runs": len(g)})  # fmt: skip
    return pd.DataFrame(rows)


def build_all(progress: bool = False) -> dict[str, pd.DataFrame]:
    """Every table, freshly computed."""
    return {
        "ablation": ablation_table(progress=progress),
        "coverage": coverage_table(DEFAULT_CONFIG, progress=progress),
        "loso": loso_table(),
    }


def write(name: str, frame: pd.DataFrame) -> Path:
    """Write one table with its source column, floats to 6 significant figures."""
    out = path(name)
    frame.assign(source=SOURCE).to_csv(out, index=False, float_format="%.6g")
    return out


def read(name: str) -> pd.DataFrame:
    """Read a shipped table (DataFileError if missing: run the benchmark script)."""
    try:
        return pd.read_csv(path(name)).drop(columns="source")
    except OSError as err:
        raise DataFileError(f"{path(name).name}: cannot read it ({err}); rebuild it with "
                            "`.venv/bin/python benchmarks/beyond_the_papers.py`") from err  # fmt: skip
