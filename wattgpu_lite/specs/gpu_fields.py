"""What each field of a GPU spec may hold, and the checks that refuse the rest.

    check_field("tdp_w", 700)                        # inside BOUNDS, or SpecError naming it
    known_name("memory_type", "hbm3", MEMORY_TYPES)  # -> "HBM3" (the spelling the kit keeps)

Bounds about 10x outside any real accelerator (:data:`BOUNDS`), the memory technologies, the
architectures and the interconnect directions the kit knows by name, and the order of the dense
peaks (:data:`PEAK_ORDER`); :class:`~wattgpu_lite.specs.gpu.GPU` checks every field through them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wattgpu_lite.checks import check_count, check_number, is_nan
from wattgpu_lite.errors import SpecError, close_matches

# numeric fields that may be NaN (unknown): value used when a spec leaves them out
OPTIONAL_NUMBERS = (
    "process_nm",
    "base_clock_mhz",
    "boost_clock_mhz",
    "bus_width_bits",
    "l2_cache_mb",
    "sm_count",
    "tensor_cores",
    "transistors_m",
    "fp8_tflops",
    "fp4_tflops",
    "int8_tops",
    "interconnect_gbs",
    "idle_power_w",
    "link_domain_gpus",
)
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
MEMORY_TYPES = (
    "HBM",
    "HBM2",
    "HBM2e",
    "HBM3",
    "HBM3e",
    "HBM4",
    "HBM4e",
    "GDDR5",
    "GDDR5X",
    "GDDR6",
    "GDDR6X",
    "GDDR7",
    "LPDDR4X",
    "LPDDR5",
    "LPDDR5X",
    "DDR4",
    "DDR5",
)
# GPU architectures the physics and the correction read by name (energy scope, flash
# attention): one written in another case or spacing ("hopper", "CDNA3") is stored in this
# spelling; a name not listed (a new architecture) is kept as written
ARCHITECTURES = (
    "Pascal",
    "Volta",
    "Turing",
    "Ampere",
    "Ada Lovelace",
    "Hopper",
    "Blackwell",
    "Blackwell Ultra",
    "Rubin",
    "CDNA",
    "CDNA 2",
    "CDNA 3",
    "CDNA 4",
)
DIRECTIONS = ("bidirectional", "unidirectional")  # how interconnect_gbs is quoted
# (lower, higher): a peak of a narrower format is never below the wider one's on hardware that
# has both (tensor cores run FP8 at 2x the FP16 rate, FP4 at 2x FP8: H100, B200, MI300X, MI355X)
PEAK_ORDER = (
    ("fp16_tflops", "fp8_tflops"),
    ("fp8_tflops", "fp4_tflops"),
    ("fp16_tflops", "fp4_tflops"),
)


def spec_error(field: str, problem: str) -> SpecError:
    """SpecError "GPU spec field 'name': problem", with the field kept on it (``err.field``)."""
    err = SpecError(f"GPU spec field {field!r}: {problem}")
    err.field = field
    return err


def check_field(field: str, value: Any) -> None:
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
    raise spec_error(
        field,
        f"{value!r:.60} is not one the kit knows; close matches: {near}; "
        f"write one of {', '.join(known)}",
    )


def check_peaks(peaks: Mapping[str, float]) -> None:
    """SpecError if a narrower format's dense peak is below a wider one's (:data:`PEAK_ORDER`);
    NaN (the GPU has no such format, or it is unknown) is never compared."""
    for wide, narrow in PEAK_ORDER:
        if peaks[narrow] < peaks[wide]:  # False when either is NaN
            raise spec_error(
                narrow,
                f"{peaks[narrow]:g} TFLOPS is below {wide} "
                f"{peaks[wide]:g}: the {narrow[:3].upper()} peak is never below the "
                f"{wide[:4].upper()} peak on hardware that has {narrow[:3].upper()} "
                f"(usually 2x); check both are the dense figures of one spec sheet, "
                f"or leave {narrow} out if the GPU has no {narrow[:3].upper()}",
            )
