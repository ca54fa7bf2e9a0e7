"""Chapter 1 — the analytical energy model of "From Tokens to Watt-hours", and a physical one.

- :mod:`~wattgpu_lite.energy.symbolic`: every equation once, as sympy expressions (the derivation);
- :mod:`~wattgpu_lite.energy.paper`: the printed equations, lambdified (paper mode);
- :mod:`~wattgpu_lite.energy.physical`: 2N FLOPs, GQA-aware bytes, weights re-read per decode step,
  static power and a power ceiling (physical mode); :mod:`~wattgpu_lite.energy.hardware` its
  per-GPU coefficients;
- :mod:`~wattgpu_lite.energy.estimate`: ``wl.estimate_energy`` and its tidy breakdown
  (:mod:`~wattgpu_lite.energy.breakdown`);
- :mod:`~wattgpu_lite.energy.sweeps`: breakdowns over output length, batch, model size;
- :mod:`~wattgpu_lite.energy.coefficients`: the constants, each with its source;
- :mod:`~wattgpu_lite.energy.fit`, :mod:`~wattgpu_lite.energy.validation`: physical mode's two
  constants, fitted leave-one-GPU-out, and all modes against the measured energy per token.

Taught in notebooks 01 (the derivation, the paper's tables, the audit) and 02 (where the joules
go). Imports :mod:`wattgpu_lite.specs` and :mod:`wattgpu_lite.runs` only.
"""
