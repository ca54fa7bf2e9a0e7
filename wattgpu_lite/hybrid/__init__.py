"""Chapter 3 — beyond the papers: physics first, data for the offsets, at any workload, with
intervals that hold for a GPU never measured.

The physics backbone itself lives in :mod:`wattgpu_lite.energy.backbone` (one engine for the energy
chapter and this one). This chapter is three parts, each a folder; data flows predict → fit → report:

- :mod:`wattgpu_lite.hybrid.predict`: what answers ``wl.predict``, ``wl.predict_many`` and
  ``wl.explain`` — numpy only, the shipped model read from JSON;
- :mod:`wattgpu_lite.hybrid.fit`: what builds that model — the candidates written before
  evaluation, the nested leave-one-GPU-out / leave-one-LLM-out protocol, the conformal tables
  (XGBoost; run by ``data/scripts`` and ``benchmarks/``);
- :mod:`wattgpu_lite.hybrid.report`: what the evaluation says — per held-out group and pooled,
  and against measurements from other harnesses (report-only, never fitted).

Taught in notebook 06. Imports :mod:`wattgpu_lite.specs`, :mod:`wattgpu_lite.runs`,
:mod:`wattgpu_lite.energy` and :mod:`wattgpu_lite.wattgpu`.
"""
