"""Chapter 1 — the analytical energy model of "From Tokens to Watt-hours", and a physical one.

- :mod:`~wattgpu_lite.energy.symbolic`: the paper's equations once, as sympy expressions (the
  derivation); :mod:`~wattgpu_lite.energy.symbolic_physical` physical mode's (active-parameter FLOPs,
  the experts a batch touches, precision), :mod:`~wattgpu_lite.energy.symbolic_parallel` what a
  replica's layout adds to a step (collectives, expert groups); symbols, units and meanings in
  :mod:`~wattgpu_lite.energy.glossary`;
- :mod:`~wattgpu_lite.energy.paper`: the printed equations, lambdified, constants as arguments;
- :mod:`~wattgpu_lite.energy.physical`: ONE generated function for all physical terms; argument tuples
  in :mod:`~wattgpu_lite.energy.args`; coefficients per GPU in :mod:`~wattgpu_lite.energy.hardware`;
  weight formats and compute peaks in :mod:`~wattgpu_lite.energy.precision`; batch occupancy (vLLM's
  KV capacity, an offline run's mean) in :mod:`~wattgpu_lite.energy.occupancy`; many calls as one
  in :mod:`~wattgpu_lite.energy.many_calls`;
- :mod:`~wattgpu_lite.energy.estimate`: ``wl.estimate_energy`` -> :class:`~wattgpu_lite.energy.result.EnergyEstimate`
  (refusals and notes in :mod:`~wattgpu_lite.energy.notes`; tidy table in
  :mod:`~wattgpu_lite.energy.breakdown`);
- :mod:`~wattgpu_lite.energy.request`: the one checked request (LLM, GPU, layout, formats, engine,
  load, tokens, level) that ``wl.estimate_energy``, ``wl.predict`` and ``wl.rank_gpus`` build;
- :mod:`~wattgpu_lite.energy.sweeps` (components over output length, batch, model size, GPU count) and
  :mod:`~wattgpu_lite.energy.traffic` (bytes before joules);
- :mod:`~wattgpu_lite.energy.coefficients`: the constants, each with its source;
  :mod:`~wattgpu_lite.energy.audit`: the paper's Tables 3 and 4 under two readings;
- **one physics engine** :mod:`~wattgpu_lite.energy.backbone`: the serving model (step time at the
  achieved bandwidth and FLOP/s plus a fixed cost, Little's law at a rate, busy power between idle
  and TDP) that ``wl.estimate_energy`` (split into terms by
  :mod:`~wattgpu_lite.energy.backbone.energy_terms`) and the hybrid predictor share, with per-row arrays
  from :mod:`~wattgpu_lite.energy.backbone.row_arrays`, its training runs in
  :mod:`~wattgpu_lite.energy.backbone.training_runs`, its six constants fitted by
  :mod:`~wattgpu_lite.energy.backbone.constants_fit`, and its vectorised solves on the step's pieces
  (peak batch, load in flight) in :mod:`~wattgpu_lite.energy.backbone.solves` on
  :mod:`~wattgpu_lite.energy.backbone.searches`, the step and its power in
  :mod:`~wattgpu_lite.energy.backbone.step_power`;
- :mod:`~wattgpu_lite.energy.validation`: every mode against the measured energy per token, physical
  mode's six constants refitted leave-one-GPU-out.

Taught in notebooks 01 (the derivation, the paper's tables, the audit, the check against
measurements) and 02 (where the joules go). Imports :mod:`wattgpu_lite.specs` and
:mod:`wattgpu_lite.runs` only.
"""
