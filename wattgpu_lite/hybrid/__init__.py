"""Chapter 3 — beyond the papers: physics first, data for the offsets, at any workload, with
intervals that hold for a GPU never measured.

- :mod:`~wattgpu_lite.energy.backbone`: the physics backbone — per-request ITL, time per token and
  mean power over batch, context, parameters and bytes, FLOP/s, bandwidth and TDP, with the load
  from a request rate (Little's law) or a batch, and the capacity of a replica;
- :mod:`~wattgpu_lite.energy.backbone_rows`: the backbone's inputs for many rows at once (KV capacity,
  offline occupancy);
- :mod:`~wattgpu_lite.energy.backbone_runs`, :mod:`~wattgpu_lite.energy.backbone_fit`: the Watt Counts
  runs as designed workloads, and the backbone's seven constants fitted on them;
- :mod:`~wattgpu_lite.hybrid.correction`, :mod:`~wattgpu_lite.hybrid.trees`: the bounded,
  monotone XGBoost correction in log space, evaluated with numpy;
- :mod:`~wattgpu_lite.hybrid.candidates`, :mod:`~wattgpu_lite.hybrid.fitting`,
  :mod:`~wattgpu_lite.hybrid.protocol`: the variants written down before evaluation, and the
  nested leave-one-GPU-out / leave-one-LLM-out protocol that selects among them honestly;
- :mod:`~wattgpu_lite.hybrid.conformal`, :mod:`~wattgpu_lite.hybrid.calibration`: intervals
  calibrated per held-out group, and which basis applies to a prediction;
- :mod:`~wattgpu_lite.hybrid.model`, :mod:`~wattgpu_lite.hybrid.build`: the shipped model (JSON);
- :mod:`~wattgpu_lite.hybrid.engine`, :mod:`~wattgpu_lite.hybrid.api`,
  :mod:`~wattgpu_lite.hybrid.prediction`: ``wl.predict`` (a typed ``Prediction``) and
  ``wl.predict_many``; :mod:`~wattgpu_lite.hybrid.byo`: bring your own GPU.

Taught in notebook 06. Imports :mod:`wattgpu_lite.specs`, :mod:`wattgpu_lite.runs`,
:mod:`wattgpu_lite.energy` and :mod:`wattgpu_lite.wattgpu`.
"""
