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


def basis_step(model: HybridState, llms, gpus, odd: np.ndarray) -> np.ndarray:
    """Which calibration table applies per row, as its index into :data:`intervals.BASES`
    (:func:`intervals.basis_code_of`), from whether the GPU's spec and the LLM's architecture
    appear in the training runs (one row's kept per configuration: :func:`one_config.kept_fact`)."""
    if len(llms) == 1:
        key = ("basis", llms[0], gpus[0], bool(odd[0]))
        return one_config.kept_fact(model, key, lambda: _basis(model, llms, gpus, odd))
    return _basis(model, llms, gpus, odd)


def _basis(model: HybridState, llms, gpus, odd: np.ndarray) -> np.ndarray:
    """:func:`basis_step` of any rows."""
    devices, gi = unique_by_identity(gpus)
    models, li = unique_by_identity(llms)
    seen_g = np.array(
        [intervals.gpu_fingerprint(g) in model.seen_gpus for g in devices], dtype=bool
    )[gi]
    seen_l = np.array(
        [intervals.llm_fingerprint(m) in model.seen_llms for m in models], dtype=bool
    )[li]
    return intervals.basis_code_of(seen_l, seen_g, odd)


def intervals_step(
    model: HybridState, rows: backbone.Rows, back: Backbone, basis: np.ndarray, *, level: float
) -> tuple[dict[str, np.ndarray], np.ndarray, dict]:
    """Step 5: the log half-width per target — the basis's (``basis``: :func:`basis_step`'s
    codes) calibrated q at ``level`` plus the widening beyond the training range. Returns
    (half-widths, widening, watched inputs)."""
    watched = {
        "bandwidth_gbs": rows.bandwidth / 1e9,
        "fp16_tflops": rows.flops / 1e12,
        "params_b": rows.params_b,
        "in_flight": np.maximum(back.physics["in_flight"], 1e-3),
        "context_tokens": rows.t_in + rows.t_out,
    }
    widen = np.minimum(
        intervals.WIDEN_PER_EFOLD * intervals.excess_efolds(model, watched), intervals.WIDEN_MAX
    )
    code = 2 * basis + back.offline  # (basis, regime) of each row
    named = np.unique(code).tolist() if len(code) > 1 else code.tolist()
    make = lambda: _q_of(model, named, level)  # noqa: E731
    # one row's q: a table read at the level (its configuration's basis), kept
    q = one_config.kept_fact(model, ("q", *named, level), make) if len(code) == 1 else make()
    half = {t: q[i][code] + widen for i, t in enumerate(TARGETS)}
    return half, widen, watched


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


def bounded_intervals(rows: backbone.Rows, back: Backbone, power, itl, *, floor, half):
    """The intervals at ``half``, held inside the hard bounds (:mod:`bounds`): ITL and its ends
    at least the floor, power and its ends in [P_floor, G · TDP] (the hard power floor, not the
    idle estimate: a measurement may lie below the estimate); time per token ITL / B in batch
    mode (exactly 1 / (λ · T_out) at a steady rate); energy per token power × time per token,
    its ends inside the products of theirs. Returns {quantity: (value, lo, hi)}."""
    itl3 = bounds.bounded(itl, itl * np.exp(-half["itl"]), itl * np.exp(half["itl"]), floor)
    power3 = bounds.bounded(
        power,
        power * np.exp(-half["power"]),
        power * np.exp(half["power"]),
        back.power_floor_w,
        ceiling=rows.replica_tdp_w,
    )
    fixed = back.physics["time_per_token_s"]
    tpt = tuple(np.where(back.offline, v / back.physics["in_flight"], fixed) for v in itl3)
    energy = bounds.energy_bounds(power3, tpt, np.maximum(half["power"], half["itl"]))
    return {"power_w": power3, "itl_s": itl3, "time_per_token_s": tpt, "energy_per_token_j": energy}
