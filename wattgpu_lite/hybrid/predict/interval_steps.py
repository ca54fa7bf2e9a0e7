"""Step 5 of :func:`~wattgpu_lite.hybrid.predict.steps.predict_arrays`: the intervals.

    basis_step → intervals_step → bounded_intervals

Which calibration table (basis) applies per row, its log half-width at the level plus the
widening beyond the training range, and the intervals held inside the hard bounds
(:mod:`~wattgpu_lite.hybrid.predict.bounds`).
"""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy import backbone
from wattgpu_lite.energy.uniques import unique_by_identity
from wattgpu_lite.hybrid.predict import bounds, intervals, one_config
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.result import Backbone


def basis_step(model: HybridState, llms, gpus, physics_only: np.ndarray) -> np.ndarray:
    """Which calibration table applies per row, as its index into :data:`intervals.BASES`
    (:func:`intervals.basis_code_of`), from whether the GPU's spec and the LLM's architecture
    appear in the training runs (one row's kept per configuration: :func:`one_config.kept_fact`)."""
    if len(llms) == 1:
        key = ("basis", llms[0], gpus[0], bool(physics_only[0]))
        return one_config.kept_fact(model, key, lambda: _basis(model, llms, gpus, physics_only))
    return _basis(model, llms, gpus, physics_only)


def _basis(model: HybridState, llms, gpus, physics_only: np.ndarray) -> np.ndarray:
    """:func:`basis_step` of any rows."""
    devices, gpu_of_row = unique_by_identity(gpus)
    models, llm_of_row = unique_by_identity(llms)
    gpu_seen = np.array(
        [intervals.gpu_fingerprint(g) in model.seen_gpus for g in devices], dtype=bool
    )[gpu_of_row]
    llm_seen = np.array(
        [intervals.llm_fingerprint(m) in model.seen_llms for m in models], dtype=bool
    )[llm_of_row]
    return intervals.basis_code_of(llm_seen, gpu_seen, physics_only)


def intervals_step(
    model: HybridState,
    rows: backbone.Rows,
    backbone_result: Backbone,
    basis: np.ndarray,
    *,
    level: float,
) -> tuple[dict[str, np.ndarray], np.ndarray, dict]:
    """Step 5: the log half-width per target — the basis's (``basis``: :func:`basis_step`'s
    codes) calibrated q at ``level`` plus the widening beyond the training range. Returns
    (half-widths, widening, watched inputs)."""
    watched_inputs = {
        "bandwidth_gbs": rows.bandwidth / 1e9,
        "fp16_tflops": rows.flops / 1e12,
        "params_b": rows.params_b,
        "in_flight": np.maximum(backbone_result.physics["in_flight"], 1e-3),
        "context_tokens": rows.t_in + rows.t_out,
    }
    widen = np.minimum(
        intervals.WIDEN_PER_EFOLD * intervals.excess_efolds(model, watched_inputs),
        intervals.WIDEN_MAX,
    )
    code = 2 * basis + backbone_result.offline  # (basis, regime) of each row
    named = np.unique(code).tolist() if len(code) > 1 else code.tolist()
    make = lambda: _q_of(model, named, level)  # noqa: E731
    # one row's q: a table read at the level (its configuration's basis), kept
    q = one_config.kept_fact(model, ("q", *named, level), make) if len(code) == 1 else make()
    half_width_log = {t: q[i][code] + widen for i, t in enumerate(TARGETS)}
    return half_width_log, widen, watched_inputs


TARGETS = ("power", "itl")


def _q_of(model: HybridState, named: list[int], level: float) -> np.ndarray:
    """(targets, 2 · bases) q of each (basis, regime) code in ``named`` at ``level``
    (:func:`intervals.q_at`), 0 at the others."""
    q = np.zeros((len(TARGETS), 2 * len(intervals.BASES)))
    for i, t in enumerate(TARGETS):  # q of each (basis, regime) the rows name, once
        for k in named:
            regime = "offline" if k % 2 else "server"
            q[i, k] = intervals.q_at(model.tables, intervals.BASES[k // 2], t, regime, level=level)
    return q


def bounded_intervals(
    rows: backbone.Rows, backbone_result: Backbone, power, itl, *, floor, half_width_log
):
    """The intervals at ``half_width_log``, held inside the hard bounds (:mod:`bounds`): ITL and its ends
    at least the floor, power and its ends in [P_floor, G · TDP] (the hard power floor, not the
    idle estimate: a measurement may lie below the estimate); time per token ITL / B in batch
    mode (exactly 1 / (λ · T_out) at a steady rate); energy per token power × time per token,
    its ends inside the products of theirs. Returns {quantity: (value, lo, hi)}."""
    itl_with_ends = bounds.bounded(
        itl, itl * np.exp(-half_width_log["itl"]), itl * np.exp(half_width_log["itl"]), floor
    )
    power_with_ends = bounds.bounded(
        power,
        power * np.exp(-half_width_log["power"]),
        power * np.exp(half_width_log["power"]),
        backbone_result.power_floor_w,
        ceiling=rows.replica_tdp_w,
    )
    fixed = backbone_result.physics["time_per_token_s"]
    time_per_token = tuple(
        np.where(backbone_result.offline, v / backbone_result.physics["in_flight"], fixed)
        for v in itl_with_ends
    )
    energy = bounds.energy_bounds(
        power_with_ends, time_per_token, np.maximum(half_width_log["power"], half_width_log["itl"])
    )
    return {
        "power_w": power_with_ends,
        "itl_s": itl_with_ends,
        "time_per_token_s": time_per_token,
        "energy_per_token_j": energy,
    }
