"""Run the nested protocol of the hybrid predictor and write its per-run results (minutes).

    .venv/bin/python benchmarks/hybrid_protocol.py [logo|lolo ...] [--workers N]

The backbone's constants are the shipped model's candidate (calibrated across sources, chosen on
the external sources' inner folds: ``calibrated_folds.shipped_choice``), fitted on the training
runs and the rows of other harnesses less those of the held-out GPU or LLM
(``calibrated_folds.constants_without``): nothing of a held-out GPU or LLM touches a fit. They
are refitted in every outer and inner fold (64 fits leaving one GPU out, 252 leaving one LLM
out, some 8 s each). The outer folds
run in ``--workers`` processes (the same table: the parts are joined in the folds' order). Writes data/hybrid/nested_<strategy>.csv (one row per held-out run and target; notebook 06 and
``evaluate --model hybrid`` read them) and prints the pooled and per-group tables.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from functools import partial
from importlib.metadata import version

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.energy.backbone import training_runs
from wattgpu_lite.hybrid.fit import protocol
from wattgpu_lite.hybrid.report import calibrated_folds, calibration
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


def one_fold(group: str, strategy: str, name: str):
    """The nested protocol's rows of one outer fold, constants by candidate ``name``."""
    by = partial(calibrated_folds.constants_without, name=name)
    return protocol.nested(outer=strategy, groups=(group,), constants_by=by)


def main(strategies: list[str], workers: int = 1) -> None:
    name, _ = calibrated_folds.shipped_choice()
    print(f"constants: {name}")
    for strategy in strategies:
        start = time.perf_counter()
        groups = [g for g, _ in protocol.folds(training_runs.watt_counts(), strategy)]
        fold = partial(one_fold, strategy=strategy, name=name)
        res = calibration.map_folds(fold, groups, workers)
        path = data_dir() / "hybrid" / f"nested_{strategy}.csv"
        res.to_csv(path, index=False, float_format="%.6g")
        env = path.with_name(f"nested_{strategy}_environment.json")
        env.write_text(json.dumps(environment(), indent=1, sort_keys=True) + "\n")
        print(f"{strategy} took: {time.perf_counter() - start:.0f} s")
        print(report.pooled(res).round(3).to_string(index=False))
        print(report.per_group(res).round(3).to_string(index=False))


if __name__ == "__main__":
    args = sys.argv[1:]
    n = int(args.pop(args.index("--workers") + 1)) if "--workers" in args else 1
    main([a for a in args if a != "--workers"] or ["logo", "lolo"], workers=n)
