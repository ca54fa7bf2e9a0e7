"""Build data/hybrid/calibrated_rows.csv: per held-out source, its rows predicted by its fold's
calibrated constants with intervals from the fold's inner out-of-sample residuals, by the interval
method the fold's pool alone chooses (the protocol is
:mod:`wattgpu_lite.hybrid.report.calibrated_folds`' docstring).

    .venv/bin/python data/scripts/build_calibrated_intervals.py [POOLS]

Four least-squares fits a source (one outer, three inner), 64 for the sixteen sources: 2,198 s
on two shared cores (the first build), the folds spread over the machine's cores; deterministic (every fit from the default
start; the parts joined in the sources' order). The candidate of each fold is read from the shipped
``data/hybrid/loso_sources.csv``, never re-chosen. ``POOLS``: the folds' fits cached by
``data/scripts/cache_fold_pools.py`` (the same :func:`~wattgpu_lite.hybrid.report.calibrated_folds.fold_parts`),
read instead of refitted. tests/hybrid/test_calibrated_refit.py refits one fold and compares it
with the table.
"""

from __future__ import annotations

import os
import sys
import time

import pandas as pd

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.hybrid.report import calibrated_folds, calibration


def from_pools(path: str) -> pd.DataFrame:
    """Every fold's table (:func:`~wattgpu_lite.hybrid.report.calibrated_folds.fold_table`) from
    the cached fits at ``path``, in the scored sources' order."""
    cache = pd.read_pickle(path)
    parts = []
    for source in calibration.scored_sources(calibration.asked()):
        fold = cache[cache["fold"] == source]
        name = fold["chosen"].iloc[0]
        outer, pool = (
            fold[fold["part"] == p].drop(columns=["fold", "part", "chosen"]).reset_index(drop=True)
            for p in ("outer", "pool")
        )
        parts.append(calibrated_folds.fold_table(source, name, outer, pool))
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    start = time.perf_counter()
    if len(sys.argv) > 1:
        table = from_pools(sys.argv[1])
    else:
        table = calibrated_folds.all_folds(workers=os.cpu_count() or 1)
    path = data_dir() / "hybrid" / "calibrated_rows.csv"
    table.to_csv(path, index=False, float_format="%.6g")
    took = time.perf_counter() - start
    print(f"{len(table)} rows, {table['source'].nunique()} sources -> {path} in {took:.0f} s")


if __name__ == "__main__":
    main()
