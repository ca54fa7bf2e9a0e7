"""Chapter 2 — the WattGPU paper's model, exactly as published, and its evaluation.

- :mod:`~wattgpu_lite.wattgpu.features`: the engineered features and the two input lists;
- :mod:`~wattgpu_lite.wattgpu.preprocessing`: imputation, scaling and ordinal codes, as JSON;
- :mod:`~wattgpu_lite.wattgpu.regressor`: one target's preprocessing + XGBoost;
- :mod:`~wattgpu_lite.wattgpu.predictor`: ``wl.WattGPU`` (power and ITL, pre-trained or fitted);
- :mod:`~wattgpu_lite.wattgpu.baselines`: TDP, load-scaled TDP and roofline;
- :mod:`~wattgpu_lite.wattgpu.evaluation`, :mod:`~wattgpu_lite.wattgpu.metrics`: 5-fold,
  leave-one-GPU-out and leave-one-LLM-out, MdAPE, Pearson r, Kendall τ (``wl.evaluate``), on
  all GPUs or on the paper's 7-GPU reading of power (``reading="paper_7gpu"``);
- :mod:`~wattgpu_lite.wattgpu.inputs`: which columns may be inputs (``features=``);
- :mod:`~wattgpu_lite.wattgpu.leakage`: plain KFold against grouped folds;
- :mod:`~wattgpu_lite.wattgpu.paper_results`: the paper's published table, for side by side;
- :mod:`~wattgpu_lite.wattgpu.studies`: fold maps, importance, grid search, linear models,
  the readings side by side.

Taught in notebooks 03 (data and features) and 04 (leave-one-out training). Imports
:mod:`wattgpu_lite.specs` and :mod:`wattgpu_lite.runs` only.
"""
