"""Training-range checks: warn when a prediction needs an input beyond what the model saw.

Tree ensembles are flat outside their training range: a GPU with twice the H200's bandwidth gets
the H200's trees. A feature is out of range when its value is below the training minimum or
above the training maximum (over the dense Watt Counts runs), with a relative tolerance of
``REL_TOL`` so rounding does not warn.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from functools import cache

import numpy as np
import pandas as pd

from wattgpu_lite.hybrid.ablation import _physics_runs

REL_TOL = 1e-6


class ExtrapolationWarning(UserWarning):
    """A prediction uses an input outside the range of the training runs."""


@cache
def training_ranges() -> pd.DataFrame:
    """min and max of every numeric input over the dense Watt Counts runs (index: feature)."""
    numeric = _physics_runs().select_dtypes("number")
    return pd.DataFrame({"min": numeric.min(), "max": numeric.max()})


def _note(feature: str, value: float, lo: float, hi: float) -> str:
    side = "above the maximum" if value > hi else "below the minimum"
    return f"{feature} = {value:.4g} is {side} of the training runs [{lo:.4g}, {hi:.4g}]"


def range_notes(frame: pd.DataFrame, features: Sequence[str]) -> list[str]:
    """Per row of ``frame``, '; '-joined messages naming each feature outside the training range
    ('' when none). Vectorised: one comparison per feature over the whole frame."""
    ranges = training_ranges()
    notes: list[list[str]] = [[] for _ in range(len(frame))]
    for f in (f for f in features if f in ranges.index and f in frame):
        values = pd.to_numeric(frame[f], errors="coerce").to_numpy(dtype=float)
        lo, hi = ranges.loc[f, "min"], ranges.loc[f, "max"]
        outside = (values < lo - REL_TOL * abs(lo)) | (values > hi + REL_TOL * abs(hi))
        for i in np.flatnonzero(outside & np.isfinite(values)):
            notes[i].append(_note(f, float(values[i]), lo, hi))
    return ["; ".join(n) for n in notes]


def out_of_range(row: pd.Series, features: Sequence[str]) -> list[str]:
    """Messages naming each of ``features`` whose value in ``row`` is outside the training range."""
    found = range_notes(row.to_frame().T, features)[0]
    return found.split("; ") if found else []


def warn_extrapolation(frame: pd.DataFrame, features: Sequence[str]) -> list[str]:
    """Per row, the out-of-range messages ('' if none); each non-empty one is also issued as an
    :class:`ExtrapolationWarning` naming the LLM and GPU."""
    notes = range_notes(frame, features)
    for i in (i for i, n in enumerate(notes) if n):
        row = frame.iloc[i]
        warnings.warn(f"extrapolating for {row.get('llm', '?')} on {row.get('gpu', '?')}: {notes[i]}",
                      ExtrapolationWarning, stacklevel=3)  # fmt: skip
    return notes
