"""What ``wl.predict`` returns: a frozen, typed record with its inputs, intervals and notes.

    p = wl.predict("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", rate_qps=0.1)
    p.power_w, p.power_w_interval.lo, p.inputs.t_out, p.notes
    p.to_json()          # schema_version 1, kind "predict"; never NaN or Infinity
    wl.predict(..., region="FR").wall   # energy, CO2e and cost at the wall (selection.answers)

``to_json()`` is what ``predict --json`` prints (numbers at 6 significant figures,
:func:`wattgpu_lite.jsonio.rounded`); ``to_dict()`` keeps every digit.

In a notebook the record shows itself as a small table (``_repr_html_``).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from wattgpu_lite.hybrid.predict.result import QUANTITIES, StepResult
from wattgpu_lite.jsonio import dumps, rounded
from wattgpu_lite.runs.schema import scenario_for_rate

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Interval:
    """[lo, hi] at ``level``; ``basis`` names the held-out situation that calibrated it."""

    lo: float
    hi: float
    level: float
    basis: str

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo <= self.hi):
            raise ValueError(f"interval [{self.lo}, {self.hi}] is not a finite, ordered pair")


@dataclass(frozen=True)
class Inputs:
    """What the prediction was computed for (defaults filled in, so nothing is implicit)."""

    llm: str
    gpu: str
    t_in: int
    t_out: int
    rate_qps: float | None  # Poisson arrivals, requests/s; None in batch mode
    batch: float | None  # sequences decoded together; None at a rate
    level: float
    num_gpus: int = 1  # GPUs in one replica (tensor parallel); power and energy are the replica's
    weights: str = "bf16"  # the weight format served
    llm_architecture: str = ""  # the catalog architecture ``llm`` resolved to (= llm if no alias)
    tp: int = 1  # the layout (specs.layout.Parallel): tensor-parallel group size
    ep: int = 1  # expert group size (ep > tp: data-parallel attention)

    def __post_init__(self) -> None:
        if not self.llm_architecture:
            object.__setattr__(self, "llm_architecture", self.llm)


@dataclass(frozen=True)
class Prediction:
    """One (LLM, GPU, workload): mean power, per-request ITL, time per token (1/throughput) and
    GPU energy per generated token, each with an interval; the load the backbone worked out."""

    model: str  # "hybrid" (backbone + correction) or "physics" (backbone alone)
    inputs: Inputs
    power_w: float
    power_w_interval: Interval
    itl_s: float
    itl_s_interval: Interval
    time_per_token_s: float
    time_per_token_s_interval: Interval
    energy_per_token_j: float
    energy_per_token_j_interval: Interval
    in_flight: float  # mean sequences in flight
    busy_fraction: float  # share of time with a request in flight
    capacity_qps: float  # the highest rate this replica sustains
    max_batch: int  # sequences the KV cache holds
    idle_power_w: float
    scenario: str  # the nearest Watt Counts scenario (for reading beside the measurements)
    notes: tuple[str, ...] = ()
    # energy, CO2e and cost at the wall, with their inputs (PUE, grid, price, its currency and
    # region): filled by wl.predict (selection.answers); None from the predictor alone
    wall: Mapping[str, Any] | None = None
    # the kit's defaults the answer used: {key: {"value": ..., "source": ...}}
    defaults: Mapping[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = "predict"

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (nested for inputs and intervals), with ``schema_version`` and ``kind``."""
        body = asdict(self)
        return {
            "schema_version": SCHEMA_VERSION,
            "kind": self.kind,
            **body,
            "notes": list(self.notes),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text, exactly ``predict --json`` (6 significant figures); never NaN or Infinity."""
        return dumps(rounded(self.to_dict()), indent=indent)

    def rows(self) -> list[tuple[str, float, float, float]]:
        """(quantity, value, lo, hi) for the four predicted quantities."""
        return [
            (
                q,
                getattr(self, q),
                getattr(self, f"{q}_interval").lo,
                getattr(self, f"{q}_interval").hi,
            )
            for q in QUANTITIES
        ]

    def _repr_html_(self) -> str:
        i = self.inputs
        load = f"{i.rate_qps:g} req/s" if i.rate_qps is not None else f"batch {i.batch:g}"
        gpus = f"{i.num_gpus} × " if i.num_gpus > 1 else ""
        head = (
            f"<b>{html.escape(i.llm)}</b> ({i.weights}) on <b>{gpus}{html.escape(i.gpu)}</b>, {load}, "
            f"{i.t_in} in / {i.t_out} out tokens — {self.model}, "
            f"{self.power_w_interval.level:.0%} interval, basis "
            f"<i>{html.escape(self.power_w_interval.basis)}</i>"
        )
        body = "".join(
            f"<tr><td>{q}</td><td>{v:.4g}</td><td>{lo:.4g}</td><td>{hi:.4g}</td></tr>"
            for q, v, lo, hi in self.rows()
        )
        notes = "".join(f"<li>{html.escape(n)}</li>" for n in self.notes)
        return (
            f"<div>{head}<table><tr><th>quantity</th><th>value</th><th>lo</th><th>hi</th>"
            f"</tr>{body}</table>{'<ul>' + notes + '</ul>' if notes else ''}</div>"
        )


def _interval(out: StepResult, key: str, i: int, *, level: float, basis: str) -> Interval:
    return Interval(
        float(getattr(out, f"{key}_lo")[i]), float(getattr(out, f"{key}_hi")[i]), level, basis
    )


def prediction_of(out: StepResult, i: int, inputs: Inputs, notes: tuple[str, ...]) -> Prediction:
    """Row ``i`` of the steps' result (:mod:`~wattgpu_lite.hybrid.predict.result`) as a
    Prediction: "physics" when its basis is the backbone alone, else "hybrid"."""
    numbers = (*QUANTITIES, "in_flight", "busy_fraction", "capacity_qps", "idle_power_w")
    rate, basis = inputs.rate_qps, str(out.basis[i])
    at = {"level": inputs.level, "basis": basis}
    return Prediction(
        model="physics" if basis == "physics" else "hybrid",
        inputs=inputs,
        **{k: float(getattr(out, k)[i]) for k in numbers},
        **{f"{q}_interval": _interval(out, q, i, **at) for q in QUANTITIES},
        max_batch=int(out.max_batch[i]),
        scenario="offline" if rate is None else scenario_for_rate(rate),
        notes=notes,
    )
