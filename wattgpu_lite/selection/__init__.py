"""Chapter 4 — choosing hardware: GPUs ranked by energy under a latency SLA.

- :mod:`~wattgpu_lite.selection.rank`: ``wl.rank_gpus``, the SLA sweep, rules of thumb, A-vs-B;
  its columns per source in :mod:`~wattgpu_lite.selection.ranked`; the one SLA verdict, the
  pick under an SLA and the sweep in :mod:`~wattgpu_lite.selection.verdict`;
- :mod:`~wattgpu_lite.selection.compare` and :mod:`~wattgpu_lite.selection.paired`: ``wl.compare``,
  GPU against GPU with a paired interval calibrated on held-out pairs;
- :mod:`~wattgpu_lite.selection.sources`: where power and ITL come from (measured, WattGPU,
  leave-one-GPU-out, the hybrid);
- :mod:`~wattgpu_lite.selection.table`: the ranking's steps as pure functions on a table;
- :mod:`~wattgpu_lite.selection.inputs`: checking the ranking's inputs;
- :mod:`~wattgpu_lite.selection.layouts`: the layouts a MoE replica is tried with (TP, TP·EP,
  DP·EP) and the columns that say why one wins;
- :mod:`~wattgpu_lite.selection.plan`: serving plans (replicas at a rate), every deployment's
  rows built once and its largest rate under the SLA asked of the predictor's chain;
- :mod:`~wattgpu_lite.selection.accounting`: energy, carbon and cost per request and per token,
  and the memory fit check; :mod:`~wattgpu_lite.selection.wall`: the same at the wall (PUE,
  the region's grid and price);
- :mod:`~wattgpu_lite.selection.answers`: ``wl.predict``, ``wl.estimate_energy`` and
  ``wl.explain`` — the predictor's and the physics' answers with their ``wall`` (PUE, grid,
  CO2e, cost with its currency and price region) and ``defaults``, so that ``to_json()`` is the
  CLI's ``--json``.

Taught in notebook 05 and the dashboard. Imports specs, runs and wattgpu; of the predictor
(hybrid, energy) one module, :mod:`wattgpu_lite.hybrid.predict.chain`.
"""
