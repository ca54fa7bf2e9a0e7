"""Cache every fold's outer rows and inner residual pool (not shipped data), so that interval
methods can be compared without refitting:

    .venv/bin/python data/scripts/cache_fold_pools.py [/tmp/pools.pkl]

Per scored source s, :func:`~wattgpu_lite.hybrid.report.calibrated_folds.fold_parts` (the fits of
``held_out``, the same candidate read from the shipped LOSO table): one frame, ``fold`` = s,
``part`` = ``outer`` (s's rows) or ``pool`` (the fold's inner out-of-sample residual rows),
``chosen`` the fold's candidate. 64 least-squares fits on two worker processes.
"""

from __future__ import annotations

import sys
import time
from functools import partial

import pandas as pd

from wattgpu_lite.hybrid.report import calibrated_folds, calibration


def parts(source: str, chosen: dict[str, str]) -> pd.DataFrame:
    """One fold's outer rows and pool, tagged (module docstring)."""
    name, outer, pool = calibrated_folds.fold_parts(source, chosen)
    tags = {"fold": source, "chosen": name}
    return pd.concat([outer.assign(part="outer", **tags), pool.assign(part="pool", **tags)])


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/pools.pkl"
    start = time.perf_counter()
    sources = calibration.scored_sources(calibration.asked())
    fold = partial(parts, chosen=calibrated_folds.chosen_candidates())
    table = calibration.map_folds(fold, sources, workers=2)
    table.to_pickle(path)
    took = time.perf_counter() - start
    print(f"{len(table)} rows, {table['fold'].nunique()} folds -> {path} in {took:.0f} s")


if __name__ == "__main__":
    main()
