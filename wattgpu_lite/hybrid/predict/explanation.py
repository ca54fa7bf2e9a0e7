"""What ``wl.explain`` returns: the parts of one prediction, as typed records and a table.

:class:`Explanation` holds the :class:`Prediction` of ``wl.predict`` and the :class:`Part` rows
(:func:`parts_of` puts them in reading order, from its other fields); :class:`Correction` says,
per target, what the learned part did and which bound held it
(:mod:`wattgpu_lite.hybrid.predict.explain`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import pandas as pd

from wattgpu_lite.hybrid.predict.interval_steps import CROSS_SOURCE_NOTE
from wattgpu_lite.hybrid.predict.prediction import SCHEMA_VERSION, Inputs, Interval, Prediction
from wattgpu_lite.jsonio import dumps, rounded

# the step-time terms that add up to the backbone step time, and what binds when each is largest
BINDINGS = {
    "memory": "bandwidth",
    "compute": "compute",
    "power limit": "power limit",
    "layout": "communication",
    "prompt": "prompt processing",
    "fixed": "fixed cost",
}
REL = 1e-9  # "equal" for a bound: the final value sits on it within this share


@dataclass(frozen=True)
class Part:
    """One row of the explanation: ``group`` (what kind of part), ``name``, ``value`` in ``unit``;
    ``in_sum``: the step-time terms whose values add up to the backbone step time."""

    group: str
    name: str
    value: float
    unit: str
    note: str = ""
    in_sum: bool = False
    lo: float | None = None  # the interval's ends, for the predicted quantities
    hi: float | None = None


@dataclass(frozen=True)
class Correction:
    """The learned correction of one target ("power" or "itl"): backbone × learned factor, held
    inside the bounds. ``factor`` = final / backbone (equals ``learned`` unless a bound binds)."""

    target: str
    backbone: float
    learned: float  # exp(the correction model's output); 1 when the correction does not apply
    final: float
    factor: float  # final / backbone
    applies: bool
    bound: str  # "" or the bound that holds the final value: "floor", "idle power", "TDP"
    why: str


@dataclass(frozen=True)
class Explanation:
    """A prediction (``prediction``, exactly what ``wl.predict`` returns) and its parts."""

    prediction: Prediction
    step_batch: float  # sequences in the decode step a request sees
    bytes_per_step: dict[str, float]  # weights read, KV reads, KV writes (B per step)
    flops_per_step: dict[str, float]  # matrix, attention (FLOP per step)
    step_terms_s: dict[str, float]  # memory, compute, power limit, layout, prompt, fixed
    roofline: str  # which of memory / compute / power limit sets the step's roofline
    binding: str  # the largest term of the sum, in words (BINDINGS)
    backbone_step_s: float  # = the backbone ITL
    floor_s: float
    idle_power_w: float
    busy_power_w: float  # backbone power while a request is in flight
    busy_fraction: float
    backbone_power_w: float
    replica_tdp_w: float
    corrections: dict[str, Correction]
    basis: str
    widening: float
    parts: tuple[Part, ...] = ()  # none given: filled from the fields above (:func:`parts_of`)
    kind: ClassVar[str] = "explain"

    def __post_init__(self) -> None:
        if not self.parts:
            object.__setattr__(self, "parts", parts_of(self))

    @property
    def inputs(self) -> Inputs:
        return self.prediction.inputs

    def table(self) -> pd.DataFrame:
        """One row per part: group, part, value, unit, in_sum, note."""
        return pd.DataFrame([_row(p) for p in self.parts])

    @property
    def wall(self) -> Mapping[str, Any] | None:
        """The prediction's energy, CO2e and cost at the wall (``wl.explain`` fills it)."""
        return self.prediction.wall

    @property
    def defaults(self) -> Mapping[str, Any]:
        """The kit's defaults the prediction used, each with its source."""
        return self.prediction.defaults

    def to_dict(self) -> dict[str, Any]:
        """Plain dict with ``schema_version`` and ``kind``: the prediction, the summary fields,
        ``wall`` and ``defaults``, and the parts under ``rows`` (one per part, as the table)."""
        body = {k: v for k, v in asdict(self).items() if k not in ("prediction", "parts")}
        return {
            "schema_version": SCHEMA_VERSION,
            "kind": self.kind,
            "prediction": self.prediction.to_dict(),
            **body,
            "wall": self.wall,
            "defaults": dict(self.defaults),
            "rows": [_row(p) for p in self.parts],
        }

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text, exactly ``explain --json`` (6 significant figures); never NaN."""
        return dumps(rounded(self.to_dict()), indent=indent)

    def _repr_html_(self) -> str:
        return self.table().to_html(index=False)


def _row(part: Part) -> dict[str, Any]:
    """A part as a table row: ``part`` (its name), then the other fields."""
    row = asdict(part)
    return {"group": row.pop("group"), "part": row.pop("name"), **row}


def parts_of(x: Explanation) -> tuple[Part, ...]:
    """The rows of the table of ``x`` (its ``parts`` aside), in reading order."""
    p, i = x.prediction, x.prediction.inputs
    load_note = "offline batch" if i.rate_qps is None else "1 + the mean in flight"
    parts = [Part("load", "sequences in a step", x.step_batch, "sequences", note=load_note)]
    parts += [Part("bytes per step", k, v, "B") for k, v in x.bytes_per_step.items()]
    parts += [Part("FLOPs per step", k, v, "FLOP") for k, v in x.flops_per_step.items()]
    notes = {
        "memory": "bytes / (G x eta_bw x peak B/s)",
        "compute": "FLOPs / (G x eta_f x peak FLOP/s)",
        "power limit": "dynamic J / (G x (TDP - static W))",
        "layout": "collectives, expert groups, copies",
        "prompt": "B x prefill time / output tokens",
        "fixed": "host: c_step + c_seq x B",
    }
    for k, v in x.step_terms_s.items():
        summed = k in ("layout", "prompt", "fixed") or k == x.roofline
        note = notes[k] + ("" if summed else " (not in the sum)")
        parts.append(Part("step time", k, v, "s", note=note, in_sum=summed))
    bounds_and_power = (  # (group, name, value, unit, note)
        ("step time", "backbone step time", x.backbone_step_s, "s", f"the sum; binds: {x.binding}"),
        ("step time", "ITL floor", x.floor_s, "s", "hard bound: at peak B/s and FLOP/s"),
        ("power", "idle power", x.idle_power_w, "W", "the replica's"),
        ("power", "busy power", x.busy_power_w, "W", "while a request is in flight"),
        ("power", "busy fraction", x.busy_fraction, "", "share of time with a request"),
        (
            "power",
            "backbone power",
            x.backbone_power_w,
            "W",
            "idle + busy fraction x (busy - idle)",
        ),
        ("power", "replica TDP", x.replica_tdp_w, "W", "hard bound: G x TDP"),
    )
    parts += [Part(g, n, v, u, note=note) for g, n, v, u, note in bounds_and_power]
    for c in x.corrections.values():
        name = "power" if c.target == "power" else "ITL"
        note = f"held at the {c.bound}" if c.bound else ("learned" if c.applies else "physics")
        parts.append(Part("correction", f"{name} factor", c.factor, "x", note=note))
    quantities = (
        ("power", "power_w", "W"),
        ("ITL", "itl_s", "s"),
        ("time per token", "time_per_token_s", "s"),
        ("energy per token", "energy_per_token_j", "J"),
    )
    for name, q, unit in quantities:
        iv: Interval = getattr(p, f"{q}_interval")
        note = f"{iv.level:.0%} interval, basis {iv.basis}"
        parts.append(Part("prediction", name, getattr(p, q), unit, note=note, lo=iv.lo, hi=iv.hi))
    per_request = p.energy_per_token_j * i.t_out
    note = f"energy per token x {i.t_out} generated tokens"
    parts.append(Part("prediction", "energy per request", per_request, "J", note=note))
    if math.isfinite(x.widening) and x.widening > 0:
        cross = any(n.startswith(CROSS_SOURCE_NOTE) for n in p.notes)  # interval_steps.cell_note
        note = "beyond the training range" + (
            " (power: the ITL's is from other harnesses)" if cross else ""
        )
        parts.append(Part("interval", "widening", x.widening, "log units", note=note))
    return tuple(parts)
