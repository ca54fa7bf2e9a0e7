"""Build data/hybrid/loso_sources.csv: the backbone's constants calibrated across sources and scored
leave-one-source-out (the protocol is :mod:`wattgpu_lite.hybrid.report.calibration`'s docstring).

    .venv/bin/python data/scripts/build_loso_calibration.py            # every fit
    .venv/bin/python data/scripts/build_loso_calibration.py --reuse    # the added candidates' only

Per held-out source, the fitted candidates on three inner folds and the chosen one refitted:
thirteen to sixteen least-squares fits of six to eight constants (10-15 s each), about five
minutes a source and some 90 minutes for the sixteen on one core, the folds spread over the
machine's cores; deterministic (every fit from the default start; the parts joined in the
sources' order). ``--reuse`` reads the shipped table and fits only the candidates it lacks: a
fold whose earlier candidate still wins keeps its rows (the same fits would give them again, to
the six significant digits the table keeps). tests/hybrid/test_calibration.py checks the table's
shipped-constant rows against a fresh evaluation and the protocol's folds.
"""

from __future__ import annotations

import os
import sys

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.hybrid.report import calibration


def main(argv: list[str]) -> None:
    stored = calibration.shipped() if "--reuse" in argv else None
    # the folds are independent: one process per core (the same table as one process)
    table = calibration.leave_one_source_out(workers=os.cpu_count() or 1, stored=stored)
    path = data_dir() / "hybrid" / "loso_sources.csv"
    table.to_csv(path, index=False, float_format="%.6g")
    print(f"{len(table)} rows, {table['source'].nunique()} sources -> {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
