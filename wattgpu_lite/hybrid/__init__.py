"""Chapter 3 — beyond the papers: physics and data together, at any load, with intervals.

- :mod:`~wattgpu_lite.hybrid.load`: load as a number (in-flight sequences from a rate or a batch);
- :mod:`~wattgpu_lite.hybrid.physics`: physics features from the energy model's physical mode;
- :mod:`~wattgpu_lite.hybrid.configs`, :mod:`~wattgpu_lite.hybrid.stages`: the model
  configurations (a linear physics stage, then XGBoost on its residual);
- :mod:`~wattgpu_lite.hybrid.pipeline`, :mod:`~wattgpu_lite.hybrid.model`: fitting, calibration
  and the shipped ``HybridModel``; :mod:`~wattgpu_lite.hybrid.intervals` conformal intervals;
  :mod:`~wattgpu_lite.hybrid.extrapolation` inputs beyond the training runs;
- :mod:`~wattgpu_lite.hybrid.ablation`, :mod:`~wattgpu_lite.hybrid.results`: the grouped
  evaluation of every configuration and the shipped result tables;
- :mod:`~wattgpu_lite.hybrid.byo`: bring your own GPU; :mod:`~wattgpu_lite.hybrid.api`:
  ``wl.predict``.

Taught in notebook 06. Imports :mod:`wattgpu_lite.specs`, :mod:`wattgpu_lite.runs`,
:mod:`wattgpu_lite.energy` and :mod:`wattgpu_lite.wattgpu`.
"""
