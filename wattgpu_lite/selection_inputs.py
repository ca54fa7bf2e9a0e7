"""Checking and resolving the inputs of a GPU ranking: load, candidates, positive numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from .catalog import GPU, LLM, gpu, gpus, llm
from .errors import InvalidInputError, NoFeasibleGPUError
from .measurements import LAMBDA_QPS, MEASURED_GPUS, SCENARIOS
from .selection_data import SOURCES
from .wattcounts import LAMBDA_SPLIT_QPS


def positive(name: str, value, allow_zero: bool = False) -> float:
    """``value`` as a float, or InvalidInputError naming ``name`` if it is not > 0 (>= 0)."""
    ok = value is not None and math.isfinite(float(value))
    if not ok or float(value) < 0 or (float(value) == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise InvalidInputError(f"{name} must be a finite number {bound}, got {value!r}")
    return float(value)


def resolve_load(scenario: str | None, rate_qps: float | None) -> tuple[str, float]:
    """(scenario, λ in req/s; NaN offline) from exactly one of a scenario name or a rate.

    A rate picks the predictor's scenario by WattGPU's rule (< 0.2 req/s is server_low).
    """
    if (scenario is None) == (rate_qps is None):
        raise InvalidInputError("give exactly one of scenario (e.g. 'server_low') or rate_qps")
    if rate_qps is not None:
        rate = positive("rate_qps", rate_qps)
        return ("server_low" if rate < LAMBDA_SPLIT_QPS else "server_high"), rate
    if scenario not in SCENARIOS:
        raise InvalidInputError(f"unknown scenario {scenario!r}; use one of {SCENARIOS}")
    return scenario, LAMBDA_QPS.get(scenario, math.nan)


def candidate_gpus(candidates, source: str) -> list:
    """GPU objects; default: the 8 measured GPUs for 'measured'/'logo', the catalog otherwise."""
    if source not in SOURCES:
        raise InvalidInputError(f"unknown source {source!r}; use one of {SOURCES}")
    if candidates is None:
        catalog_wide = source in ("predicted", "hybrid")
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


def _is_file_ref(value) -> bool:
    return isinstance(value, Path) or (isinstance(value, str) and value.endswith(".json"))


def resolve_llm(value) -> LLM:
    """An LLM from an LLM, a catalog name, a config.json dict or a path to a config.json."""
    if isinstance(value, dict) or _is_file_ref(value):
        return LLM.from_hf_config(value)
    return llm(value)


def resolve_gpu(value) -> GPU:
    """A GPU from a GPU, a catalog name, a spec dict or a path to a spec JSON file."""
    if _is_file_ref(value):
        value = json.loads(Path(value).read_text())
    return GPU.from_spec(value) if isinstance(value, dict) else gpu(value)
