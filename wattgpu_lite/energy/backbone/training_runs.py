"""The Watt Counts runs as the backbone sees them: the designed workload of each run, never its outcome.

A run is described as a user would describe it before running it: the LLM, the GPU, Watt Counts'
prompts (the kit's default request, ``specs.workload``: 15 prompt and 180 generated tokens), and the
load — 1,000 prompts at once (offline) or Poisson arrivals at 0.017 / 0.33 req/s. The measured
request count, token counts and throughput of a run are targets or nothing, never inputs.

Targets, in the paper's units: ``power_w`` (mean power), ``itl_s`` (offline: 1/throughput; server:
the per-request inter-token latency).

The GPU of a run is the board that was measured, described by its datasheet: ``data/measured_boards.csv``
maps each measured name to the catalog row the hybrid trains and evaluates it with, with the evidence.
Seven map to themselves; the Watt Counts "H200 NVL" was an H200 SXM (700 W, 989 TFLOPS dense FP16,
4.8 TB/s), so the hybrid describes it by the ``H200 SXM`` row. The measured name stays the run's
group label, and the catalog's "H200 NVL" row stays as WattGPU carries it (the paper's features).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.energy import backbone
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.runs import measurements
from wattgpu_lite.runs.schema import LAMBDA_QPS
from wattgpu_lite.specs.catalog import GPU, LLM, gpu, llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT, OFFLINE_PROMPTS

BOARDS = "measured_boards.csv"
TARGETS = ("power", "itl")


@dataclass(frozen=True)
class Loads:
    """Per-row load: a batch (offline, ``rate`` NaN) or a Poisson rate (``batch`` NaN), and the
    KV capacity in sequences."""

    rate_qps: np.ndarray
    batch: np.ndarray
    cap: np.ndarray

    @property
    def offline(self) -> np.ndarray:
        return np.isnan(self.rate_qps)

    def take(self, mask: np.ndarray) -> Loads:
        return Loads(self.rate_qps[mask], self.batch[mask], self.cap[mask])


@dataclass(frozen=True)
class TrainingSet:
    """Backbone inputs, loads, targets and group labels of a set of runs."""

    frame: pd.DataFrame  # llm, gpu, scenario (+ the measured targets)
    rows: backbone.Rows
    loads: Loads
    llms: tuple[LLM, ...]  # the LLM and GPU objects of each row
    gpus: tuple[GPU, ...]

    def take(self, mask: np.ndarray) -> TrainingSet:
        mask = np.asarray(mask, dtype=bool)
        pick = np.nonzero(mask)[0]
        return TrainingSet(
            self.frame[mask].reset_index(drop=True),
            self.rows.take(mask),
            self.loads.take(mask),
            tuple(self.llms[i] for i in pick),
            gpus=tuple(self.gpus[i] for i in pick),
        )

    def target(self, name: str) -> np.ndarray:
        """Measured ``power_w`` or ``itl_s`` (paper units)."""
        return self.frame["power_w" if name == "power" else "itl_s"].to_numpy(dtype=float)


def designed_loads(scenarios: pd.Series, cap: np.ndarray) -> Loads:
    """The load each Watt Counts scenario was designed with (rate, or the offline mean batch)."""
    rate = scenarios.map(LAMBDA_QPS).to_numpy(dtype=float)
    batch = np.where(np.isnan(rate), row_arrays.offline_in_flight(cap, OFFLINE_PROMPTS), np.nan)
    return Loads(rate, batch, cap)


@cache
def measured_boards() -> dict[str, str]:
    """Measured GPU name -> the catalog row that describes the board (``data/measured_boards.csv``)."""
    table = read_csv(data_dir() / BOARDS, what="measured-board map")
    return dict(zip(table["measured_gpu"], table["hybrid_spec"], strict=True))


def board(measured: str) -> GPU:
    """The spec row the hybrid uses for a measured GPU (itself unless the map says otherwise)."""
    return gpu(measured_boards().get(measured, measured))


def from_runs(runs: pd.DataFrame) -> TrainingSet:
    """The training set of a runs table (dense rows only); each GPU by its board's spec row."""
    runs = runs[runs["dense"]].reset_index(drop=True) if "dense" in runs else runs
    models = [llm(n) for n in runs["llm"]]
    devices = [board(n) for n in runs["gpu"]]
    rows, cap = row_arrays.build(models, devices, float(DEFAULT_T_IN), float(DEFAULT_T_OUT))
    keep = ["llm", "gpu", "scenario", "power_w", "itl_s"]
    return TrainingSet(
        runs[keep].copy(),
        rows,
        designed_loads(runs["scenario"], cap),
        tuple(models),
        gpus=tuple(devices),
    )


@cache
def watt_counts() -> TrainingSet:
    """The training set of every dense Watt Counts run (cached)."""
    return from_runs(measurements.load(dense_only=True))


def physics(ts: TrainingSet, c: backbone.Constants) -> dict[str, np.ndarray]:
    """Backbone outputs for every row (batch rows and rate rows computed apart, then merged)."""
    off = ts.loads.offline
    parts = {}
    if off.any():
        parts["off"] = backbone.at_batch(ts.rows.take(off), ts.loads.batch[off], c)
    if (~off).any():
        on = ts.loads.take(~off)
        parts["on"] = backbone.at_rate(ts.rows.take(~off), on.rate_qps, on.cap, c)
    out = {}
    for key in next(iter(parts.values())):
        values = np.empty(len(off))
        for name, mask in (("off", off), ("on", ~off)):
            if name in parts:
                values[mask] = parts[name][key]
        out[key] = values
    return out


def paper_units(out: dict[str, np.ndarray], offline: np.ndarray) -> dict[str, np.ndarray]:
    """Backbone outputs in the targets' units: power_w; itl_s = 1/throughput offline, per-request
    ITL at a rate (what Watt Counts reports)."""
    itl = np.where(offline, out["time_per_token_s"], out["itl_s"])
    return {"power": out["power_w"], "itl": itl}
