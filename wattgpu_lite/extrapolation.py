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

REL_TOL = 1e-6


class ExtrapolationWarning(UserWarning):
    """A prediction uses an input outside the range of the training runs."""


@cache
def training_ranges() -> pd.DataFrame:
    """min and max of every numeric input over the dense Watt Counts runs (index: feature)."""
    from .ablation import _physics_runs

    numeric = _physics_runs().select_dtypes("number")
    return pd.DataFrame({"min": numeric.min(), "max": numeric.max()})


def out_of_range(row: pd.Series, features: Sequence[str]) -> list[str]:
    """Messages naming each of ``features`` whose value in ``row`` is outside the training range."""
    ranges, notes = training_ranges(), []
    for f in features:
        if f not in ranges.index or f not in row or not np.isfinite(row[f]):
            continue
        lo, hi = ranges.loc[f, "min"], ranges.loc[f, "max"]
        value = float(row[f])
        if value < lo - REL_TOL * abs(lo) or value > hi + REL_TOL * abs(hi):
            side = "above the maximum" if value > hi else "below the minimum"
            notes.append(f"{f} = {value:.4g} is {side} of the training runs [{lo:.4g}, {hi:.4g}]")
    return notes


def warn_extrapolation(frame: pd.DataFrame, features: Sequence[str]) -> list[str]:
    """Per row, the out-of-range messages ('' if none); each non-empty one is also issued as an
    :class:`ExtrapolationWarning` naming the LLM and GPU."""
    notes = []
    for _, row in frame.iterrows():
        found = out_of_range(row, features)
        notes.append("; ".join(found))
        if found:
            where = f"{row.get('llm', '?')} on {row.get('gpu', '?')}"
            warnings.warn(f"extrapolating for {where}: " + "; ".join(found),
                          ExtrapolationWarning, stacklevel=3)  # fmt: skip
    return notes
