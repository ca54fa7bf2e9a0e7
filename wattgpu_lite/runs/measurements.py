"""The Watt Counts runs: one row per measured run of an LLM on a GPU, validated on every load.

    import wattgpu_lite as wl
    runs = wl.measurements()                  # the module itself is callable (same as load())
    dense = wl.measurements(dense_only=True)  # what WattGPU trains and evaluates on
    exact = wl.measurements.download_upstream()   # the paper's exact server ITL (needs network)

The shipped table (data/watt_counts_runs.csv) is built by data/scripts/build_runs.py; its server
ITL is mean e2e latency / mean generated tokens, which includes the prefill of the ~15-token
prompt. ``download_upstream`` rebuilds the same table from the upstream file with the paper's
per-request ITL. Provenance, quirks and dropped rows: data/SOURCES.md.
"""

from __future__ import annotations

import sys
import types

import pandas as pd

from wattgpu_lite.runs.schema import (
    COLUMNS,
    ITL_OFFLINE,
    LAMBDA_QPS,
    MEASURED_GPUS,
    SCENARIOS,
    SMI_TO_CATALOG,
    scenario_group,
)
from wattgpu_lite.runs.table import (
    DATA_PATH,
    DATA_SHA256,
    POSITIVE,
    check_columns,
    check_ranges,
    check_sha256,
    load,
    sha256_of,
    validate,
)
from wattgpu_lite.runs.upstream import download_upstream, parse_upstream

__all__ = [
    "COLUMNS", "DATA_PATH", "DATA_SHA256", "ITL_OFFLINE", "LAMBDA_QPS", "MEASURED_GPUS", "POSITIVE",
    "SCENARIOS", "SMI_TO_CATALOG", "check_columns", "check_ranges", "check_sha256",
    "download_upstream", "load", "parse_upstream", "scenario_group", "sha256_of", "validate",
]  # fmt: skip


class _CallableModule(types.ModuleType):
    """This module, callable: ``wl.measurements()`` is ``wl.measurements.load()``.

    DESIGN.md promises both ``wl.measurements()`` (the table) and
    ``wl.measurements.download_upstream()`` (a function of the same name space). A module cannot
    be called, so we swap this module's class for a ModuleType subclass with ``__call__``; every
    attribute (and ``import wattgpu_lite.runs.measurements``) keeps working as before.
    """

    def __call__(self, *args: object, **kwargs: object) -> pd.DataFrame:
        return load(*args, **kwargs)  # type: ignore[arg-type]


sys.modules[__name__].__class__ = _CallableModule
