"""A fitted configuration with intervals, at any load: what ``WattGPU`` delegates to.

    m = HybridModel.pretrained()                       # "hybrid", calibrated, shipped as JSON
    m.predict("meta-llama/Llama-3.1-8B-Instruct", "L4", rate=0.1)      # or batch=32
    # power_w, itl_s, time_per_token_s (+ _lo/_hi at level 0.8), interval_basis, extrapolation

Shipped in data/models/wattgpu_hybrid (built by data/scripts/build_hybrid_model.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.hybrid import pipeline as H
from wattgpu_lite.hybrid.configs import DEFAULT_CONFIG
from wattgpu_lite.hybrid.intervals import check_level
from wattgpu_lite.hybrid.load import check_load, nearest_scenario, scenario_load
from wattgpu_lite.hybrid.physics import add_physics
from wattgpu_lite.runs.measurements import resolve_llm
from wattgpu_lite.specs.resolve import resolve_gpu
from wattgpu_lite.wattgpu.features import check_scenario, feature_frame, run_features

HYBRID_DIR = data_dir() / "models" / "wattgpu_hybrid"
_KEYS = ("llm", "gpu", "rate_qps", "batch", "in_flight", "tdp_w", "power_w", "power_w_lo",
         "power_w_hi", "itl_s", "itl_s_lo", "itl_s_hi", "time_per_token_s", "time_per_token_s_lo",
         "time_per_token_s_hi", "energy_per_token_j", "interval_basis", "extrapolation")  # fmt: skip


@dataclass
class HybridModel:
    """Both targets of one configuration, its calibration, and the names it was trained on."""

    config: str = DEFAULT_CONFIG
    seed: int = 0
    models: dict = field(default_factory=dict)
    calibration: dict | None = None
    seen_llms: tuple[str, ...] = ()
    seen_gpus: tuple[str, ...] = ()

    def fit(self, runs: pd.DataFrame, calibrate: bool = False, progress: bool = False):
        """Fit on the dense runs; ``calibrate`` also computes the conformal scores (slow:
        5 + 8 + 42 extra fits per target)."""
        rows = add_physics(run_features(runs[runs["dense"]] if "dense" in runs else runs))
        self.models = H.fit_models(rows, self.config, self.seed)
        self.seen_llms, self.seen_gpus = tuple(rows["llm"].unique()), tuple(rows["gpu"].unique())
        if calibrate:
            self.calibration = H.calibrate(rows, self.config, progress)
        return self

    def predict_frame(self, frame: pd.DataFrame, level: float = 0.8, llms=None, gpus=None):
        """Predictions with [lo, hi] at ``level`` for a feature frame (scenario, or rate_qps /
        batch columns). ``llms`` / ``gpus``: name -> object for entries in no catalog."""
        rows = add_physics(frame, llms, gpus)
        out = H.predict_rows(self.models, rows)
        bases = H.row_bases(out, self.seen_llms, self.seen_gpus)
        return H.add_intervals(out, self.calibration, check_level(level), bases)

    def predict(self, llm, gpu, scenario=None, *, rate=None, batch=None, level=0.8) -> dict:
        """One (LLM, GPU) at a Watt Counts ``scenario``, a ``rate`` (req/s) or a ``batch``."""
        model, device = resolve_llm(llm), resolve_gpu(gpu)
        rate_qps, n = check_load(rate, batch)
        label = scenario or nearest_scenario(rate_qps, n)
        if scenario is not None:
            rate_qps, n = scenario_load(check_scenario(scenario))
        frame = feature_frame([model], [device], [label]).assign(rate_qps=rate_qps, batch=n)
        out = self.predict_frame(frame, level, {model.name: model}, {device.name: device})
        row = out.iloc[0]
        return {k: row[k] if isinstance(row[k], str) else float(row[k]) for k in _KEYS} | {
            "scenario": label,
            "level": level,
            "config": self.config,
        }

    def save(self, folder: str | Path) -> Path:
        """power.json, itl.json (XGBoost; <target>_batch.json for a batch-mode tree) and
        state.json (configuration, stages, calibration)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        targets = {}
        for target, m in self.models.items():
            m.regressor.save_model(folder / f"{target}.json")
            if m.batch_regressor is not None:
                m.batch_regressor.save_model(H.batch_tree_path(folder / f"{target}.json"))
            targets[target] = H.model_state(m)
        state = {"config": self.config, "seed": self.seed, "targets": targets,
                 "seen_llms": list(self.seen_llms), "seen_gpus": list(self.seen_gpus),
                 "calibration": self.calibration}  # fmt: skip
        (folder / "state.json").write_text(json.dumps(state) + "\n")
        return folder

    @classmethod
    def load(cls, folder: str | Path) -> HybridModel:
        """Inverse of :meth:`save`."""
        folder = Path(folder)
        s = json.loads((folder / "state.json").read_text())
        models = {
            t: H.model_from_state(folder / f"{t}.json", st, t) for t, st in s["targets"].items()
        }
        return cls(s["config"], s["seed"], models, s["calibration"], tuple(s["seen_llms"]),
                   tuple(s["seen_gpus"]))  # fmt: skip

    @classmethod
    def pretrained(cls) -> HybridModel:
        """The shipped default configuration, fitted on every dense run and calibrated."""
        return _pretrained()


@cache
def _pretrained() -> HybridModel:
    return HybridModel.load(HYBRID_DIR)


def finite_interval(result: dict, column: str) -> bool:
    """lo ≤ value ≤ hi, all finite (a check used by tests and the CLI)."""
    lo, v, hi = (result[f"{column}{s}"] for s in ("_lo", "", "_hi"))
    return bool(np.isfinite([lo, v, hi]).all() and lo <= v <= hi)
