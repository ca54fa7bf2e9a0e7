"""Step 5 of :func:`~wattgpu_lite.hybrid.predict.steps.predict_arrays`: the intervals.

    basis_step → cell_step → intervals_step → bounded_intervals

Which calibration table (basis) applies per row, its log half-width at the level plus the
widening beyond the training range — or, on a row the runs never cover, the quantiles of the
backbone's errors on other harnesses' measurements in its regime
(:func:`cell_step`, :func:`cross_source_widths`) — and the intervals held inside the hard
bounds (:mod:`~wattgpu_lite.hybrid.predict.bounds`).
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
    models, llm_of_row = unique_by_identity(llms)
    gpu_seen = gpus_seen(model, gpus)
    llm_seen = np.array(
        [intervals.llm_fingerprint(m) in model.seen_llms for m in models], dtype=bool
    )[llm_of_row]
    return intervals.basis_code_of(llm_seen, gpu_seen, physics_only)


def gpus_seen(model: HybridState, gpus) -> np.ndarray:
    """Per row, whether its GPU's spec values are a training GPU's (fingerprint, never name)."""
    devices, gpu_of_row = unique_by_identity(gpus)
    seen = [intervals.gpu_fingerprint(g) in model.seen_gpus for g in devices]
    return np.array(seen, dtype=bool)[gpu_of_row]


def intervals_step(
    model: HybridState,
    rows: backbone.Rows,
    backbone_result: Backbone,
    basis: np.ndarray,
    *,
    level: float,
    cells: np.ndarray | None = None,
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], np.ndarray, dict]:
    """Step 5: the log widths (below, above) per target — the basis's (``basis``:
    :func:`basis_step`'s codes) calibrated half-width q at ``level`` plus the widening beyond the
    training range on both sides; on the rows with a cross-source regime cell (``cells``:
    :func:`cell_step`, -1 none) a target the model has a cross-source table for
    takes the cell's quantiles instead, unwidened (:func:`cross_source_widths`). Returns
    (widths, widening, watched inputs)."""
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
    widths = {}
    for i, t in enumerate(TARGETS):
        half = q[i][code] + widen
        widths[t] = (half, half)
        if cells is not None and t in cross_targets(model):
            widths[t] = cross_source_widths(model, t, cells, half, level=level)
    return widths, widen, watched_inputs


TARGETS = ("power", "itl")


def cells_and_widths(
    model: HybridState,
    llms,
    gpus,
    rows: backbone.Rows,
    *,
    backbone_result,
    basis: np.ndarray,
    level: float,
) -> tuple:
    """:func:`cell_step` then :func:`intervals_step`: (cells, widths, widening, watched inputs)."""
    cells = cell_step(model, llms, gpus, rows, backbone_result=backbone_result, basis=basis)
    return cells, *intervals_step(model, rows, backbone_result, basis, level=level, cells=cells)


def cross_targets(model: HybridState) -> dict:
    """The model's cross-source tables per target ({} for a model built without them)."""
    return model.cross_source.get("targets", {})


def cell_step(
    model: HybridState,
    llms,
    gpus,
    rows: backbone.Rows,
    *,
    backbone_result: Backbone,
    basis: np.ndarray,
) -> np.ndarray:
    """Each row's cross-source regime cell, -1 where none: on the rows of basis 'physics' whose
    configuration the runs never cover (MoE, weights below 16 bits, several GPUs:
    :func:`intervals.physics_only`; a dense 16-bit model on one new GPU keeps the runs' intervals
    for new GPUs, widened), the cell 8 · (GPU not seen) + 4 · (several GPUs) + 2 · (more than the
    table's batch split in flight) + (context above its context split): the order in which each
    target's table lists its cells."""
    cells = np.full(len(basis), -1)
    if not cross_targets(model):
        return cells
    at = basis == intervals.BASES.index("physics")
    if at.any():
        at &= intervals.physics_only(llms, rows.num_gpus, rows.model.always_bits)
    if not at.any():
        return cells
    seen = gpus_seen(model, gpus)
    splits = model.cross_source["splits"]
    in_flight = backbone_result.physics["in_flight"]
    code = (
        8 * ~seen
        + 4 * (rows.num_gpus > 1)
        + 2 * (in_flight > splits["batch"])
        + (rows.t_in + rows.t_out > splits["context"])
    )
    return np.where(at, code, -1)


def cross_source_widths(
    model: HybridState, target: str, cells: np.ndarray, half: np.ndarray, *, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """(below, above) log widths of ``target``: on a row with a cell (``cells`` >= 0) the
    cell's log-residual quantiles z = ln(measured / predicted) at (1 ∓ level) / 2, below =
    max(−z_lo, 0) and above = max(z_hi, 0) (the prediction kept inside), linear in the level
    between the table's grid levels; ``half`` (the basis's q plus the widening) elsewhere."""
    make = lambda: _cell_quantiles(cross_targets(model)[target], level)  # noqa: E731
    z = one_config.kept_fact(model, ("cross", target, level), make)
    at, k = cells >= 0, np.maximum(cells, 0)
    below = np.where(at, np.maximum(-z[0][k], 0.0), half)
    return below, np.where(at, np.maximum(z[1][k], 0.0), half)


CROSS_SOURCE_NOTE = "the ITL interval is the spread of the backbone's errors on"
#: what widens beyond the training range: every interval, or the power's beside a cross-source ITL
WIDENED = {False: "the interval", True: "the power interval"}


def cell_note(model: HybridState, cell: int) -> str:
    """What a row's cross-source ITL interval rests on (``cell``: :func:`cell_step`'s), in words."""
    table = cross_targets(model)["itl"]
    c = table["cells"][cell]
    regime = ", ".join(
        ["a GPU of the runs" if c["gpu_seen"] else "a GPU outside the runs", c["replica"]]
        + [f"{c['batch_band']} in flight", f"{c['context_band']} tokens of context"]
    )
    return (
        f"{CROSS_SOURCE_NOTE} {c['rows']} published "
        f"measurements from {c['sources']} source{'s' if c['sources'] > 1 else ''} ({regime}; "
        "data/external_measurements.csv), "
        "not widened; the power interval is calibrated on the Watt Counts runs"
    )


def _cell_quantiles(table: dict, level: float) -> np.ndarray:
    """(2, cells) z_lo and z_hi of every cell of ``table`` at ``level`` (np.interp on the grid)."""
    grid = np.array(table["levels"], dtype=float)
    return np.array(
        [[np.interp(level, grid, cell[end]) for cell in table["cells"]] for end in ("z_lo", "z_hi")]
    )


def _q_of(model: HybridState, named: list[int], level: float) -> np.ndarray:
    """(targets, 2 · bases) q of each (basis, regime) code in ``named`` at ``level``
    (:func:`intervals.q_at`), 0 at the others."""
    q = np.zeros((len(TARGETS), 2 * len(intervals.BASES)))
    for i, t in enumerate(TARGETS):  # q of each (basis, regime) the rows name, once
        for k in named:
            regime = "offline" if k % 2 else "server"
            q[i, k] = intervals.q_at(model.tables, intervals.BASES[k // 2], t, regime, level=level)
    return q


def bounded_intervals(rows: backbone.Rows, backbone_result: Backbone, power, itl, *, floor, widths):
    """The intervals at the log ``widths`` (below, above) per target, held inside the hard bounds
    (:mod:`bounds`): ITL and its ends at least the floor, power and its ends in [P_floor, G · TDP]
    (the hard power floor, not the idle estimate: a measurement may lie below the estimate);
    time per token ITL / B in batch mode (exactly 1 / (λ · T_out) at a steady rate); energy per
    token power × time per token, its ends inside the products of theirs. Returns {quantity:
    (value, lo, hi)}."""
    (itl_below, itl_above), (power_below, power_above) = widths["itl"], widths["power"]
    itl_with_ends = bounds.bounded(itl, itl * np.exp(-itl_below), itl * np.exp(itl_above), floor)
    power_with_ends = bounds.bounded(
        power,
        power * np.exp(-power_below),
        power * np.exp(power_above),
        backbone_result.power_floor_w,
        ceiling=rows.replica_tdp_w,
    )
    fixed = backbone_result.physics["time_per_token_s"]
    time_per_token = tuple(
        np.where(backbone_result.offline, v / backbone_result.physics["in_flight"], fixed)
        for v in itl_with_ends
    )
    energy = bounds.energy_bounds(
        power_with_ends,
        time_per_token,
        np.maximum(power_below, itl_below),
        np.maximum(power_above, itl_above),
    )
    return {
        "power_w": power_with_ends,
        "itl_s": itl_with_ends,
        "time_per_token_s": time_per_token,
        "energy_per_token_j": energy,
    }
