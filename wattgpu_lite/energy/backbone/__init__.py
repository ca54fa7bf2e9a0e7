"""The physics backbone: per-request ITL, time per token and mean power of an LLM served on a GPU.

Per request and phase, :mod:`wattgpu_lite.energy.physical` gives the energy terms and the roofline
time at a batch of B sequences (weights read once per step and shared by the batch; KV reads growing
with the context; compute growing with B; a power ceiling). On top of it, with B the sequences in
flight and T_out the generated tokens:

- step time  s(B) = B · t_req(B) / T_out + t_host(B),  t_req = prefill + decode time per request
  at the kernels' achieved bandwidth η_bw·BW and compute η_f·F; t_host(B) = c_step + c_seq·B the
  host's time per step (:func:`host_step_s`: a fixed cost — scheduling, kernel launches; a
  per-layer share is not identifiable from the runs, :mod:`~wattgpu_lite.energy.backbone.constants_fit` —
  and a cost per sequence in flight — batching its inputs, sampling, detokenising);
- per-request ITL = s(1 + L) at a rate (a request sees its L neighbours, M/G/∞), s(B) at a batch;
  time per token (1/throughput) = s(B)/B in batch mode, 1/(λ·T_out) at a rate;
- in flight at a rate λ: L = λ·W(1 + L), W = T_out·ITL, the smallest root; beyond the
  capacity B_max / W(B_max) no steady state exists;
- busy power P_busy(B) = P_idle + E_dyn per step / s(B), capped at the TDP, and its peak over B;
  mean power P_idle + u·(P_busy(L/u) − P_idle) with u = 1 − e^(−L) the share of time with a
  request in flight.

The step and its power (rows, constants, s(B), raw busy power) are in
:mod:`~wattgpu_lite.energy.backbone.step_power`; the load and the peak batch are solved on the step's
pieces (:func:`step_pieces`, one call) in :mod:`~wattgpu_lite.energy.backbone.solves`: s(B) is a
sum of maxes and mins of terms affine in B (a dense model; a MoE adds the experts a step touches,
a concave term), so the load is a root of a line on the first piece where Little's law turns, and
the peak the best breakpoint or end (Newton on dP/dB for a MoE's curved pieces): exact to the last
bits (:mod:`~wattgpu_lite.energy.backbone.searches`). The bracketed searches they replaced are the
references of the tests (tests/energy/reference_searches.py).

Every function takes and returns numpy arrays (one value per row); all rows are computed at once.
"""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy import physical
from wattgpu_lite.energy.args import Workload
from wattgpu_lite.energy.backbone import searches

# the backbone's one namespace: its step's names (``x as x``: re-exported) and its solves'
from wattgpu_lite.energy.backbone.solves import in_flight_at_rate, peak_batch
from wattgpu_lite.energy.backbone.step_power import PEAK_KINDS as PEAK_KINDS
from wattgpu_lite.energy.backbone.step_power import (
    Constants,
    Rows,
    achieved_deploy,
    achieved_hw,
    host_step_s,
    idle_power_w,
    request_call,
    step_pieces,
    step_time_s,
    terms_of,
)
from wattgpu_lite.energy.backbone.step_power import flops_share as flops_share
from wattgpu_lite.energy.backbone.step_power import pieces_from as pieces_from
from wattgpu_lite.energy.backbone.step_power import power_floor_w as power_floor_w
from wattgpu_lite.energy.backbone.step_power import raw_busy_power_w as raw_busy_power_w
from wattgpu_lite.energy.backbone.step_power import step_arguments as step_arguments
from wattgpu_lite.energy.backbone.step_power import step_from_times as step_from_times
from wattgpu_lite.energy.float_twin import maximum, minimum


def decode_window(rows: Rows, batch: np.ndarray, c: Constants) -> dict[str, np.ndarray]:
    """A static batch's decode steps alone, as a static-batch harness runs and times them (every
    prompt prefilled before the first decode step, TPOT without the first token):
    s_dec(B) = B · t_dec(B) / T_out + t_host(B), and the busy power over those steps
    P_dec(B) = P_idle + B · E_dec(B) / T_out / s_dec(B), at most the TDP (t_dec and E_dec the
    decode phase's time and dynamic energy per request; the prefill terms → 0 of
    :func:`step_time_s` and :func:`raw_busy_power_w`)."""
    workload = Workload(t_in=rows.t_in, t_out=rows.t_out, batch=batch)
    terms, times = physical.physical_evaluate(
        rows.model, workload, achieved_hw(rows, c), kappa=c.kappa, deploy=achieved_deploy(rows, c)
    )
    dynamic = sum(
        v
        for (phase, comp), v in terms.items()
        if phase == "decode" and comp not in ("static", "communication")
    )
    step = batch * np.asarray(times["decode"], dtype=float) / rows.t_out + host_step_s(batch, c)
    power = idle_power_w(rows, c) + np.asarray(dynamic, dtype=float) * batch / rows.t_out / step
    return {"itl_s": step, "power_w": np.minimum(power, rows.replica_tdp_w)}


def step_and_power(rows: Rows, points: np.ndarray, c: Constants) -> tuple[np.ndarray, ...]:
    """(step time s, raw busy power W) at ``points`` (n, m): one call of the physics over the
    (m, n) grid of each row's m batches (:func:`step_time_s`, :func:`raw_busy_power_w`), each
    row's arguments broadcast over its batches, none gathered. The physics is elementwise: a
    point is the value its row gives alone (one equal to another is evaluated again, alike)."""
    batch = points.T  # the rows along the last axis, which the physics' blocks split
    found = physical.physical_reduced(terms_of, **request_call(rows, batch, c))
    return tuple(v.T for v in step_and_power_from(rows, batch, found, c))


def step_and_power_from(
    rows: Rows, batch: np.ndarray, found: tuple[np.ndarray, np.ndarray], c: Constants
) -> tuple[np.ndarray, np.ndarray]:
    """(s(B) = B · t_req / T_out + t_host(B) [s], raw busy power
    min(P_idle + dynamic · B / T_out / s(B), TDP) [W]) from ``found`` = (t_req, dynamic) of
    :func:`terms_of` at ``batch`` (one value per row)."""
    t_req, dynamic = found
    step = batch * t_req / rows.t_out + host_step_s(batch, c)
    power = np.minimum(
        idle_power_w(rows, c) + dynamic * batch / rows.t_out / step, rows.replica_tdp_w
    )
    return step, power


def busy_power_w(
    rows: Rows, batch: np.ndarray, c: Constants, pieces: searches.Pieces | None = None
) -> np.ndarray:
    """Mean power while serving ``batch`` sequences [W]: the raw power at this batch, or at the
    peak batch below it if that is higher. Past the point where a step turns compute-bound the
    raw figure can dip; a board serving more sequences keeps its clocks and traffic, so the kit
    never lets power fall with load. max(P_raw(B), P_raw(1), P_raw(B_peak on [1, B])), one call
    (and one for the pieces unless ``pieces`` is given)."""
    return _steps_and_busy(rows, batch, batch, c, pieces=pieces)[1]


def _steps_and_busy(
    rows: Rows,
    step_at: np.ndarray,
    batch: np.ndarray,
    c: Constants,
    *,
    pieces: searches.Pieces | None,
) -> tuple[np.ndarray, np.ndarray]:
    """(s(step_at), busy_power_w(batch)) in one call of the physics after the peak's pieces."""
    step, power = step_and_power(rows, busy_points(rows, step_at, batch, c, pieces=pieces), c)
    return steps_and_busy_from(step, power)


def busy_points(
    rows: Rows,
    step_at: np.ndarray,
    batch: np.ndarray,
    c: Constants,
    *,
    pieces: searches.Pieces | None,
) -> np.ndarray:
    """The (n, 4) batches :func:`_steps_and_busy` evaluates: ``step_at``, ``batch``, 1 and the
    peak batch on [1, ``batch``] (:func:`peak_batch`). One row: from its floats (numpy's
    minimum, :mod:`~.float_twin`)."""
    n = len(rows.t_in)
    if n == 1 and np.shape(step_at) == (1,) and np.shape(batch) == (1,):
        b, peak = float(batch[0]), peak_batch(rows, c, upper=batch, pieces=pieces)
        return np.array([[float(step_at[0]), b, 1.0, minimum(float(peak[0]), b)]])
    batch = np.asarray(batch, dtype=float) * np.ones(n)
    peak = np.minimum(peak_batch(rows, c, upper=batch, pieces=pieces), batch)
    out = np.empty((n, 4))  # the columns set one by one (np.stack's values, without its call)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = step_at, batch, 1.0, peak
    return out


def steps_and_busy_from(step: np.ndarray, power: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s at the first point, max(P_raw(B), P_raw(1), P_raw(B_peak))) from the step times and raw
    powers (n, 4) at :func:`busy_points`."""
    return step[:, 0], np.max(power[:, 1:], axis=1)


def capacity_qps(rows: Rows, cap: np.ndarray, c: Constants) -> np.ndarray:
    """Highest request rate a replica sustains [req/s]: cap sequences finishing every
    T_out steps of s(cap): cap / (T_out · s(cap))."""
    return capacity_from_step(rows, cap, step_time_s(rows, cap, c))


def capacity_from_step(rows: Rows, cap: np.ndarray, step_s: np.ndarray) -> np.ndarray:
    """:func:`capacity_qps` from s(cap) [s]: cap / (T_out · s(cap))."""
    return cap / (rows.t_out * step_s)


def at_batch(rows: Rows, batch: np.ndarray, c: Constants) -> dict[str, np.ndarray]:
    """A fixed batch (offline): ITL = s(B), time per token s(B)/B, power P_busy(B), from one
    call of the physics at :func:`busy_points` but its first (the step's batch is B itself)."""
    points = busy_points(rows, batch, batch, c, pieces=step_pieces(rows, c))[:, 1:]
    step, power = step_and_power(rows, points, c)
    return batch_outputs(batch, step[:, 0], np.max(power, axis=1))


def batch_outputs(batch: np.ndarray, step: np.ndarray, power: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`at_batch`'s outputs from s(B) and P_busy(B): ITL s(B), time per token s(B)/B."""
    return {
        "in_flight": batch,
        "itl_s": step,
        "time_per_token_s": step / batch,
        "power_w": power,
        "busy_fraction": np.ones_like(step),
    }


def at_rate(
    rows: Rows, rate_qps: np.ndarray, cap: np.ndarray, c: Constants
) -> dict[str, np.ndarray]:
    """Poisson arrivals at λ: ITL = s(1 + L), time per token 1/(λ·T_out), mean power
    P_idle + u·(P_busy(L/u) − P_idle) with u = 1 − e^(−L)."""
    pieces = step_pieces(rows, c)  # one call: the load and the peak are solved on it
    load, busy, step_at, busy_batch = rate_loads(rows, rate_qps, cap, c, pieces=pieces)
    itl, p_busy = _steps_and_busy(rows, step_at, busy_batch, c, pieces=pieces)
    return rate_outputs(rows, rate_qps, load, busy, itl=itl, p_busy=p_busy, c=c)


def rate_loads(
    rows: Rows, rate_qps: np.ndarray, cap: np.ndarray, c: Constants, *, pieces: searches.Pieces
) -> tuple[np.ndarray, ...]:
    """(L, u, the step's batch min(1 + L, cap), the busy batch max(L/u, 1)) at Poisson rate λ:
    L in flight (:func:`in_flight_at_rate` on ``pieces``), u = 1 − e^(−L) the busy share."""
    load = in_flight_at_rate(rows, rate_qps, cap, c, pieces=pieces)
    busy = -np.expm1(-load)
    if load.shape == (1,) and np.shape(cap) == (1,):  # one row: its floats, numpy's min and max
        x, u = float(load[0]), float(busy[0])
        at = [minimum(1.0 + x, float(cap[0])), maximum(x / maximum(u, 1e-300), 1.0)]
        return load, busy, np.array(at[:1]), np.array(at[1:])
    return load, busy, np.minimum(1.0 + load, cap), np.maximum(load / np.maximum(busy, 1e-300), 1.0)


def rate_outputs(
    rows: Rows,
    rate_qps: np.ndarray,
    load: np.ndarray,
    busy: np.ndarray,
    *,
    itl: np.ndarray,
    p_busy: np.ndarray,
    c: Constants,
    p_idle: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """:func:`at_rate`'s outputs from the load (:func:`rate_loads`), s(1 + L) and P_busy(L/u):
    time per token 1/(λ·T_out), mean power P_idle + u·(P_busy − P_idle) (``p_idle``:
    :func:`idle_power_w` when the caller has it)."""
    p_idle = idle_power_w(rows, c) if p_idle is None else p_idle
    return {
        "in_flight": load,
        "itl_s": itl,
        "time_per_token_s": 1.0 / (rate_qps * rows.t_out),
        "power_w": p_idle + busy * (p_busy - p_idle),
        "busy_fraction": busy,
    }
