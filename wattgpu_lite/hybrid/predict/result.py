"""What the vectorised path fills: one frozen record of arrays, one value per row, and a status.

:func:`~wattgpu_lite.hybrid.predict.steps.predict_arrays` runs the named steps and returns a
:class:`StepResult`; ``wl.predict``'s :class:`~wattgpu_lite.hybrid.predict.prediction.Prediction`
is one row of it and ``wl.predict_many``'s frame its :meth:`StepResult.columns`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

import numpy as np
import pandas as pd

from wattgpu_lite.energy import backbone
from wattgpu_lite.energy.uniques import unique_rows
from wattgpu_lite.hybrid.predict import bounds

QUANTITIES = ("power_w", "itl_s", "time_per_token_s", "energy_per_token_j")


class Status(str, Enum):
    """Why a row has an answer or not. The value is the text a frame's ``status`` column shows."""

    OK = "ok"
    SATURATED = "saturated"
    BATCH_ABOVE_KV = "batch above the sequences a replica runs"
    NO_FIT = "does not fit in memory"
    INVALID = "invalid input"

    def __str__(self) -> str:
        return self.value

    def message(
        self,
        llm: str,
        gpu: str,
        rate_qps: float,
        batch: float,
        *,
        max_batch: float,
        capacity_qps: float,
    ) -> str:
        """What is wrong and what to pass instead ("" for OK; an invalid row's own checks say)."""
        cap = int(max(max_batch, 0))
        if self is Status.SATURATED:
            return (
                f"{rate_qps:g} req/s is beyond what one {gpu} can serve with {llm}: its "
                f"capacity is about {capacity_qps:.3g} req/s ({cap} sequences in flight). "
                "Pass a lower rate_qps, or use more replicas (wl.rank_gpus plans them)."
            )
        if self is Status.NO_FIT:
            return (
                f"{llm} does not fit in 90 % of the {gpu}'s memory with a KV cache; "
                "pick a GPU with more memory (wl.rank_gpus lists them)"
            )
        if self is Status.BATCH_ABOVE_KV:  # the fewer of the KV cache's and the engine's limit
            return (
                f"batch {batch:g} is above the {cap} sequences one {gpu} replica runs at once "
                f"for {llm} at these token counts (the fewer of what its KV cache holds and the "
                f"engine's max_num_seqs); pass batch <= {cap}, or a larger max_num_seqs where "
                "the KV cache holds more"
            )
        return ""


def status_of(
    cap: np.ndarray, rate: np.ndarray, batch: np.ndarray, capacity_qps: np.ndarray
) -> np.ndarray:
    """A :class:`Status` per row: no steady state beyond the capacity (a rate at or above it, or
    a batch above the KV-cache's sequences), and nothing at all when the weights do not fit."""
    no_fit, above_kv, saturated = _NOT_OK_CODES  # each later one overrides: the first holds
    offline = np.isnan(rate)
    code = np.where(~offline & (rate >= capacity_qps), saturated, 0)
    code = np.where(offline & (batch > cap), above_kv, code)
    return _MEMBERS[np.where(cap < 1, no_fit, code)]


def status_ok(status: np.ndarray) -> np.ndarray:
    """Where ``status`` is OK (``status == Status.OK``, against an object, not a text, scalar)."""
    return status == _OK


_OK = np.array(Status.OK, dtype=object)
_MEMBERS = np.array(list(Status), dtype=object)  # indexing keeps the members themselves
_MEMBERS.flags.writeable = False
# the codes status_of selects, in its order of priority
_NOT_OK_CODES = [
    list(Status).index(s) for s in (Status.NO_FIT, Status.BATCH_ABOVE_KV, Status.SATURATED)
]


@dataclass(frozen=True)
class StepResult:
    """Every quantity of a prediction for many rows; rows whose status is not OK hold NaN in the
    predicted quantities (capacity, KV sequences, idle power and the TDP stay: they explain why).

    Power and energy are the whole replica's; ``_lo``/``_hi`` the interval at the asked level.
    """

    status: np.ndarray  # Status per row
    power_w: np.ndarray
    power_w_lo: np.ndarray
    power_w_hi: np.ndarray
    itl_s: np.ndarray  # per request, s per generated token
    itl_s_lo: np.ndarray
    itl_s_hi: np.ndarray
    time_per_token_s: np.ndarray  # 1 / throughput of the replica
    time_per_token_s_lo: np.ndarray
    time_per_token_s_hi: np.ndarray
    energy_per_token_j: np.ndarray  # power × time per token
    energy_per_token_j_lo: np.ndarray
    energy_per_token_j_hi: np.ndarray
    in_flight: np.ndarray  # mean sequences in flight
    busy_fraction: np.ndarray  # share of time with a request in flight
    capacity_qps: np.ndarray  # the highest rate one replica sustains
    max_batch: np.ndarray  # sequences the KV cache holds
    idle_power_w: np.ndarray  # the fitted idle estimate, W
    power_floor_w: np.ndarray  # the hard lower bound on power, W (energy.backbone.power_floor_w)
    replica_tdp_w: np.ndarray  # G · TDP, the power bound
    itl_floor_s: np.ndarray  # bytes / peak bandwidth and FLOPs / peak FLOP/s of one step
    backbone_itl_s: np.ndarray  # the physics alone, before correction and bounds
    backbone_power_w: np.ndarray
    basis: np.ndarray  # the interval's calibration basis per row (intervals.BASES)
    basis_code: np.ndarray  # the same as its index into intervals.BASES
    widening: np.ndarray  # log half-width added beyond the training range
    cell: np.ndarray  # the cross-source regime cell of the interval, -1 none (interval_steps)
    watched: dict[str, np.ndarray]  # the inputs whose training range widens the interval
    # filled for wl.explain, not frame columns (:data:`NOT_COLUMNS`)
    offline: np.ndarray  # batch mode (no rate), per row
    step_batch: np.ndarray  # sequences in the decode step a request sees (physics step)
    factor: dict[str, np.ndarray]  # exp(correction) per target, "power", "itl" (1: none)
    rows: backbone.Rows  # the physics' inputs per row (the resolve step's)
    constants: backbone.Constants  # the backbone's fitted constants

    def __len__(self) -> int:
        return len(self.status)

    def itl_interval_codes(self) -> np.ndarray:
        """Whose errors each row's ITL interval spreads, as codes into :data:`ITL_FROM`."""
        runs_or_others = np.where(self.cell >= 0, 2, 1)
        return np.where(np.isfinite(self.itl_s_lo), runs_or_others, 0).astype(np.int8)

    def columns(self) -> dict[str, np.ndarray]:
        """The frame columns of ``predict_many``: every field but :data:`NOT_COLUMNS`, the
        status as its text."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in NOT_COLUMNS}
        out["status"] = status_text(self.status)
        return out

    def decode_step(self, i: int) -> dict[str, Any]:
        """Row ``i``'s decode step taken apart, computed when asked (``wl.explain``): bytes and
        FLOPs per tensor group, the step-time terms [s] and the roofline
        (:func:`bounds.decode_parts`), and ``busy_power_w`` [W], the backbone's power while a
        request is in flight (at the batch L / busy fraction at a rate, at least 1)."""
        row, at = self.rows.take([i]), self.step_batch[i : i + 1]
        in_flight, busy = self.in_flight[i : i + 1], float(self.busy_fraction[i])
        busy_batch = (
            in_flight if self.offline[i] else np.maximum(in_flight / max(busy, 1e-300), 1.0)
        )
        busy_w = float(backbone.busy_power_w(row, busy_batch, self.constants)[0])
        return {**bounds.decode_parts(row, at, self.constants), "busy_power_w": busy_w}


def status_text(status: np.ndarray) -> np.ndarray:
    """Each row's :class:`Status` as its text (object array), one comparison per status."""
    out = np.empty(len(status), dtype=object)
    for s in Status:
        out[status == s] = s.value
    return out


def messages(
    status: np.ndarray,
    llm: np.ndarray,
    gpu: np.ndarray,
    rate_qps: np.ndarray,
    *,
    batch: np.ndarray,
    max_batch: np.ndarray,
    capacity_qps: np.ndarray,
) -> np.ndarray:
    """:meth:`Status.message` of each row (object array; names and numbers one per row), made
    once per distinct value of what its text names (:func:`_named`)."""
    group, first = unique_rows(
        _named(
            status, llm, gpu, rate_qps, batch=batch, max_batch=max_batch, capacity_qps=capacity_qps
        )
    )
    made = np.empty(len(first), dtype=object)
    named = (status, llm, gpu, rate_qps, batch, max_batch, capacity_qps)
    # each group's first row as Python values (a float formats as its numpy float does)
    rows = zip(*(np.asarray(v)[first].tolist() for v in named), strict=True)
    for k, (s, m, g, r, b, held, qps) in enumerate(rows):
        made[k] = Status(s).message(m, g, r, b, max_batch=float(held), capacity_qps=float(qps))
    return made[group]


def _named(status: np.ndarray, llm, gpu, rate_qps, *, batch, max_batch, capacity_qps) -> list:
    """Code columns of what :meth:`Status.message`'s text of each row reads (0 where it reads
    nothing): a row that does not fit names its LLM and GPU; a batch above the KV cache also the
    batch and the whole sequences held; a saturated row every number (OK: nothing)."""
    code = np.zeros(len(status), dtype=np.int64)
    for k, s in enumerate(Status):
        code[status == s] = k
    above, saturated = code == list(Status).index(Status.BATCH_ABOVE_KV), status == Status.SATURATED
    named = code != list(Status).index(Status.OK)
    held = np.maximum(np.asarray(max_batch, dtype=float), 0.0)
    columns = [
        (llm, named),
        (gpu, named),
        (batch, above),
        (np.floor(held), above),
        (rate_qps, saturated),
        (max_batch, saturated),
        (capacity_qps, saturated),
    ]
    return [code] + [pd.factorize(np.where(m, v, 0))[0] for v, m in columns]


ITL_FROM_RUNS, ITL_FROM_OTHERS = "the runs", "other harnesses"  # whose errors an interval spreads
ITL_FROM = ("", ITL_FROM_RUNS, ITL_FROM_OTHERS)  # StepResult.itl_interval_codes' names; "": none
NOT_COLUMNS = ("watched", "widening", "cell", "basis_code", "offline", "step_batch", "factor")
NOT_COLUMNS += ("rows", "constants")
# the result's numeric columns, for a frame none of whose rows reached the steps
NUMERIC_COLUMNS = tuple(
    f.name for f in fields(StepResult) if f.name not in ("status", "basis", *NOT_COLUMNS)
)


@dataclass(frozen=True)
class Backbone:
    """The physics at each row's load: the backbone's outputs (``S.at_batch`` / ``S.at_rate``),
    the replica's capacity, its idle draw (the fitted estimate) and its power floor (the hard lower
    bound, :func:`~wattgpu_lite.energy.backbone.power_floor_w`), and the decode step a request
    sees."""

    status: np.ndarray
    offline: np.ndarray  # batch mode (no rate)
    cap: np.ndarray  # sequences the KV cache holds (at least 1 for the arithmetic)
    max_batch: np.ndarray  # the same, as built (< 1: the weights do not fit)
    capacity_qps: np.ndarray
    idle_power_w: np.ndarray
    power_floor_w: np.ndarray
    physics: dict[str, np.ndarray]  # in_flight, itl_s, time_per_token_s, power_w, busy_fraction
    step_batch: np.ndarray  # sequences in the decode step a request sees
    floor_s: np.ndarray  # that step's floor (:func:`bounds.floor_step_s`)
    bytes_per_flop: np.ndarray  # and its bytes per FLOP (:func:`bounds.bytes_per_flop`)
