"""Checking and resolving the inputs of a GPU ranking: load, candidates, positive numbers."""

from __future__ import annotations

import math

import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.errors import InvalidInputError, NoFeasibleGPUError
from wattgpu_lite.runs.measurements import LAMBDA_QPS, MEASURED_GPUS, SCENARIOS
from wattgpu_lite.runs.schema import scenario_for_rate
from wattgpu_lite.selection.sources import SOURCES
from wattgpu_lite.specs.catalog import gpu, gpus
from wattgpu_lite.specs.resolve import resolve_gpu


def positive(name: str, value, allow_zero: bool = False) -> float:
    """``value`` as a float, or InvalidInputError naming ``name`` if it is not > 0 (>= 0)."""
    ok = value is not None and math.isfinite(float(value))
    if not ok or float(value) < 0 or (float(value) == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise InvalidInputError(f"{name} must be a finite number {bound}, got {value!r}")
    return float(value)


def resolve_load(scenario: str | None, rate_qps: float | None) -> tuple[str, float]:
    """(scenario, λ in req/s; NaN offline) from exactly one of a scenario name or a rate.

    A rate picks the scenario nearest in log λ (:func:`runs.schema.scenario_for_rate`).
    """
    if (scenario is None) == (rate_qps is None):
        raise InvalidInputError("give exactly one of scenario (e.g. 'server_low') or rate_qps")
    if rate_qps is not None:
        rate = checks.check_rate_qps(rate_qps)
        return scenario_for_rate(rate), rate
    if scenario not in SCENARIOS:
        raise InvalidInputError(f"unknown scenario {scenario!r}; use one of {SCENARIOS}")
    return scenario, LAMBDA_QPS.get(scenario, math.nan)


def candidate_gpus(candidates, source: str) -> list:
    """GPU objects; default: the 8 measured GPUs for 'measured'/'logo', the catalog otherwise."""
    if source not in SOURCES:
        raise InvalidInputError(f"unknown source {source!r}; use one of {SOURCES}")
    if candidates is None:
        catalog_wide = source in ("paper", "hybrid")
        names = list(gpus()["name"]) if catalog_wide else list(MEASURED_GPUS)
        return [gpu(n) for n in names]
    found = list({d.name: d for d in (resolve_gpu(c) for c in candidates)}.values())
    if not found:
        raise InvalidInputError("candidates is empty: give at least one GPU, or None for all")
    return found


def no_fit_error(llm_name: str, table: pd.DataFrame) -> NoFeasibleGPUError:
    reasons = "; ".join(f"{g}: {r}" for g, r in table[["gpu", "why_not"]].itertuples(index=False))
    return NoFeasibleGPUError(
        f"{llm_name} fits no candidate GPU ({reasons}). "
        "Try GPUs with more memory, a smaller model, or a shorter context_tokens."
    )
