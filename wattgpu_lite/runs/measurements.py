"""The Watt Counts runs: one row per measured run of an LLM on a GPU, validated on every load.

    import wattgpu_lite as wl
    runs = wl.measurements()                  # the runs table (same as load())
    dense = wl.measurements(dense_only=True)  # what WattGPU trains and evaluates on
    exact = wl.measurements.download_upstream()   # the paper's exact server ITL (needs network)

The shipped table (data/watt_counts_runs.csv) is built by data/scripts/build_runs.py; its server
ITL is mean e2e latency / mean generated tokens, which includes the prefill of the ~15-token
prompt. ``download_upstream`` rebuilds the same table from the upstream file with the paper's
per-request ITL. Provenance, quirks and dropped rows: data/SOURCES.md.

``wl.measurements`` is :data:`measurements`, a plain callable object: calling it is :func:`load`, and
it carries this module's names (``wl.measurements.download_upstream()``, ``.LAMBDA_QPS``, ...).
"""

from __future__ import annotations

from pathlib import Path

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
    DATA_SHA256,
    POSITIVE,
    data_path,
    load,
    validate,
)
from wattgpu_lite.runs.upstream import download_upstream, parse_upstream


class Measurements:
    """``wl.measurements``: call it for the validated runs table (:func:`load`, same arguments);
    read this module's constants and functions on it. A plain object instead of a callable
    module: nothing swaps a module's class, and an IDE sees every name."""

    COLUMNS, DATA_SHA256, ITL_OFFLINE, LAMBDA_QPS = COLUMNS, DATA_SHA256, ITL_OFFLINE, LAMBDA_QPS
    MEASURED_GPUS, POSITIVE, SCENARIOS, SMI_TO_CATALOG = (
        MEASURED_GPUS,
        POSITIVE,
        SCENARIOS,
        SMI_TO_CATALOG,
    )
    load, download_upstream, parse_upstream = (
        staticmethod(load),
        staticmethod(download_upstream),
        staticmethod(parse_upstream),
    )
    validate, scenario_group, data_path = (
        staticmethod(validate),
        staticmethod(scenario_group),
        staticmethod(data_path),
    )

    @property
    def DATA_PATH(self) -> Path:  # noqa: N802  (the module's constant, read lazily)
        """Where the shipped runs table is (:func:`data_path`)."""
        return data_path()

    def __call__(
        self,
        dense_only: bool = False,
        path: str | Path | None = None,
        sha256: str | None = DATA_SHA256,
    ) -> pd.DataFrame:
        return load(dense_only=dense_only, path=path, sha256=sha256)

    def __repr__(self) -> str:
        return "wl.measurements: the Watt Counts runs; call it for the table (wl.measurements())"


measurements = Measurements()


def __getattr__(name: str):
    """``DATA_PATH``, computed when read (:func:`data_path`), so importing this module reads no
    file."""
    if name == "DATA_PATH":
        return data_path()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
