"""What predicts (numpy only; ``wl.predict`` imports nothing else of the chapter).

The vectorised path runs named steps (:mod:`~wattgpu_lite.hybrid.predict.steps`): resolve →
rows → backbone → correction → bounds → intervals, into one typed result; a single predict's row
reads its configuration's physics arguments, kept (:mod:`~wattgpu_lite.hybrid.predict.one_row`).

- :mod:`~wattgpu_lite.hybrid.predict.api`: ``wl.predict`` and ``wl.predict_many``
  (:mod:`~wattgpu_lite.hybrid.predict.many`: its frame through the steps, a chunk at a time);
  :mod:`~wattgpu_lite.energy.request`: the checked request every entry point and frame row builds
  (and the GPUs a model that does not fit needs);
- :mod:`~wattgpu_lite.hybrid.predict.model`: the shipped state (constants, trees, ranges, tables);
- :mod:`~wattgpu_lite.hybrid.predict.correction`, :mod:`~wattgpu_lite.hybrid.predict.trees`: the
  bounded, monotone correction in log space, its trees evaluated with numpy
  (:mod:`~wattgpu_lite.hybrid.predict.tree_steps`: their code tables, a column's codes by its
  value);
- :mod:`~wattgpu_lite.hybrid.predict.bounds`: the hard floors and power limits;
- :mod:`~wattgpu_lite.hybrid.predict.intervals`: which calibration table (basis) applies, and its
  half-width at a level;
- :mod:`~wattgpu_lite.hybrid.predict.prediction`: the typed ``Prediction``;
  :mod:`~wattgpu_lite.hybrid.predict.explain`: the same prediction term by term;
- :mod:`~wattgpu_lite.hybrid.predict.chain`: what the chapters above ask of the predictor (rows
  and predictions of many plans, the SLA search over loads of
  :mod:`~wattgpu_lite.hybrid.predict.sla`, the layout and memory checks, the entry points) and
  bring your own GPU. Taught in notebook 06.
"""
