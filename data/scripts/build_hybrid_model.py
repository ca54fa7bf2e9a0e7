"""Build data/models/wattgpu_hybrid: the hybrid predictor fitted on every dense Watt Counts run,
with its interval tables (wattgpu_lite.hybrid.fit.build; deterministic, seed 0).

    .venv/bin/python data/scripts/build_hybrid_model.py     # about five minutes on 2 cores
"""

from __future__ import annotations

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.hybrid.fit.build import build
from wattgpu_lite.hybrid.predict.model import HYBRID_DIR


def main() -> None:
    folder = data_dir() / HYBRID_DIR
    for old in folder.glob("*.json"):
        old.unlink()
    print(f"wrote {build(progress=True).save(folder)}")


if __name__ == "__main__":
    main()
