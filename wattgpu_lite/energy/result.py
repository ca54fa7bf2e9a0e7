"""The typed result of :func:`wattgpu_lite.energy.estimate.estimate_energy`: :class:`EnergyEstimate`.

Frozen: the inputs it used (names, tokens, batch, GPUs, weight format, the compute peak), the
energy terms (J per request of the whole replica, by phase and component) and notes. Totals are
derived; ``.table()`` is the tidy breakdown, ``.to_json()`` exactly the CLI's ``estimate --json``
(numbers at 6 significant figures; ``to_dict()`` keeps every digit). ``wall`` (energy, CO2e and
cost at the wall) and ``defaults`` are filled by ``wl.estimate_energy`` (selection.answers).

The same conventions as :class:`~wattgpu_lite.hybrid.predict.prediction.Prediction`: energy per
generated token is ``energy_per_token_j``; ``inputs`` holds what it was computed for under the names
``wl.predict`` uses; ``batch`` is a float; a missing value is ``None`` (JSON ``null``), written by
the kit's one JSON writer (:mod:`wattgpu_lite.jsonio`); a NaN input never gets this far (the
checks refuse it, as ``wl.predict``'s do).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import pandas as pd

from wattgpu_lite.energy.breakdown import COMPONENTS, J_PER_WH, breakdown_frame
from wattgpu_lite.jsonio import dumps, json_safe, rounded
from wattgpu_lite.specs.layout import Parallel

# the inputs, under the names of wl.predict's Inputs (llm, gpu, t_in, t_out, batch, num_gpus, ...)
INPUT_FIELDS = (
    "llm",
    "gpu",
    "t_in",
    "t_out",
    "batch",
    "num_gpus",
    "weights",
    "llm_architecture",
    "tp",
    "ep",
)
# the breakdown's headers as a notebook shows them (the table itself keeps its raw, unit-suffixed names)
HTML_HEADERS = {
    "energy_j": "energy (J)",
    "energy_wh": "energy (Wh)",
    "energy_per_token_j": "energy per generated token (J)",
}


@dataclass(frozen=True)
class EnergyEstimate:
    """Energy of one request of ``t_in`` prompt and ``t_out`` generated tokens, by component.

    ``terms`` holds (phase, component, energy_j) per request for the replica of ``num_gpus``
    GPUs; ``compute_peak`` names the peak the kernels of ``weights`` run at ("fp16", "fp8",
    "fp4"; empty in paper mode, which has no GPU peak) — for a model whose always-read weights
    stay at 16 bits (gpt-oss) the routed experts' peak; a note then gives both groups' peaks.
    """

    llm: str
    gpu: str
    mode: str
    t_in: int
    t_out: int
    batch: float
    num_gpus: int
    weights: str
    weight_bits: float
    expert_parallel: bool
    compute_peak: str
    compute_peak_tflops: float | None
    coefficients: str
    kappa: float | None
    static_fraction: float | None
    terms: tuple[tuple[str, str, float], ...]
    notes: tuple[str, ...] = ()
    llm_architecture: str = ""  # the catalog architecture ``llm`` resolved to (= llm if no alias)
    tp: int = 1  # the layout (specs.layout.Parallel): tensor-parallel group, expert group
    ep: int = 1
    power_w: float | None = None  # physical mode: the replica's mean power while serving the batch
    step_time_s: float | None = None  # and the time of one decode step (the ITL at this batch)
    wall: Mapping[str, Any] | None = None  # at the wall, with its inputs (None: not asked)
    defaults: Mapping[str, Any] = field(default_factory=dict)  # {key: {"value", "source"}}
    schema_version: ClassVar[int] = 1
    kind: ClassVar[str] = "estimate"

    def __post_init__(self) -> None:
        if not self.llm_architecture:
            object.__setattr__(self, "llm_architecture", self.llm)

    @property
    def components_j(self) -> dict[str, float]:
        """J per request of each component (prefill + decode)."""
        out = dict.fromkeys(COMPONENTS, 0.0)
        for _, comp, value in self.terms:
            out[comp] += value
        return out

    @property
    def total_j(self) -> float:
        """J per request, all components and phases, the whole replica."""
        return float(sum(v for _, _, v in self.terms))

    @property
    def total_wh(self) -> float:
        """Wh per request."""
        return self.total_j / J_PER_WH

    @property
    def energy_per_token_j(self) -> float:
        """J per generated token (total / t_out): the name ``wl.predict`` uses for it."""
        return self.total_j / self.t_out

    @property
    def inputs(self) -> dict[str, Any]:
        """What the estimate was computed for, under ``wl.predict``'s names (:data:`INPUT_FIELDS`)."""
        return {name: getattr(self, name) for name in INPUT_FIELDS}

    def table(self) -> pd.DataFrame:
        """Tidy breakdown: phase, component, energy_j, energy_wh, energy_per_token_j."""
        df = breakdown_frame({(ph, c): v for ph, c, v in self.terms}, self.t_out)
        df.attrs = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "terms"}
        return df

    def to_dict(self) -> dict:
        """Inputs, totals, components and terms as plain JSON-safe values (missing → None)."""
        inputs = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("terms", "notes")
        }
        return json_safe(
            {"schema_version": self.schema_version, "kind": self.kind}
            | inputs
            | {
                "total_j": self.total_j,
                "total_wh": self.total_wh,
                "energy_per_token_j": self.energy_per_token_j,
                "components_j": self.components_j,
                "terms": [{"phase": p, "component": c, "energy_j": v} for p, c, v in self.terms],
                "notes": list(self.notes),
            }
        )

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as strict JSON at 6 significant figures, exactly ``estimate --json``
        (:func:`wattgpu_lite.jsonio.rounded`; never NaN)."""
        return dumps(rounded(self.to_dict()), indent=indent)

    def header(self) -> str:
        """One line: what was estimated, with which inputs."""
        gpus = f"{self.num_gpus} × {self.gpu}" if self.num_gpus > 1 else self.gpu
        peak = f", {self.compute_peak.upper()} peak" if self.compute_peak else ""
        ep = f", {Parallel(self.tp, self.ep).label}" if self.ep > 1 else ""
        arch = (
            "" if self.llm_architecture == self.llm else f" (architecture {self.llm_architecture})"
        )
        return (
            f"{self.llm}{arch} on {gpus} ({self.mode} mode), {self.t_in} in / {self.t_out} out, "
            f"batch {self.batch:g}, {self.weights} weights{peak}{ep}"
        )

    def __repr__(self) -> str:
        return (
            f"EnergyEstimate({self.header()}: {self.total_j:.4g} J = {self.total_wh:.4g} Wh, "
            f"{self.energy_per_token_j:.4g} J per output token)"
        )

    def _repr_html_(self) -> str:
        totals = (
            f"<b>{self.total_j:.4g} J</b> = {self.total_wh:.4g} Wh per request, "
            f"{self.energy_per_token_j:.4g} J per generated token"
        )
        notes = "".join(f"<li>{html.escape(n)}</li>" for n in self.notes)
        return (
            f"<p>{html.escape(self.header())}<br>{totals}</p>"
            + self.table()
            .rename(columns=HTML_HEADERS)
            .to_html(index=False, float_format="{:.4g}".format)
            + (f"<ul>{notes}</ul>" if notes else "")
        )
