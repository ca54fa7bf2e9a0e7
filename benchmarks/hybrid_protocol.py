"""Run the nested protocol of the hybrid predictor and write its per-run results (minutes).

    .venv/bin/python benchmarks/hybrid_protocol.py [logo|lolo ...]

Writes data/hybrid/nested_<strategy>.csv (one row per held-out run and target; notebook 06 and
``evaluate --model hybrid`` read them) and prints the pooled and per-group tables.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from importlib.metadata import version

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.hybrid.fit import protocol
from wattgpu_lite.hybrid.report import results as report

PACKAGES = ("numpy", "scipy", "pandas", "xgboost-cpu", "scikit-learn")


def environment() -> dict[str, str]:
    """What the shipped tables were computed with: Python, platform, package versions, and the
    BLAS libraries with their kernel (threadpoolctl's ``architecture``: e.g. Haswell where
    OPENBLAS_CORETYPE sets it) and threads (XGBoost runs with n_jobs=1 and seed 0, subsample 1:
    no randomness). Since the fit reaches its minimum, a difference here should change no
    shipped figure; it is the first suspect if one does."""
    from threadpoolctl import threadpool_info

    blas = [f"{i['internal_api']} {i['version']} {i.get('architecture') or ''} "
            f"({i['num_threads']} threads)".replace("  ", " ") for i in threadpool_info()]  # fmt: skip
    return {"python": platform.python_version(), "machine": platform.machine(),
            "system": platform.system(), **{p: version(p) for p in PACKAGES},
            "blas": "; ".join(sorted(blas))}  # fmt: skip


def main(strategies: list[str]) -> None:
    for strategy in strategies:
        start = time.perf_counter()
        res = protocol.nested(outer=strategy, progress=True)
        path = data_dir() / "hybrid" / f"nested_{strategy}.csv"
        res.to_csv(path, index=False, float_format="%.6g")
        env = path.with_name(f"nested_{strategy}_environment.json")
        env.write_text(json.dumps(environment(), indent=1, sort_keys=True) + "\n")
        print(f"{strategy} took: {time.perf_counter() - start:.0f} s")
        print(report.pooled(res).round(3).to_string(index=False))
        print(report.per_group(res).round(3).to_string(index=False))


if __name__ == "__main__":
    main(sys.argv[1:] or ["logo", "lolo"])
