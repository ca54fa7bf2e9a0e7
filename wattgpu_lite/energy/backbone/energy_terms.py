"""One physics engine: the backbone's step time and power, split into physical mode's energy terms.

Physical mode (``wl.estimate_energy``) and the hybrid predictor's backbone
(``wl.predict(..., correction=False)``) are one model with one set of constants: the shipped
model's, fitted on every dense Watt Counts run and other harnesses' published rows
(:func:`shipped_constants`). For ``B`` sequences
sharing each step (:mod:`wattgpu_lite.energy.backbone`):

- time per request       t = T_out · s(B) / B,  s(B) = B · t_req(B) / T_out + c_step;
- energy per request     E = P_busy(B) · t  (the replica's busy power: idle plus dynamic energy per
  step over the step time, never falling with load, at most G · TDP);
- energy per output token  E / T_out = P_busy(B) · s(B) / B,  what ``wl.predict`` reports.

The terms of :func:`wattgpu_lite.energy.physical.physical_evaluate`, at the achieved rates
η_bw · BW and η_f · F and the backbone's κ, split E: the dynamic terms (compute, parameter reads,
KV writes, attention reads) scaled by one factor f so that they add up to (P_busy − P_idle) · t
(f = 1 unless the power is held at its peak past the compute-bound turn or capped at the TDP),
"static" the replica's idle draw for the roofline time and the host's step time, "communication"
its idle draw during the layout's term (collectives, expert groups).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.energy import backbone, physical
from wattgpu_lite.energy.args import Workload
from wattgpu_lite.jsonfiles import read_json

SHIPPED_MODEL_DIR = "models/wattgpu_hybrid"  # built by data/scripts/build_hybrid_model.py
DYNAMIC = ("compute", "parameter_reads", "kv_writes", "attention_reads")


@lru_cache(maxsize=1)
def shipped_constants() -> backbone.Constants:
    """The backbone's constants as the shipped ``state.json`` holds them (fitted on every dense
    Watt Counts run and other harnesses' rows; one cached read): physical mode and the hybrid
    predictor both use them."""
    state = read_json(data_dir() / SHIPPED_MODEL_DIR / "state.json", what="hybrid model state")
    return backbone.Constants(**state["constants"])


def request_breakdown(
    rows: backbone.Rows, batch: np.ndarray, c: backbone.Constants
) -> tuple[dict[tuple[str, str], np.ndarray], dict[str, np.ndarray]]:
    """({(phase, component): J per request of the replica}, {step_time_s, power_w,
    request_time_s, idle_power_w, dynamic_scale}) at ``batch`` sequences per step.

    The terms add up to power_w · request_time_s (see the module docstring for the split)."""
    batch = np.asarray(batch, dtype=float) * np.ones(len(rows.t_in))
    workload = Workload(t_in=rows.t_in, t_out=rows.t_out, batch=batch)
    terms, _ = physical.physical_evaluate(
        rows.model,
        workload,
        backbone.achieved_hw(rows, c),
        kappa=c.kappa,
        deploy=backbone.achieved_deploy(rows, c),
    )
    step = backbone.step_time_s(rows, batch, c)
    power = backbone.busy_power_w(rows, batch, c)
    request = rows.t_out * step / batch
    idle = backbone.idle_power_w(rows, c)
    dynamic = sum(v for (_, comp), v in terms.items() if comp in DYNAMIC)
    scale = np.where(dynamic > 0, (power - idle) * request / np.maximum(dynamic, 1e-300), 1.0)
    fixed = idle * rows.t_out * backbone.host_step_s(batch, c) / batch
    out = {}
    for (phase, comp), value in terms.items():
        if comp in DYNAMIC:
            value = value * scale
        elif comp == "static" and phase == "decode":
            value = value + fixed  # the host's time of every decode step, at idle power
        out[(phase, comp)] = np.asarray(value, dtype=float) * np.ones(len(batch))
    return out, {
        "step_time_s": step,
        "power_w": power,
        "request_time_s": request,
        "idle_power_w": idle,
        "dynamic_scale": scale,
    }
