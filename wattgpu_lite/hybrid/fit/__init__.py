"""What fits the shipped hybrid (needs the ``[train]`` extra: XGBoost).

- :mod:`~wattgpu_lite.hybrid.fit.candidates`: the variants written down before evaluation
  (``data/models/wattgpu_hybrid/candidates.json``);
- :mod:`~wattgpu_lite.hybrid.fit.fitting`: the
  backbone's constants and the monotone correction fitted on one training set;
- :mod:`~wattgpu_lite.hybrid.fit.protocol`: nested leave-one-GPU-out / leave-one-LLM-out, the
  choice made on inner folds only;
- :mod:`~wattgpu_lite.hybrid.fit.conformal`: group-level conformal half-widths;
- :mod:`~wattgpu_lite.hybrid.fit.build`: the shipped model (``data/scripts/build_hybrid_model.py``).
Taught in notebook 06.
"""
