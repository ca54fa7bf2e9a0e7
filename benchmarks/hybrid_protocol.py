"""Run the nested protocol of the hybrid predictor and write its per-run results (minutes).

    .venv/bin/python benchmarks/hybrid_protocol.py [logo|lolo ...]

Writes data/hybrid/nested_<strategy>.csv (one row per held-out run and target; notebook 06 and
``evaluate --model hybrid`` read them) and prints the pooled and per-group tables.
"""

from __future__ import annotations

import sys
import time

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.hybrid import protocol, report


def main(strategies: list[str]) -> None:
    for strategy in strategies:
        start = time.perf_counter()
        res = protocol.nested(outer=strategy, progress=True)
        path = data_dir() / "hybrid" / f"nested_{strategy}.csv"
        res.to_csv(path, index=False, float_format="%.6g")
        print(f"{strategy} took: {time.perf_counter() - start:.0f} s")
        print(report.pooled(res).round(3).to_string(index=False))
        print(report.per_group(res).round(3).to_string(index=False))


if __name__ == "__main__":
    main(sys.argv[1:] or ["logo", "lolo"])
