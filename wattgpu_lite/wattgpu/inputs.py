"""Which columns may be a model's input: only what public metadata gives (WattGPU §4).

An input is a column that :func:`~wattgpu_lite.wattgpu.features.feature_frame` builds from an
LLM's config, a GPU's spec sheet and the scenario — never a run's measured outcome (power, ITL,
throughput), which a user predicting a new GPU does not have. ``check_features`` turns a list of
names into the validated tuple the models and their caches use, so "drop a feature and re-score"
is one argument:

    wl.evaluate("itl", "logo", features=[f for f in ITL_FEATURES if f != "compute_latency_s"])
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.wattgpu.features import GPU_FIELDS, LLM_FIELDS

ENGINEERED = ("boost_ratio", "log_params_nominal_b", "bandwidth_latency_s", "compute_latency_s")
INPUTS: tuple[str, ...] = ("scenario", *LLM_FIELDS, *GPU_FIELDS, *ENGINEERED)


def check_features(target: str, features: Sequence[str]) -> tuple[str, ...]:
    """``features`` as a tuple, each one a public-metadata input, no repeats, at least one."""
    if isinstance(features, str):
        raise InvalidInputError(
            f"features must be a list of column names, not the string "
            f"{features!r}; write features=[{features!r}]"
        )
    names = tuple(features)
    if not names:
        raise InvalidInputError(f"features for {target} is empty: give at least one input")
    for name in names:
        if name not in INPUTS:
            close = difflib.get_close_matches(str(name), INPUTS, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InvalidInputError(
                f"feature {name!r} is not an input a user can give (spec sheet, config.json or "
                f"scenario){hint} Inputs: {', '.join(INPUTS)}"
            )
    if len(set(names)) != len(names):
        raise InvalidInputError(f"features lists a column twice: {sorted(names)}")
    return names
