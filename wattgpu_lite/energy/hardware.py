"""Per-GPU energy coefficients of physical mode, in two bases (at the FP16 peak; see args.gpu_args).

Two bases for (alpha J/FLOP, e J/bit):

* ``"spec"`` (physical mode's default, :data:`PHYSICAL_BASIS`): alpha = TDP / peak dense FP16
  tensor FLOP/s — the energy per FLOP of a board that sustains its peak at its power limit, read
  off the spec sheet. Offline inference runs at the power limit (Watt Counts: 0.89–0.99 of TDP
  for models ≥ 6 B on every GPU), so throughput is set by what a FLOP costs *at that operating
  point*: the board's TDP/peak ratio carries clocks, voltage, node and tensor-core generation
  in one published number. e from the memory type as in ``"antepara"``.
* ``"antepara"`` (the first version; the hybrid predictor's physics features are built on it):
  Hopper (H100/H200/GH200) and A100/A30: Antepara et al. SC'25 microbenchmarks; CDNA 2/3: their
  MI250X/MI300A values; any other GPU: alpha from the nearest measured NVIDIA node scaled linearly
  with the process node (≤ 5 nm from Hopper 0.52 pJ at 5 nm, else from A100 0.70 pJ at 7 nm).
  e: HBM3/HBM3e -> Hopper 11.68 pJ/bit; HBM2/HBM2e -> A100 13.11 pJ/bit; GDDR -> × 1.92.

kappa and static_fraction are fitted per basis (``energy_coefficients.csv`` scopes ``physical``
and ``physical:spec``; :mod:`wattgpu_lite.energy.validation`). Other weight precisions scale alpha
by FP16 peak / the peak their kernels use (:func:`wattgpu_lite.energy.args.gpu_args`).
"""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy import coefficients
from wattgpu_lite.errors import InvalidInputError

BASES = ("antepara", "spec")
PHYSICAL_BASIS = "spec"
_ARCH_SCOPE = {"Hopper": "Hopper", "CDNA 2": "MI250X", "CDNA 3": "MI300A"}
_PJ = 1e-12


def constants_scope(basis: str) -> str:
    """Scope of kappa and static_fraction in ``energy_coefficients.csv`` for ``basis``."""
    if basis not in BASES:
        raise InvalidInputError(f"basis must be one of {BASES}, got {basis!r}.")
    return "physical" if basis == "antepara" else f"physical:{basis}"


def memory_energy_j_per_bit(gpu) -> float:
    """e (J/bit) from the memory type: HBM3/3e Hopper, HBM2/2e A100, GDDR = A100 × 1.92."""
    mem = str(gpu.memory_type).upper()
    e = coefficients.value(
        "e_mem_pj_per_bit", "antepara:" + ("Hopper" if "HBM3" in mem else "A100")
    )
    if mem.startswith("GDDR"):
        e *= coefficients.value("gddr_over_hbm_energy", "physical")
    return e * _PJ


def antepara_coefficients_j(gpu) -> tuple[float, float, str]:
    """(alpha J/FLOP, e J/bit, basis): Antepara et al. where measured, else node-scaled."""
    scope = _ARCH_SCOPE.get(gpu.architecture)
    if scope is None and gpu.name.startswith(("A100", "A30")):
        scope = "A100"
    if scope:
        a, e = (
            coefficients.value(n, f"antepara:{scope}")
            for n in ("alpha_pj_per_flop", "e_mem_pj_per_bit")
        )
        return a * _PJ, e * _PJ, f"measured ({scope}, Antepara et al.)"
    node = float(gpu.process_nm) if np.isfinite(gpu.process_nm) else 7.0
    ref, ref_nm = ("Hopper", 5.0) if node <= 5 else ("A100", 7.0)
    a = coefficients.value("alpha_pj_per_flop", f"antepara:{ref}") * node / ref_nm
    basis = f"scaled from {ref} by process node ({node:g} nm) and {gpu.memory_type}"
    return a * _PJ, memory_energy_j_per_bit(gpu), basis


def spec_coefficients_j(gpu) -> tuple[float, float, str]:
    """(alpha = TDP / peak FP16 FLOP/s in J/FLOP, e from the memory type J/bit, basis)."""
    alpha = gpu.tdp_w / (gpu.fp16_tflops * 1e12)
    return alpha, memory_energy_j_per_bit(gpu), f"spec sheet: TDP / FP16 peak, {gpu.memory_type}"


def gpu_coefficients_j(gpu, basis: str = "antepara") -> tuple[float, float, str]:
    """(alpha J/FLOP, e J/bit, basis text) of ``gpu`` by ``basis`` ("antepara" or "spec")."""
    constants_scope(basis)  # validates
    return spec_coefficients_j(gpu) if basis == "spec" else antepara_coefficients_j(gpu)
