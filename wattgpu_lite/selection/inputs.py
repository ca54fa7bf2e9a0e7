"""Checking and resolving the inputs of a GPU ranking: load, candidates, positive numbers.

The candidates by default are today's GPUs (data/current_gpus.csv) for the hybrid source and the
8 measured GPUs for the Watt Counts sources; ``"measured"`` and ``"all"`` name the 8 and the
catalog."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.datafiles import data_dir, read_csv, restore_hint
from wattgpu_lite.errors import DataFileError, InvalidInputError, NoFeasibleGPUError
from wattgpu_lite.hybrid.predict.chain import resolve_load
from wattgpu_lite.runs import measurements
from wattgpu_lite.runs.measurements import MEASURED_GPUS
from wattgpu_lite.runs.schema import LAMBDA_QPS, scenario_for_rate
from wattgpu_lite.selection.sources import SOURCES
from wattgpu_lite.specs.catalog import catalog_gpus, gpu, gpus
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.layout import MAX_GPUS
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm


def runs_tokens(llm) -> tuple[int, int]:
    """(prompt, generated) tokens per request, the mean over the LLM's Watt Counts runs."""
    runs = measurements.load()
    mine = runs[runs["llm"] == resolve_llm(llm).name]
    if mine.empty:
        raise ValueError(f"no Watt Counts run of {resolve_llm(llm).name!r}")
    return round(mine["prompt_tokens"].mean()), round(mine["generated_tokens"].mean())


def scenario_load(scenario: str | None, rate_qps: float | None) -> tuple[str, float]:
    """(scenario, λ in req/s; NaN offline) for the Watt Counts sources, from exactly one of a
    scenario name or a rate, through the kit's one load resolver
    (:func:`wattgpu_lite.energy.request.resolve_load`, no batch). A rate picks the
    scenario nearest in log λ (:func:`runs.schema.scenario_for_rate`), whose measured power
    stands for it: below the runs' highest rate (server_high's), never above it, where the power
    was never measured and one GPU may not serve the load at all (InvalidInputError)."""
    rate, _, _ = resolve_load(scenario, rate_qps, None)
    top = LAMBDA_QPS["server_high"]
    if scenario is None and rate > top:
        raise InvalidInputError(
            f"rate_qps={rate:g}: the Watt Counts sources know the power at the runs' rates, up "
            f"to {top:g} req/s (server_high); above it the power was never measured and one "
            "GPU may not serve the load; use source='hybrid' (it plans the replicas a rate "
            f"needs), or a rate of at most {top:g} req/s"
        )
    return (scenario_for_rate(rate) if scenario is None else scenario), rate


def _number(text: str):
    """A piece of "1,2,4" as an int, else a float, else the text itself (for the check to name)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def check_gpu_counts(gpu_counts) -> tuple[int, ...]:
    """The GPUs per replica a ranking tries, sorted, each a whole number in [1, 64]: from a
    sequence, one number, or a comma-separated text ("1,2,4", as ``--gpu-counts`` takes it)."""
    if isinstance(gpu_counts, str):
        values = [_number(p.strip()) for p in gpu_counts.split(",") if p.strip()]
    elif checks.is_real(gpu_counts):
        values = [gpu_counts]
    else:
        try:
            values = list(gpu_counts) if gpu_counts is not None else []
        except TypeError:
            raise InvalidInputError(
                f"gpu_counts must be GPUs per replica, e.g. (1, 2, 4), got {gpu_counts!r}"
            ) from None
    if not values:
        raise InvalidInputError(
            "gpu_counts is empty: give the GPUs per replica to try, e.g. (1, 2)"
        )
    fix = (
        f"pass gpu_counts as whole numbers of GPUs per replica from 1 to {MAX_GPUS}, e.g. "
        "(1, 2, 4) (--gpu-counts 1,2,4)"
    )
    return tuple(
        sorted({checks.check_count("gpu_counts", v, 1, MAX_GPUS, fix=fix) for v in values})
    )


def _one_candidate(candidates) -> bool:
    """A single GPU given where a list is expected: a name or path, a spec dict, a GPU."""
    return isinstance(candidates, str | dict | GPU) or hasattr(candidates, "__fspath__")


CURRENT_FILE = "current_gpus.csv"  # today's GPUs, one reason and source a row (data/SOURCES.md)
MEASURED, ALL_GPUS = "measured", "all"  # candidates= words: the 8 measured GPUs, the catalog
#: the GPUs of the Watt Counts runs: the only ones whose predictions are checked against
#: measurements of their own (held-out errors in ``evaluate``), the only ones every source ranks
MEASURED_CANDIDATES: tuple[str, ...] = MEASURED_GPUS
WATT_COUNTS_SOURCES = ("measured", "paper", "logo")  # they answer for the Watt Counts GPUs


def current_gpus() -> pd.DataFrame:
    """data/current_gpus.csv: the GPUs people rent or buy in 2026, the default candidates of
    ``rank_gpus`` (hybrid source) and the dashboard: ``gpu`` (a catalog name), ``reason`` and
    ``source``, with ``measured`` (a Watt Counts GPU). DataFileError for a missing column, an
    empty cell, a GPU twice or a name the catalog lacks."""
    table = read_csv(data_dir() / CURRENT_FILE, keep_default_na=False)
    fix = restore_hint(CURRENT_FILE)
    for column in ("gpu", "reason", "source"):
        if column not in table or (table[column].str.strip() == "").any():
            raise DataFileError(
                f"{CURRENT_FILE}: column {column!r} is missing or has an empty cell; {fix}"
            )
    if not table["gpu"].is_unique:
        raise DataFileError(f"{CURRENT_FILE}: a GPU is listed twice; {fix}")
    unknown = sorted(set(table["gpu"]) - set(gpus()["name"]))
    if unknown:
        raise DataFileError(f"{CURRENT_FILE}: {unknown} not in data/gpus.csv; {fix}")
    return table.assign(measured=[is_measured(g) for g in table["gpu"]])


def is_measured(gpu_name: str) -> bool:
    """Whether ``gpu_name`` is one of the 8 GPUs of the Watt Counts runs."""
    return gpu_name in MEASURED_CANDIDATES


def default_candidates(source: str) -> tuple[str, ...]:
    """The GPUs a ranking tries when none are named: today's (:func:`current_gpus`) for the
    hybrid, the 8 measured ones for the Watt Counts sources, which answer for those only."""
    if source in WATT_COUNTS_SOURCES:
        return MEASURED_CANDIDATES
    return tuple(current_gpus()["gpu"])


def candidate_gpus(candidates, source: str) -> list:
    """GPU objects; default (None): :func:`default_candidates`; ``"measured"``: the 8 measured
    GPUs; ``"all"``: the whole catalog. One GPU (``"L4"``, a spec dict, a GPU) is a list of
    one, not letters or keys."""
    if source not in SOURCES:
        raise InvalidInputError(f"unknown source {source!r}; use one of {SOURCES}")
    if candidates is None:
        return [gpu(n) for n in default_candidates(source)]
    word = candidates.strip().lower() if isinstance(candidates, str) else None
    if word == ALL_GPUS:
        return list(catalog_gpus())
    if word == MEASURED:
        return [gpu(n) for n in MEASURED_CANDIDATES]
    if _one_candidate(candidates):
        candidates = [candidates]
    if not isinstance(candidates, Iterable):  # a number, a bool: no GPU names
        raise InvalidInputError(
            f"candidates must be GPUs, got {checks.shown(candidates)} "
            f"({type(candidates).__name__}); pass e.g. candidates=['L4', 'H100 NVL'], one GPU "
            "('L4'), 'measured', 'all', or None for today's GPUs"
        )
    named: dict[str, GPU] = {}
    for device in (resolve_gpu(c) for c in candidates):  # each name once (the same GPU twice)
        if named.setdefault(device.name, device) != device:  # one would be dropped
            raise InvalidInputError(
                f"candidates hold two different GPUs named {device.name!r}; give each spec a "
                f"name of its own (name), e.g. {device.name + ' (2)'!r}"
            )
    found = list(named.values())
    if not found:
        raise InvalidInputError(
            "candidates is empty: give at least one GPU, None for today's "
            "GPUs, 'measured' for the 8 measured ones or 'all' for the "
            "catalog"
        )
    return found


def no_fit_error(llm_name: str, table: pd.DataFrame) -> NoFeasibleGPUError:
    reasons = "; ".join(f"{g}: {r}" for g, r in table[["gpu", "why_not"]].itertuples(index=False))
    return NoFeasibleGPUError(
        f"{llm_name} fits no candidate GPU ({reasons}). "
        "Try GPUs with more memory, a smaller model, or a shorter context_tokens."
    )
