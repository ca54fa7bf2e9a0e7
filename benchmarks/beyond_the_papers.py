"""Notebook 06's slow tables: ablation, nested conformal coverage, leave-one-scenario-out.

    .venv/bin/python benchmarks/beyond_the_papers.py     # about 10 minutes on 2 cores

Writes data/beyond_ablation.csv, data/beyond_coverage.csv and data/beyond_loso.csv (each with a
``source`` column). Deterministic (seed 0); tests/test_hybrid.py recomputes one ablation cell and
checks it against the CSV, so a stale CSV fails the tests.
"""

from __future__ import annotations

from wattgpu_lite.hybrid import results as R


def main() -> None:
    for name, frame in R.build_all(progress=True).items():
        path = R.write(name, frame)
        print(f"wrote {path.name}: {len(frame)} rows")


if __name__ == "__main__":
    main()
