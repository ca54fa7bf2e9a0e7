"""The workload of a request, the named workloads of published traces, and the one default.

A request has ``t_in`` prompt tokens and ``t_out`` generated tokens. Named workloads
(data/workloads.csv, each row citing the trace or benchmark it summarises) give both at once:

    workloads()                      # the table: name, t_in, t_out, statistic, population, year, source
    workload("azure-conv-2023")      # -> Workload(t_in=1155, t_out=211, ...)
    request_tokens(None, 300, "azure-conv-2023")   # (1155, 300, its echo): a count given wins

The default is ``watt-counts``: the mean Watt Counts request (14.9 prompt and 179.8 generated
tokens over the 4,163 dense runs, rounded to 15 and 180), so a prediction without token counts
stays inside what the models were trained on. It stays the default until the calibration covers
contexts of thousands of tokens (the serving traces' requests carry 1,000-2,000 prompt tokens);
every result echoes the counts it used and the workload they came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv, restore_hint
from wattgpu_lite.errors import DataFileError, UnknownNameError

DEFAULT_T_IN = 15  # tokens: Watt Counts prompts are short SQuAD questions (mean 14.9)
DEFAULT_T_OUT = 180  # tokens: mean generated tokens per Watt Counts request (179.8; cap 256)
OFFLINE_PROMPTS = 1000.0  # Watt Counts' offline scenario submits 1,000 prompts at once
DEFAULT_WORKLOAD = "watt-counts"  # data/workloads.csv's row of DEFAULT_T_IN, DEFAULT_T_OUT
WORKLOADS_FILE = "workloads.csv"
WORKLOAD_COLUMNS = (
    "name",
    "t_in",
    "t_out",
    "statistic",
    "t_in_reported",
    "t_out_reported",
    "requests",
    "population",
    "year",
    "source",
)
STATISTICS = ("mean", "median")
BUILT_IN, GIVEN = "built-in", "given"  # a default's source, as every result echoes it


class UnknownWorkloadError(UnknownNameError):
    kind = "workload"
    hint = (
        "See wattgpu_lite.specs.workload.workloads() (data/workloads.csv) for the named "
        "workloads, or pass t_in= and t_out= (--t-in, --t-out) yourself."
    )


@dataclass(frozen=True)
class Workload:
    """One named request workload: ``t_in`` prompt and ``t_out`` generated tokens per request
    (the ``statistic`` of the population, rounded to whole tokens), and where it comes from."""

    name: str
    t_in: int
    t_out: int
    statistic: str
    population: str
    year: int
    source: str


@cache
def _table() -> pd.DataFrame:
    """data/workloads.csv checked: its columns, one row per name, whole positive token counts
    equal to the reported statistic rounded, a known statistic; DataFileError naming the row."""
    table = read_csv(data_dir() / WORKLOADS_FILE, keep_default_na=False)
    fix = restore_hint(WORKLOADS_FILE)
    if tuple(table.columns) != WORKLOAD_COLUMNS:
        raise DataFileError(
            f"{WORKLOADS_FILE}: columns {list(table.columns)}, expected "
            f"{list(WORKLOAD_COLUMNS)}; {fix}"
        )
    if not table["name"].is_unique or (table["source"].str.strip() == "").any():
        raise DataFileError(f"{WORKLOADS_FILE}: a name twice or a row without source; {fix}")
    for row in table.itertuples():
        counts = (row.t_in, row.t_out)
        ok = all(isinstance(c, int | np.integer) and c >= 1 for c in counts)
        rounded = (round(row.t_in_reported), round(row.t_out_reported)) == counts
        if not ok or not rounded or row.statistic not in STATISTICS:
            raise DataFileError(
                f"{WORKLOADS_FILE}: row {row.name!r}: t_in, t_out must be whole "
                f"counts >= 1, the reported {row.statistic} rounded, and the "
                f"statistic one of {STATISTICS}; {fix}"
            )
    return table


def workloads() -> pd.DataFrame:
    """The named workloads of data/workloads.csv, one row each (a copy)."""
    return _table().copy()


def workload(name: str) -> Workload:
    """The named workload (case and surrounding spaces ignored); UnknownWorkloadError with the
    close matches for a name the table lacks."""
    hit = _by_key().get(str(name).strip().lower())
    if hit is None:
        raise UnknownWorkloadError(str(name), _table()["name"])
    return hit


@cache
def _by_key() -> dict[str, Workload]:
    """Every row of :func:`_table` as a :class:`Workload`, by its name in lower case (the first
    row of a name wins), built once."""
    out: dict[str, Workload] = {}
    for _, row in _table().iterrows():
        out.setdefault(
            str(row["name"]).lower(),
            Workload(
                str(row["name"]),
                int(row["t_in"]),
                int(row["t_out"]),
                str(row["statistic"]),
                population=str(row["population"]),
                year=int(row["year"]),
                source=str(row["source"]),
            ),
        )
    return out


def request_tokens(
    t_in: Any, t_out: Any, workload_name: str | None = None
) -> tuple[Any, Any, dict[str, dict[str, Any]]]:
    """(t_in, t_out, echo): a count given (not None) is kept as given, a missing one is the
    workload's (``workload_name``, default :data:`DEFAULT_WORKLOAD`). ``echo`` is each count's
    ``{"value", "source"}`` — "given", "built-in" (the default workload's) or "workload NAME" —
    and, when the workload gave a count, ``"workload": {"value": name, "source", "reference"}``
    (the row's citation)."""
    chosen = workload(DEFAULT_WORKLOAD if workload_name is None else workload_name)
    default = workload_name is None
    echo: dict[str, dict[str, Any]] = {}
    counts = []
    for key, given, own in (("t_in", t_in, chosen.t_in), ("t_out", t_out, chosen.t_out)):
        value = own if given is None else given
        source = GIVEN if given is not None else BUILT_IN if default else f"workload {chosen.name}"
        echo[key] = {"value": value, "source": source}
        counts.append(value)
    if t_in is None or t_out is None:
        echo["workload"] = {
            "value": chosen.name,
            "source": BUILT_IN if default else GIVEN,
            "reference": chosen.source,
        }
    return counts[0], counts[1], echo


def server_time_per_token_s(rate_qps, t_out):
    """GPU time charged per generated token at a Poisson rate λ [req/s]: 1 / (λ · T_out) [s].

    Every arriving request's T_out tokens are produced, so throughput = λ · T_out; the GPU is
    held, busy or idle, between requests, so energy per token = P̄ · 1 / (λ · T_out).
    """
    return 1.0 / (np.asarray(rate_qps, dtype=float) * np.asarray(t_out, dtype=float))
