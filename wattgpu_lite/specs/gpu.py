"""The GPU spec sheet as a frozen dataclass, validated on construction (re-exported by catalog)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from wattgpu_lite.checks import check_flag
from wattgpu_lite.errors import SpecError, close_matches
from wattgpu_lite.specs.gpu_fields import (
    ARCHITECTURES,
    BOUNDS,
    DIRECTIONS,
    INTEGERS,
    MEMORY_TYPES,
    OPTIONAL_NUMBERS,
    check_field,
    check_peaks,
    known_name,
    known_spelling,
    spec_error,
)

OPTIONAL_TEXT = {
    "vendor": "unknown",
    "architecture": "unknown",
    "form_factor": "unknown",
    "smi_name": "",
    "source": "user spec",
    "interconnect": "unknown",
    "interconnect_direction": "bidirectional",
    "source_fp8": "",
    "source_interconnect": "",
}
REQUIRED = (
    "name",
    "release_year",
    "memory_gb",
    "memory_type",
    "bandwidth_gbs",
    "tdp_w",
    "fp16_tflops",
)


@dataclass(frozen=True)
class GPU:
    """One accelerator's public spec sheet. Units are in the names; NaN means unknown.

    ``fp16_tflops`` is the DENSE FP16/BF16 tensor peak (never the 2:4-sparse figure);
    ``fp8_tflops`` / ``fp4_tflops`` are the dense FP8 / FP4 peaks (NaN where the GPU has none);
    ``interconnect_gbs`` the per-GPU intra-node bandwidth (NVLink, Infinity Fabric or PCIe) as
    ``interconnect_direction`` says (vendors quote bidirectional totals); ``link_domain_gpus`` the
    GPUs that link joins (an HGX baseboard's 8, an NVL72 rack's 72, a bridge's 2 or 4; NaN if
    unknown: :func:`wattgpu_lite.energy.links.check_link_domain`); ``idle_power_w`` a
    published idle draw (NaN if none). ``measured`` marks the 8 Watt Counts GPUs.
    """

    name: str
    vendor: str
    architecture: str
    release_year: int
    process_nm: float
    base_clock_mhz: float
    boost_clock_mhz: float
    memory_gb: float
    memory_type: str
    bandwidth_gbs: float
    bus_width_bits: int
    l2_cache_mb: float
    sm_count: int
    tensor_cores: int
    transistors_m: float
    tdp_w: float
    fp16_tflops: float
    fp8_tflops: float
    form_factor: str
    measured: bool
    smi_name: str
    source: str
    fp4_tflops: float = float("nan")
    int8_tops: float = float("nan")
    interconnect: str = "unknown"
    interconnect_gbs: float = float("nan")
    interconnect_direction: str = "bidirectional"
    idle_power_w: float = float("nan")
    link_domain_gpus: float = float("nan")
    source_fp8: str = ""
    source_interconnect: str = ""

    def __post_init__(self) -> None:
        for f in BOUNDS:
            check_field(f, getattr(self, f))
        check_flag("measured", self.measured, error=SpecError, label="GPU spec field 'measured':")
        if self.idle_power_w >= self.tdp_w:  # False when idle power is NaN (unknown)
            raise spec_error(
                "idle_power_w",
                f"{self.idle_power_w} W is not below tdp_w {self.tdp_w} W; fix one of them",
            )
        object.__setattr__(
            self, "memory_type", known_name("memory_type", self.memory_type, MEMORY_TYPES)
        )
        object.__setattr__(self, "architecture", known_spelling(self.architecture, ARCHITECTURES))
        object.__setattr__(
            self,
            "interconnect_direction",
            known_name("interconnect_direction", self.interconnect_direction, DIRECTIONS),
        )
        check_peaks({f: getattr(self, f) for f in ("fp16_tflops", "fp8_tflops", "fp4_tflops")})
        if self.boost_clock_mhz < self.base_clock_mhz:  # False when either is NaN (unknown)
            raise spec_error(
                "boost_clock_mhz",
                f"boost {self.boost_clock_mhz} MHz < base {self.base_clock_mhz} MHz (swapped?)",
            )

    def __repr__(self) -> str:
        tag = ", measured" if self.measured else ""
        return (
            f"GPU({self.name!r}, {self.memory_gb:g} GB {self.memory_type}, "
            f"{self.bandwidth_gbs:g} GB/s, {self.fp16_tflops:g} TFLOPS FP16 dense, "
            f"{self.tdp_w:g} W{tag})"
        )

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> GPU:
        """A GPU from a dict of its spec sheet, with every field checked.

        Required: name, release_year, memory_gb, memory_type, bandwidth_gbs, tdp_w, fp16_tflops
        (dense). Optional numbers default to NaN (unknown): the fields of OPTIONAL_NUMBERS
        (clocks, bus, L2, SMs, tensor cores, transistors, FP8/FP4/INT8 peaks, interconnect
        bandwidth, idle power, GPUs the link joins). Optional text: OPTIONAL_TEXT; measured defaults to False.
        ``memory_type`` is one of MEMORY_TYPES and ``interconnect_direction`` one of DIRECTIONS
        (any case; stored in their spelling), ``architecture`` stored in the spelling of
        ARCHITECTURES where it is one in another case; the FP8 peak is never below FP16, nor FP4 below
        either (PEAK_ORDER).
        Raises SpecError naming the field.
        """
        valid = [f.name for f in fields(cls)]
        if not isinstance(spec, Mapping):
            raise SpecError(
                f"a GPU spec must be a dict (a JSON object) of its fields, got "
                f"{type(spec).__name__}; required keys: {list(REQUIRED)}"
            )
        unknown = sorted(map(str, set(spec) - set(valid)))
        if unknown:
            meant = close_matches(unknown[0][:200], valid, n=3)
            near = f" (did you mean {' or '.join(map(repr, meant))}?)" if meant else ""
            raise spec_error(
                unknown[0], f"unknown key(s) {unknown}{near}; use the valid keys: {valid}"
            )
        values = {f: _coerce(f, spec.get(f)) for f in valid}
        return cls(**values)


def _missing(value: Any) -> bool:
    return (
        value is None
        or (isinstance(value, float) and math.isnan(value))
        or (isinstance(value, str) and not value.strip())
    )


def _coerce(field: str, value: Any) -> Any:
    """One spec value converted to its field's type; defaults for optional fields."""
    if field == "measured":
        return False if _missing(value) else value  # checked (a real bool) in __post_init__
    if field in OPTIONAL_TEXT and _missing(value):
        return OPTIONAL_TEXT[field]
    if _missing(value):
        if field in OPTIONAL_NUMBERS:
            return math.nan
        got = "" if value is None else f" (got {value!r:.20}, which means unknown)"
        raise spec_error(
            field,
            f"is required but missing{got}; add it as its spec sheet has "
            "it (see GPU.from_spec's docstring)",
        )
    if field in ("name", "memory_type") or field in OPTIONAL_TEXT:
        most = 10_000 if field.startswith("source") else 200
        if not isinstance(value, str) or len(value) > most:
            raise spec_error(
                field,
                f"must be text (at most {most:,} characters), got "
                f"{type(value).__name__} {value!r:.80}; write it in quotes",
            )
        return value.strip() if field == "name" else value
    check_field(field, value)
    return int(value) if field in INTEGERS else float(value)
