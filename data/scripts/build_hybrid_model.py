"""Build data/models/wattgpu_hybrid: the default (hybrid) configuration fitted on every dense
run, with its conformal calibration (grouped out-of-fold residuals: cv, logo, lolo).

    .venv/bin/python data/scripts/build_hybrid_model.py     # a few minutes on 2 cores

Deterministic (seed 0); tests/test_intervals.py checks the shipped model against a fresh fit.
"""

from __future__ import annotations

import wattgpu_lite as wl
from wattgpu_lite.hybrid.model import HYBRID_DIR, HybridModel


def main() -> None:
    model = HybridModel().fit(wl.measurements(dense_only=True), calibrate=True, progress=True)
    print(f"wrote {model.save(HYBRID_DIR)}")


if __name__ == "__main__":
    main()
