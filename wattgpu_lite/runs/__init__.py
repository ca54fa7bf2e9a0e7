"""The measurements: the Watt Counts runs (4,163 dense vLLM runs of 42 LLMs on 8 GPUs).

- :mod:`~wattgpu_lite.runs.schema`: the table's columns, the scenarios and their request rates,
  and the one rule from a request rate to a scenario (:func:`scenario_for_rate`);
- :mod:`~wattgpu_lite.runs.table`: reading and validating the shipped table (columns, ranges,
  sha256);
- :mod:`~wattgpu_lite.runs.upstream`: the pinned upstream download, with the paper's exact ITL;
- :mod:`~wattgpu_lite.runs.training`: the check of a runs table a model is fitted on;
- :mod:`~wattgpu_lite.runs.measurements`: the public face, ``wl.measurements()``.

Taught in notebooks 00 and 03. Imports only :mod:`wattgpu_lite.specs` (and the top-level modules).
"""
