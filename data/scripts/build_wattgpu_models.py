"""Build data/models/wattgpu: WattGPU's power and ITL predictors fitted on every dense run.

    .venv/bin/python data/scripts/build_wattgpu_models.py

Deterministic (seed 0, XGBoost hist trees): running it again rewrites identical predictions;
tests/wattgpu/test_predictors.py checks a fresh fit against the files.
"""

from __future__ import annotations

import wattgpu_lite as wl
from wattgpu_lite.wattgpu.predictor import pretrained_dir


def main() -> None:
    model = wl.WattGPU().fit(wl.measurements(dense_only=True))
    folder = model.save(pretrained_dir())
    print(f"wrote {model!r} to {folder.name}/")


if __name__ == "__main__":
    main()
