"""The shipped hybrid predictor: backbone constants, corrections, interval tables, training ranges.

    m = HybridState.pretrained()          # data/models/wattgpu_hybrid, JSON only
    m.backbone_only()                     # the same model without its corrections (physics)
    wl.predict(llm, gpu, rate_qps=0.1)    # what predicts with it (the vectorised path:
                                          # :mod:`wattgpu_lite.hybrid.predict.steps`)

Built by data/scripts/build_hybrid_model.py (:func:`wattgpu_lite.hybrid.fit.build.build`): the
candidate chosen per target by leave one GPU out on all eight GPUs, refitted on every dense run,
calibrated on held-out residuals (:mod:`wattgpu_lite.hybrid.predict.intervals`). Loading needs
numpy only (no XGBoost, no scikit-learn). ``wl.HybridModel``
(:mod:`wattgpu_lite.hybrid.fit.estimator`) fits one on any runs table and predicts with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

from wattgpu_lite.datafiles import data_dir, read_bytes
from wattgpu_lite.energy.backbone import Constants
from wattgpu_lite.hybrid.predict.correction import Correction
from wattgpu_lite.jsonfiles import model_folder, read_json

HYBRID_DIR = "models/wattgpu_hybrid"
SCHEMA_VERSION = 2


@dataclass(frozen=True)
class HybridState:
    """Everything a prediction needs, as plain data."""

    constants: Constants
    corrections: dict[str, Correction | None]  # per target
    chosen: dict[str, str]  # candidate name per target
    tables: dict  # basis -> target -> regime -> level -> q
    ranges: dict[str, tuple[float, float]]  # training range of each input the intervals watch
    seen_gpus: frozenset[str]  # spec fingerprints of the training GPUs
    seen_llms: frozenset[str]  # architecture fingerprints of the training LLMs
    built_with: dict[str, str]  # versions (xgboost, kit) the model was built with
    #: the physics rows' log-residual quantiles across sources, per target and regime cell (empty:
    #: none, every interval from ``tables``; :mod:`~wattgpu_lite.hybrid.predict.interval_steps`)
    cross_source: dict = field(default_factory=dict)

    def save(self, folder: str | Path) -> Path:
        """state.json (everything but the forests) and <target>.json (XGBoost JSON) per target."""
        folder = model_folder(folder, "HybridState.save")
        folder.mkdir(parents=True, exist_ok=True)
        corr = {}
        for target, c in self.corrections.items():
            if c is not None:
                (folder / f"{target}.json").write_text(c.forest_json)
                corr[target] = {
                    "columns": list(c.columns),
                    "bound": c.bound,
                    "families": list(c.families),
                }
        state = {
            "schema_version": SCHEMA_VERSION,
            "constants": self.constants.to_dict(),
            "corrections": corr,
            "chosen": self.chosen,
            "tables": self.tables,
            "ranges": {k: list(v) for k, v in self.ranges.items()},
            "seen_gpus": sorted(self.seen_gpus),
            "seen_llms": sorted(self.seen_llms),
            "built_with": self.built_with,
            "cross_source": self.cross_source,
        }
        (folder / "state.json").write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
        return folder

    @classmethod
    def load(cls, folder: str | Path) -> HybridState:
        """Inverse of :meth:`save`."""
        folder = model_folder(folder, "HybridState.load")
        s = read_json(folder / "state.json", what="hybrid model state")
        corr: dict[str, Correction | None] = {t: None for t in ("power", "itl")}
        for target, c in s["corrections"].items():
            text = read_bytes(folder / f"{target}.json", what="hybrid forest").decode("utf-8")
            corr[target] = Correction(
                tuple(c["columns"]), float(c["bound"]), tuple(c["families"]), text
            )
        return cls(
            constants=Constants(**s["constants"]),
            corrections=corr,
            chosen=s["chosen"],
            tables=s["tables"],
            ranges={k: (float(a), float(b)) for k, (a, b) in s["ranges"].items()},
            seen_gpus=frozenset(s["seen_gpus"]),
            seen_llms=frozenset(s["seen_llms"]),
            built_with=s["built_with"],
            cross_source=s.get("cross_source", {}),
        )

    def backbone_only(self) -> HybridState:
        """This model with no correction on any target: the physics backbone alone (its
        intervals then rest on the 'physics' tables)."""
        return replace(self, corrections={t: None for t in self.corrections})

    @property
    def corrects(self) -> bool:
        """Whether any target has a learned correction."""
        return any(c is not None for c in self.corrections.values())

    @classmethod
    def pretrained(cls) -> HybridState:
        """The shipped model (loaded once)."""
        return _pretrained()


@cache
def _pretrained() -> HybridState:
    return HybridState.load(data_dir() / HYBRID_DIR)
