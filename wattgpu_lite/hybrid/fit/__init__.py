"""What fits the shipped hybrid (fitting needs the ``[train]`` extra: XGBoost, SciPy, tqdm, which
are imported where a fit runs, so these modules import with numpy and pandas only).

- :mod:`~wattgpu_lite.hybrid.fit.candidates`: the variants written down before evaluation
  (``data/models/wattgpu_hybrid/candidates.json``), and the backbone's constants and the
  monotone correction fitted on one training set;
- :mod:`~wattgpu_lite.hybrid.fit.protocol`: nested leave-one-GPU-out / leave-one-LLM-out, the
  choice made on inner folds only;
- :mod:`~wattgpu_lite.hybrid.fit.conformal`: group-level conformal half-widths;
- :mod:`~wattgpu_lite.hybrid.fit.build`: the shipped model (``data/scripts/build_hybrid_model.py``),
  or one fitted on any runs table;
- :mod:`~wattgpu_lite.hybrid.fit.estimator`: ``wl.HybridModel``, fit(runs) / predict, like
  ``wl.WattGPU``.
Taught in notebook 06.
"""
