"""Write the shipped model's cross-source interval table into data/models/wattgpu_hybrid/state.json
(``cross_source``; :func:`~wattgpu_lite.hybrid.report.calibrated_folds.shipped_cross_source`).

    .venv/bin/python data/scripts/build_cross_source_intervals.py     # about 1 minute on 2 cores

The residual pool of every external source under the shipped model's constants' candidate (three
inner fits, each source predicted by constants fitted without its inner group), the interval
method that pool chooses, and per regime cell the log-residual quantiles at every level of the
predictor's grid. Run after data/scripts/build_hybrid_model.py (which calls it too), then
data/scripts/update_manifest.py.
"""

from __future__ import annotations

from dataclasses import replace

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.hybrid.predict.model import HYBRID_DIR, HybridState
from wattgpu_lite.hybrid.report import calibrated_folds


def main() -> None:
    folder = data_dir() / HYBRID_DIR
    state = HybridState.load(folder)
    table = calibrated_folds.shipped_cross_source(state.built_with["constants"])
    scores = ", ".join(f"{k} {v:.4f}" for k, v in table["inner_scores"].items())
    print(f"interval method: {table['method']} (mean inner interval score: {scores})")
    print(f"targets with cross-source intervals: {sorted(table['targets'])}")
    print(f"wrote {replace(state, cross_source=table).save(folder)}")


if __name__ == "__main__":
    main()
