"""The candidate variants of data/hybrid/candidates.json, and the rule that picks one.

The file was committed before any variant was scored on held-out runs; the code only reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.hybrid.predict.correction import FEATURE_GROUPS
from wattgpu_lite.jsonfiles import read_json

PATH = "hybrid/candidates.json"
SCORE_DECIMALS = 2  # scores (MdAPE, %) are compared to 0.01 percentage points


@dataclass(frozen=True)
class Candidate:
    """One variant: the correction's inputs (empty: the backbone alone) and its bound."""

    name: str
    columns: tuple[str, ...]
    bound: float

    @property
    def physics_only(self) -> bool:
        return not self.columns


@cache
def spec() -> dict:
    """The whole candidates file."""
    return read_json(data_dir() / PATH, what="candidates file")


def candidates() -> tuple[Candidate, ...]:
    """The candidates, in the file's order."""
    out = []
    for c in spec()["candidates"]:
        cols = [
            col for g in c["groups"] for col in FEATURE_GROUPS[g] if col not in c.get("drop", ())
        ]
        cols += ["model_type"] if c["family"] else []
        out.append(Candidate(c["name"], tuple(cols), float(c["bound"])))
    return tuple(out)


def xgb_params() -> dict:
    """XGBoost settings of every correction."""
    return dict(spec()["xgboost"])


def select(scores: dict[str, float]) -> str:
    """The candidate with the lowest score (mean over scenario groups of the inner MdAPE, in %)
    at :data:`SCORE_DECIMALS` decimals; a tie goes to the earlier candidate of the file. Scores
    closer than that are one score: a last-bit difference never flips the choice."""
    names = [c.name for c in candidates() if c.name in scores]
    values = np.round(np.array([scores[n] for n in names]), SCORE_DECIMALS)
    return names[int(np.argmin(values))]
