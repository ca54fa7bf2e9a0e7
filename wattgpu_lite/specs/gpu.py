"""The GPU spec sheet as a frozen dataclass, validated on construction (re-exported by catalog)."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from wattgpu_lite.errors import SpecError

# numeric fields that may be NaN (unknown): value used when a spec leaves them out
OPTIONAL_NUMBERS = (
    "process_nm", "base_clock_mhz", "boost_clock_mhz", "bus_width_bits", "l2_cache_mb", "sm_count", "tensor_cores",
    "transistors_m", "fp8_tflops", "fp4_tflops", "int8_tops", "interconnect_gbs", "idle_power_w",
)  # fmt: skip
OPTIONAL_TEXT = {"vendor": "unknown", "architecture": "unknown", "form_factor": "unknown",
                 "smi_name": "", "source": "user spec", "interconnect": "unknown",
                 "interconnect_direction": "bidirectional", "source_fp8": "",
                 "source_interconnect": ""}  # fmt: skip
INTEGERS = ("release_year", "bus_width_bits", "sm_count", "tensor_cores")
POSITIVE = ("memory_gb", "bandwidth_gbs", "tdp_w", "fp16_tflops", "boost_clock_mhz",
            "process_nm", "base_clock_mhz", "bus_width_bits", "l2_cache_mb", "sm_count",
            "tensor_cores", "transistors_m", "fp8_tflops", "fp4_tflops", "int8_tops",
            "interconnect_gbs", "idle_power_w")  # fmt: skip
YEARS = (1995, 2035)  # a release year outside this range is a typo


def _spec_error(field: str, problem: str) -> SpecError:
    err = SpecError(f"GPU spec field {field!r}: {problem}")
    err.field = field
    return err


@dataclass(frozen=True)
class GPU:
    """One accelerator's public spec sheet. Units are in the names; NaN means unknown.

    ``fp16_tflops`` is the DENSE FP16/BF16 tensor peak (never the 2:4-sparse figure);
    ``fp8_tflops`` / ``fp4_tflops`` are the dense FP8 / FP4 peaks (NaN where the GPU has none);
    ``interconnect_gbs`` the per-GPU intra-node bandwidth (NVLink, Infinity Fabric or PCIe) as
    ``interconnect_direction`` says (vendors quote bidirectional totals); ``idle_power_w`` a
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
    source_fp8: str = ""
    source_interconnect: str = ""

    def __post_init__(self) -> None:
        for f in POSITIVE:
            value = getattr(self, f)
            if not (value > 0 or (f in OPTIONAL_NUMBERS and math.isnan(value))):
                raise _spec_error(f, f"must be > 0, got {value!r}")
        if not YEARS[0] <= self.release_year <= YEARS[1]:
            raise _spec_error("release_year", f"{self.release_year} is not in {YEARS}")
        if self.boost_clock_mhz < self.base_clock_mhz:  # False when either is NaN (unknown)
            raise _spec_error(
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
        bandwidth, idle power). Optional text: OPTIONAL_TEXT; measured defaults to False.
        Raises SpecError naming the field.
        """
        valid = [f.name for f in fields(cls)]
        unknown = sorted(set(spec) - set(valid))
        if unknown:
            raise _spec_error(unknown[0], f"unknown key(s) {unknown}; valid keys: {valid}")
        values = {f: _coerce(f, spec.get(f)) for f in valid}
        return cls(**values)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value == ""


def _coerce(field: str, value: Any) -> Any:
    """One spec value converted to its field's type; defaults for optional fields."""
    if field in ("measured",):
        return bool(value) if not _missing(value) else False
    if field in OPTIONAL_TEXT:
        return OPTIONAL_TEXT[field] if _missing(value) else str(value)
    if _missing(value):
        if field in OPTIONAL_NUMBERS:
            return math.nan
        raise _spec_error(field, "is required but missing. See GPU.from_spec's docstring.")
    if field in ("name", "memory_type"):
        return str(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise _spec_error(field, f"must be a number, got {value!r}") from None
    if field in INTEGERS:
        if number != int(number):
            raise _spec_error(field, f"must be a whole number, got {value!r}")
        return int(number)
    return number
