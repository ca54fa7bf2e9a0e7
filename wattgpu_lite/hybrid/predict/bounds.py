"""Hard physical bounds on every prediction and interval bound: the step floor and the power range.

No kernel streams bytes faster than the memory's peak bandwidth, nor computes faster than the
format's peak FLOP/s, so one decode step of B sequences on a replica of G GPUs takes at least

    s_floor(B) = max( Q_step / (G · BW_peak),  (C_step − C_e) / (G · F_peak) + C_e / (G · F_e) )

with Q_step the bytes a step must read (the weights every token needs, the experts B tokens touch,
the KV cache at the mean context, the KV it writes) and C_step its FLOPs, of which C_e the routed
experts' — each tensor group at the peak of its own format (gpt-oss: bf16 attention at the FP16
peak, MXFP4 experts at the FP4 peak) — the backbone's own
accounting (:mod:`wattgpu_lite.energy.symbolic_physical`) at η = 1, with no fixed cost, no
communication and no power ceiling: every active weight read once per step. And a replica's mean power lies in
[P_floor(G), G · TDP], P_floor the hard floor of :func:`wattgpu_lite.energy.backbone.power_floor_w` (a
spec's idle power, else 0.125 · TDP per GPU: below every measured run), not the fitted idle
estimate above it, below which measurements do fall. Energy per token is power × time per token, and its bounds lie within the
products of the bounded power and time bounds: no energy bound implies a power outside that range.

The learned correction may move an answer only inside these bounds: :func:`bounded` is the last
step of every prediction (``wl.predict``, ``predict_many``, ``rank_gpus``, the CLI, the dashboard).
"""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy import backbone, many_calls, physical
from wattgpu_lite.energy.args import Hardware, Workload, expert_flops_per_token
from wattgpu_lite.energy.backbone import Rows

UNBOUNDED_W = 1e300  # a power limit no step reaches: the floor has no power ceiling


def floor_step_s(rows: Rows, batch: np.ndarray) -> np.ndarray:
    """s_floor(B) [s]: one decode step of ``batch`` sequences at the replica's peak bandwidth and
    peak FLOP/s of each tensor group's format, weights read once per step (module docstring)."""
    batch = _per_row(rows, batch)
    return _floor_from(rows.t_out, batch, physical.physical_evaluate(**_floor_call(rows, batch))[1])


def floor_and_per_flop(rows: Rows, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(:func:`floor_step_s`, :func:`bytes_per_flop`) at ``batch``, (s_floor s, bytes per FLOP)
    from one call of the physics that keeps only the decode time and the decode terms they read
    (:func:`~wattgpu_lite.energy.physical.physical_reduced`): the same values."""
    batch = _per_row(rows, batch)
    stacked = many_calls.stacked_calls(floor_calls(rows, batch))  # one call over (2, rows)
    found = physical.physical_reduced(_floor_terms, **stacked)
    terms = {("decode", c): v[1] for c, v in zip(PER_FLOP_TERMS, found[1:], strict=True)}
    return _floor_from(rows.t_out, batch, {"decode": found[0][0]}), _per_flop_from(terms)


PER_FLOP_TERMS = ("parameter_reads", "kv_writes", "attention_reads", "compute")  # decode's


def _floor_terms(terms: dict, times: dict) -> list:
    """The decode time and the decode terms of :data:`PER_FLOP_TERMS` (a reduce of
    :func:`~wattgpu_lite.energy.physical.physical_reduced`)."""
    return [times["decode"], *(terms["decode", c] for c in PER_FLOP_TERMS)]


def floor_calls(rows: Rows, batch: np.ndarray) -> list[dict]:
    """physical_evaluate's arguments for :func:`floor_step_s` and :func:`bytes_per_flop` (a batch
    per row)."""
    return [_floor_call(rows, batch), _per_flop_call(rows, batch)]


def floors_from(t_out: np.ndarray, batch: np.ndarray, found: list) -> tuple[np.ndarray, np.ndarray]:
    """(s_floor s, bytes per FLOP) from the first two evaluations ``found``, of
    :func:`floor_calls`."""
    return _floor_from(t_out, batch, found[0][1]), _per_flop_from(found[1][0])


def _per_row(rows: Rows, batch) -> np.ndarray:
    """``batch`` as one float per row (the caller's array when it is one)."""
    batch = np.asarray(batch, dtype=float)
    return batch if batch.shape == rows.t_in.shape else batch * np.ones(len(rows.t_in))


def _floor_call(rows: Rows, batch: np.ndarray) -> dict:
    """The physics at η = 1, each group at its format's peak, no power limit, no communication."""
    hw = Hardware(
        alpha_j_per_flop=rows.alpha,
        e_j_per_bit=rows.e_bit,
        peak_flops=rows.flops,
        bandwidth_bytes_s=rows.bandwidth,
        tdp_w=np.full_like(rows.tdp_w, UNBOUNDED_W),
        static_w=np.zeros_like(rows.tdp_w),
        expert_alpha_j_per_flop=rows.alpha_expert,
        expert_peak_flops=rows.flops_expert,
    )
    zero = np.zeros_like(rows.deploy.num_gpus)
    ideal = rows.deploy._replace(
        link_bytes_s=np.full_like(zero, UNBOUNDED_W),
        collective_latency_s=zero,
        hop_latency_s=zero,
        expert_dispatch=zero,
        expert_group_s=zero,
    )
    workload = Workload(t_in=rows.t_in, t_out=rows.t_out, batch=batch)
    return {
        "model": rows.model,
        "workload": workload,
        "hardware": hw,
        "kappa": 1.0,
        "deploy": ideal,
    }


def _floor_from(t_out: np.ndarray, batch: np.ndarray, times: dict) -> np.ndarray:
    return np.asarray(times["decode"], dtype=float) * batch / t_out


def step_batch(in_flight: np.ndarray, offline: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Sequences sharing the decode step a request sees: the batch in batch mode, 1 + L (at most
    the KV capacity) at a rate, L the mean requests in flight."""
    return np.where(offline, in_flight, np.minimum(1.0 + in_flight, cap))


def bytes_per_flop(rows: Rows, batch: np.ndarray) -> np.ndarray:
    """Q_step / C_step [B/FLOP]: bytes one decode step of ``batch`` sequences reads and writes per
    FLOP it computes, by the floor's accounting (weights at their widths, the gathered rows, the
    KV cache window-bounded). Falls as the batch grows: the weights are shared, the FLOPs are not."""
    call = _per_flop_call(rows, _per_row(rows, batch))
    return _per_flop_from(physical.physical_evaluate(**call)[0])


def _per_flop_call(rows: Rows, batch: np.ndarray) -> dict:
    """The physics at unit energy coefficients: its decode terms are bits and FLOPs."""
    unit = np.ones_like(rows.tdp_w)
    hw = Hardware(
        alpha_j_per_flop=unit,
        e_j_per_bit=unit,
        peak_flops=rows.flops,
        bandwidth_bytes_s=rows.bandwidth,
        tdp_w=np.full_like(unit, UNBOUNDED_W),
        static_w=0.0 * unit,
        expert_alpha_j_per_flop=unit,
        expert_peak_flops=rows.flops_expert,
    )
    workload = Workload(t_in=rows.t_in, t_out=rows.t_out, batch=batch)
    return {
        "model": rows.model,
        "workload": workload,
        "hardware": hw,
        "kappa": 1.0,
        "deploy": rows.deploy,
    }


def _per_flop_from(terms: dict) -> np.ndarray:
    bits = sum(terms["decode", c] for c in ("parameter_reads", "kv_writes", "attention_reads"))
    return np.asarray(bits / 8.0 / terms["decode", "compute"], dtype=float)


def bounded(
    value: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    floor: np.ndarray,
    *,
    ceiling: np.ndarray | None = None,
) -> tuple[np.ndarray, ...]:
    """(value, lo, hi) moved into [floor, ceiling] (ceiling None: no upper bound), ordered."""
    clip = [np.maximum(v, floor) for v in (value, lo, hi)]  # min(x, +inf) = x, NaN too
    if ceiling is not None:
        clip = [np.minimum(v, ceiling) for v in clip]
    return clip[0], np.minimum(clip[1], clip[0]), np.maximum(clip[2], clip[0])


def energy_bounds(
    power: tuple[np.ndarray, ...],
    time: tuple[np.ndarray, ...],
    below: np.ndarray,
    above: np.ndarray | None = None,
) -> tuple[np.ndarray, ...]:
    """(E, E_lo, E_hi) per token: E = power × time per token; the bounds E·e^(−below) and
    E·e^(+above) (``above`` None: ``below``, a symmetric half-width) held inside
    [P_lo · t_lo, P_hi · t_hi], the products of the bounded power and time bounds, so no energy
    bound implies a power outside [P_floor, G · TDP] or a time faster than the floor."""
    above = below if above is None else above
    value = power[0] * time[0]
    lo = np.minimum(np.maximum(value * np.exp(-below), power[1] * time[1]), value)
    hi = np.maximum(np.minimum(value * np.exp(above), power[2] * time[2]), value)
    return value, lo, hi


def decode_parts(rows: Rows, batch: np.ndarray, c: backbone.Constants) -> dict:
    """One decode step of ``batch`` sequences (row 0) taken apart: ``bytes`` [B] and ``flops``
    [FLOP] per tensor group (the physics at unit energy coefficients counts bits and FLOPs), the
    step-time ``terms`` [s] — memory Q/(G · η_bw · BW), compute C/(G · η_f · F), the power
    limit's dynamic J/(G · (TDP − P_static)), layout, prompt B · t_prefill / T_out, fixed c_step —
    and the ``roofline``, the largest of the first three."""
    workload = Workload(t_in=rows.t_in, t_out=rows.t_out, batch=batch)
    hw = backbone.achieved_hw(rows, c)
    terms, times = physical.physical_evaluate(
        rows.model, workload, hw, kappa=c.kappa, deploy=backbone.achieved_deploy(rows, c)
    )
    one = np.ones_like(rows.alpha)  # alpha, e, alpha_e = 1: the terms count FLOPs and bits
    unit_hw = hw._replace(alpha_j_per_flop=one, e_j_per_bit=one, expert_alpha_j_per_flop=one)
    counts, _ = physical.physical_evaluate(
        rows.model, workload, unit_hw, kappa=1.0, deploy=rows.deploy
    )
    per_step = float(batch[0] / rows.t_out[0])  # per request over T_out steps -> per step of B
    g = float(rows.num_gpus[0])
    bits = {k: float(counts[("decode", k)][0]) * per_step for k in _BYTES}
    flops = float(counts[("decode", "compute")][0]) * per_step
    expert = float(expert_flops_per_token(rows.model)[0]) * float(batch[0])  # C_e, B tokens
    matrix = 2.0 * float(rows.model.active_params[0]) * float(batch[0])  # 2·N_act/token, B tokens
    # the energy terms drawn from TDP − P_static (the power limit's time)
    dynamic = sum(float(terms[("decode", k)][0]) for k in ("compute", *_BYTES)) * per_step
    p_static = float(hw.static_w[0])
    time = {
        "memory": sum(bits.values()) / 8.0 / (g * float(hw.bandwidth_bytes_s[0])),
        "compute": (flops - expert) / (g * float(hw.peak_flops[0]))
        + expert / (g * float(hw.expert_peak_flops[0])),
        "power limit": dynamic / (g * (float(rows.tdp_w[0]) - p_static)),
        "layout": 0.0,  # below: from its energy term, G · P_static · t_layout
        "prompt": float(times["prefill"][0]) * per_step,
        "fixed": float(backbone.host_step_s(float(batch[0]), c)),
    }
    roof = max(("memory", "compute", "power limit"), key=lambda k: time[k])
    decode_s = float(times["decode"][0]) * per_step
    comm_j = float(terms[("decode", "communication")][0]) * per_step
    # t_layout from its energy term; with no static power (custom constants), decode − roofline
    time["layout"] = comm_j / (g * p_static) if p_static > 0 else max(decode_s - time[roof], 0.0)
    return {
        "bytes": {name: bits[k] / 8.0 for k, name in _BYTES.items()},
        "flops": {"matrix (2 x active params x B)": matrix, "attention": max(flops - matrix, 0.0)},
        "terms": time,
        "roofline": roof,
    }


# the decode terms that count bits, in the order of the sum of memory time, and their names
_BYTES = {
    "parameter_reads": "weights read",
    "attention_reads": "KV-cache reads",
    "kv_writes": "KV-cache writes",
}
