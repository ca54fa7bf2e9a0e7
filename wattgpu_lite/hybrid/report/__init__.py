"""What the hybrid's evaluation says, read from the shipped tables or recomputed.

- :mod:`~wattgpu_lite.hybrid.report.results`: per held-out group and pooled — MdAPE with bootstrap
  intervals, coverage, median width (hi/lo) and the interval (Winkler) score;
- :mod:`~wattgpu_lite.hybrid.report.external`, :mod:`~wattgpu_lite.hybrid.report.external_scope`,
  :mod:`~wattgpu_lite.hybrid.report.external_per_gpu`: the check against measurements published
  by other harnesses (``data/external_measurements.csv``; report-only, never fitted).
Taught in notebook 06.
"""
