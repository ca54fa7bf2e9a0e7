"""The GPU spec sheet as a frozen dataclass, validated on construction (re-exported by catalog)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from wattgpu_lite.checks import check_count, check_flag, check_number, is_nan
from wattgpu_lite.errors import SpecError, close_matches

# numeric fields that may be NaN (unknown): value used when a spec leaves them out
OPTIONAL_NUMBERS = (
    "process_nm", "base_clock_mhz", "boost_clock_mhz", "bus_width_bits", "l2_cache_mb", "sm_count", "tensor_cores",
    "transistors_m", "fp8_tflops", "fp4_tflops", "int8_tops", "interconnect_gbs", "idle_power_w",
    "link_domain_gpus",
)  # fmt: skip
OPTIONAL_TEXT = {"vendor": "unknown", "architecture": "unknown", "form_factor": "unknown",
                 "smi_name": "", "source": "user spec", "interconnect": "unknown",
                 "interconnect_direction": "bidirectional", "source_fp8": "",
                 "source_interconnect": ""}  # fmt: skip
INTEGERS = ("release_year", "bus_width_bits", "sm_count", "tensor_cores")
# field -> (lowest, highest, unit): physical bounds ~10x outside any real accelerator, so a typo,
# a unit slip (MB for GB, kW for W) or an overflow is caught, and a real spec sheet never is
BOUNDS: dict[str, tuple[float, float, str]] = {
    "release_year": (1995, 2035, ""), "process_nm": (1, 100, "nm"),
    "base_clock_mhz": (100, 5000, "MHz"), "boost_clock_mhz": (100, 5000, "MHz"),
    "memory_gb": (1, 4096, "GB"), "bandwidth_gbs": (20, 100_000, "GB/s"),
    "bus_width_bits": (32, 16384, "bits"), "l2_cache_mb": (0.1, 4096, "MB"),
    "sm_count": (1, 4096, ""), "tensor_cores": (1, 65536, ""),
    "transistors_m": (100, 10_000_000, "million"), "tdp_w": (10, 5000, "W"),
    "fp16_tflops": (1, 100_000, "TFLOPS"), "fp8_tflops": (1, 200_000, "TFLOPS"),
    "fp4_tflops": (1, 400_000, "TFLOPS"), "int8_tops": (1, 200_000, "TOPS"),
    "interconnect_gbs": (1, 100_000, "GB/s"), "idle_power_w": (1, 2000, "W"),
    "link_domain_gpus": (1, 1024, "GPUs"),
}  # fmt: skip
# memory technologies of accelerators (JEDEC names, as spec sheets write them); a spec's
# memory_type is matched case-insensitively and stored in this spelling (the physics reads HBM3
# vs HBM2 vs GDDR from it)
MEMORY_TYPES = ("HBM", "HBM2", "HBM2e", "HBM3", "HBM3e", "HBM4", "HBM4e", "GDDR5", "GDDR5X",
                "GDDR6", "GDDR6X", "GDDR7", "LPDDR4X", "LPDDR5", "LPDDR5X", "DDR4", "DDR5")  # fmt: skip
# GPU architectures the physics and the correction read by name (energy scope, flash
# attention): one written in another case or spacing ("hopper", "CDNA3") is stored in this
# spelling; a name not listed (a new architecture) is kept as written
ARCHITECTURES = ("Pascal", "Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", "Blackwell",
                 "Blackwell Ultra", "Rubin", "CDNA", "CDNA 2", "CDNA 3", "CDNA 4")  # fmt: skip
DIRECTIONS = ("bidirectional", "unidirectional")  # how interconnect_gbs is quoted
# (lower, higher): a peak of a narrower format is never below the wider one's on hardware that
# has both (tensor cores run FP8 at 2x the FP16 rate, FP4 at 2x FP8: H100, B200, MI300X, MI355X)
PEAK_ORDER = (("fp16_tflops", "fp8_tflops"), ("fp8_tflops", "fp4_tflops"),
              ("fp16_tflops", "fp4_tflops"))  # fmt: skip
REQUIRED = ("name", "release_year", "memory_gb", "memory_type", "bandwidth_gbs", "tdp_w",
            "fp16_tflops")  # fmt: skip


def _spec_error(field: str, problem: str) -> SpecError:
    err = SpecError(f"GPU spec field {field!r}: {problem}")
    err.field = field
    return err


def _check_field(field: str, value: Any) -> None:
    """One numeric field inside its BOUNDS (NaN allowed where OPTIONAL_NUMBERS says unknown)."""
    if field in OPTIONAL_NUMBERS and is_nan(value):
        return
    lo, hi, unit = BOUNDS[field]
    fix = f"fix {field!r} ({unit or 'a count'} from {lo:g} to {hi:g}) as its spec sheet has it"
    label = f"GPU spec field {field!r}:"
    if field in INTEGERS:
        check_count(field, value, lo, hi, error=SpecError, label=label, fix=fix)
    else:
        check_number(field, value, lo, hi, unit=unit, error=SpecError, label=label, fix=fix)


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
            _check_field(f, getattr(self, f))
        check_flag("measured", self.measured, error=SpecError, label="GPU spec field 'measured':")
        if self.idle_power_w >= self.tdp_w:  # False when idle power is NaN (unknown)
            raise _spec_error(
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
            raise _spec_error(
                unknown[0], f"unknown key(s) {unknown}{near}; use the valid keys: {valid}"
            )
        values = {f: _coerce(f, spec.get(f)) for f in valid}
        return cls(**values)


def _folded(text: str) -> str:
    return "".join(text.lower().replace("-", " ").split())


def known_spelling(value: str, known: tuple[str, ...]) -> str:
    """The spelling in ``known`` of ``value`` written in another case or spacing (``"hopper"``,
    ``"CDNA3"``), else ``value`` as given."""
    return next((name for name in known if _folded(name) == _folded(value)), value)


def known_name(field: str, value: Any, known: tuple[str, ...]) -> str:
    """``value`` in the spelling of ``known`` it matches case-insensitively (``"hbm3"`` is
    ``"HBM3"``), or SpecError naming the field, the value and the close matches."""
    if isinstance(value, str) and known_spelling(value, known) in known:
        return known_spelling(value, known)
    near = ", ".join(repr(m) for m in close_matches(str(value)[:200], known)) or "none"
    raise _spec_error(
        field,
        f"{value!r:.60} is not one the kit knows; close matches: {near}; "
        f"write one of {', '.join(known)}",
    )


def check_peaks(peaks: Mapping[str, float]) -> None:
    """SpecError if a narrower format's dense peak is below a wider one's (:data:`PEAK_ORDER`);
    NaN (the GPU has no such format, or it is unknown) is never compared."""
    for wide, narrow in PEAK_ORDER:
        if peaks[narrow] < peaks[wide]:  # False when either is NaN
            raise _spec_error(
                narrow,
                f"{peaks[narrow]:g} TFLOPS is below {wide} "
                f"{peaks[wide]:g}: the {narrow[:3].upper()} peak is never below the "
                f"{wide[:4].upper()} peak on hardware that has {narrow[:3].upper()} "
                f"(usually 2x); check both are the dense figures of one spec sheet, "
                f"or leave {narrow} out if the GPU has no {narrow[:3].upper()}",
            )


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
        raise _spec_error(
            field,
            f"is required but missing{got}; add it as its spec sheet has "
            "it (see GPU.from_spec's docstring)",
        )
    if field in ("name", "memory_type") or field in OPTIONAL_TEXT:
        most = 10_000 if field.startswith("source") else 200
        if not isinstance(value, str) or len(value) > most:
            raise _spec_error(
                field,
                f"must be text (at most {most:,} characters), got "
                f"{type(value).__name__} {value!r:.80}; write it in quotes",
            )
        return value.strip() if field == "name" else value
    _check_field(field, value)
    return int(value) if field in INTEGERS else float(value)
