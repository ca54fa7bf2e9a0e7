"""The runs table a model is fitted on (``wl.WattGPU().fit(runs)``, ``wl.HybridModel().fit(runs)``),
checked before any fit: a frame with the columns the fit reads, each of the type and in the range
the shipped table has.

    check_training_runs(wl.measurements(), "WattGPU().fit")   # the table, unchanged

Without it a missing column or a text column surfaced as a pandas KeyError or a NumPy TypeError,
a non-positive power as scikit-learn's "0 sample(s)", and a misspelt scenario was fitted on
silently (the hybrid read it as an offline run at its mean batch).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.errors import InvalidInputError, close_matches
from wattgpu_lite.runs.schema import SCENARIOS

# the columns a fit reads: the run's LLM, GPU and scenario, and the two measured targets
FIT_COLUMNS = ("llm", "gpu", "scenario", "power_w", "itl_s")
TARGETS = ("power_w", "itl_s")
TEXT = ("llm", "gpu", "scenario")


def check_training_runs(runs, who: str) -> pd.DataFrame:
    """``runs`` unchanged if ``who`` can fit on it, else InvalidInputError naming the column, the
    rows and the fix: a DataFrame with :data:`FIT_COLUMNS` (``dense``, where present, True or
    False), text names and scenarios of :data:`SCENARIOS`, positive finite targets, a row to fit."""
    fix = "pass wl.measurements() or rows of it (runs[runs['gpu'] == 'L4'])"
    if not isinstance(runs, pd.DataFrame):
        raise InvalidInputError(
            f"{who}: runs must be a DataFrame, got {type(runs).__name__}; {fix}"
        )
    missing = [c for c in FIT_COLUMNS if c not in runs.columns]
    if missing:
        raise InvalidInputError(f"{who}: runs lacks the column(s) {missing}; {fix}")
    if "dense" in runs.columns and not pd.api.types.is_bool_dtype(runs["dense"]):
        got = f"dtype {runs['dense'].dtype}"
        raise InvalidInputError(f"{who}: column 'dense' must be True or False, got {got}; {fix}")
    for col in TEXT:
        blank = runs[col].map(lambda v: not isinstance(v, str) or not v.strip())
        if blank.any():
            rows = list(runs.index[blank][:3])
            raise InvalidInputError(f"{who}: column {col!r} is not a name in rows {rows}; {fix}")
    unknown = sorted(set(runs["scenario"]) - set(SCENARIOS))
    if unknown:
        near = close_matches(unknown[0], SCENARIOS)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        known = f"a scenario is one of {', '.join(SCENARIOS)}"
        raise InvalidInputError(f"{who}: column 'scenario' holds {unknown[:3]}{hint}; {known}")
    for col in TARGETS:
        _check_target(runs, col, who)
    if runs.empty or ("dense" in runs.columns and not runs["dense"].any()):
        raise InvalidInputError(f"{who}: runs has no dense row to fit on; {fix}")
    return runs


def _check_target(runs: pd.DataFrame, col: str, who: str) -> None:
    """A measured column: numbers, each positive and finite (as the shipped table's)."""
    values = runs[col]
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        fix = f"convert it with pd.to_numeric(runs[{col!r}])"
        raise InvalidInputError(
            f"{who}: column {col!r} must hold numbers, got dtype {values.dtype}; {fix}"
        )
    bad = ~(np.isfinite(values.to_numpy(dtype=float)) & (values.to_numpy(dtype=float) > 0))
    if bad.any():
        rows = list(runs.index[bad][:3])
        problem = f"must be > 0 and finite; {int(bad.sum())} rows are not (rows {rows} ...)"
        raise InvalidInputError(f"{who}: column {col!r} {problem}; drop or fix those rows")
