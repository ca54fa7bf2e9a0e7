"""Build data/models/wattgpu_hybrid: the hybrid predictor fitted on every dense Watt Counts run,
its backbone's constants calibrated across sources, with its interval tables
(wattgpu_lite.hybrid.fit.build; deterministic, seed 0).

    .venv/bin/python data/scripts/build_hybrid_model.py     # about 20 minutes on 2 cores

The constants' candidate is chosen as each leave-one-source-out fold chooses, on the inner folds
of every external source (:func:`~wattgpu_lite.hybrid.report.calibrated_folds.shipped_choice`);
it is then refitted in every fold of the build (the intervals' held-out residuals) and on every
run, with the external rows (less those of a GPU or an LLM the fold holds out). Its
cross-source interval table is built last (data/scripts/build_cross_source_intervals.py).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.hybrid.fit.build import build
from wattgpu_lite.hybrid.predict.model import HYBRID_DIR
from wattgpu_lite.hybrid.report import calibrated_folds


def main() -> None:
    name, inner = calibrated_folds.shipped_choice()
    scores = ", ".join(f"{k} {v:.4f}" for k, v in inner.items())
    print(f"constants: {name} (mean inner |ln ratio|: {scores})")
    state = build(
        progress=True, constants_by=partial(calibrated_folds.constants_without, name=name)
    )
    cross_source = calibrated_folds.shipped_cross_source(name)  # build_cross_source_intervals.py
    state = replace(
        state, built_with=state.built_with | {"constants": name}, cross_source=cross_source
    )
    folder = data_dir() / HYBRID_DIR
    for old in folder.glob("*.json"):
        old.unlink()
    print(f"wrote {state.save(folder)}")


if __name__ == "__main__":
    main()
