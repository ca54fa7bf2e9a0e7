"""The backbone's step and its power: per-row arrays (:class:`Rows`), fitted constants, the
achieved rates, the step time s(B) = B · t_req(B) / T_out + t_host(B) and the raw busy power, and
the step's pieces (:func:`step_pieces`) the solves of :mod:`~wattgpu_lite.energy.backbone.solves`
work on. The serving model around it: :mod:`~wattgpu_lite.energy.backbone`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from wattgpu_lite.energy import _step_generated, coefficients, float_twin, physical
from wattgpu_lite.energy.args import Deployment, Hardware, ModelRecord, Workload, symbol_values
from wattgpu_lite.energy.backbone import searches

IDLE_CAP = 0.8  # idle power is at most this share of the TDP
PEAK_KINDS = ("fp16", "fp8", "fp4")  # the peaks a tensor group runs at (energy.precision)


@dataclass(frozen=True)
class Constants:
    """The backbone's fitted constants (refitted in every training fold)."""

    eta_bw: float = 0.75  # achieved share of the memory bandwidth
    eta_flops: float = 0.5  # achieved share of the dense FP16 peak
    step_s: float = 1e-3  # fixed cost of a decode step, s
    seq_s: float = 0.0  # host time per sequence in flight per step, s (see host_step_s)
    fp8_ratio: float = 1.0  # achieved share of the FP8 peak over eta_flops (flops_share)
    fp4_ratio: float = 1.0  # achieved share of the FP4 peak over eta_flops (flops_share)
    collective_ratio: float = 1.0  # a collective's latency over NCCL's model (achieved_deploy)
    rocm_ratio: float = 1.0  # achieved share of the peaks on ROCm over CUDA's (achieved_hw)
    expert_group_s: float = 0.0  # t_grp: time per further expert group a step reads, s (0: none)
    kappa: float = 1.0  # dynamic-energy factor on alpha and e
    idle_w: float = 20.0  # idle power: idle_w + idle_fraction · TDP
    idle_fraction: float = 0.15

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True)
class Rows:
    """Per-row arrays: the model args, the GPU args, and the workload."""

    model: ModelRecord  # energy.args.llm_args, one array per field
    n_layers: np.ndarray
    alpha: np.ndarray  # J/FLOP (spec basis), the always-read weights' and attention's format
    e_bit: np.ndarray  # J/bit
    flops: np.ndarray  # peak FLOP/s of that format
    bandwidth: np.ndarray  # peak B/s
    tdp_w: np.ndarray  # per GPU
    t_in: np.ndarray
    t_out: np.ndarray
    deploy: Deployment  # energy.args.deploy_args, one array per field
    num_gpus: np.ndarray  # GPUs in the replica
    params_b: np.ndarray  # total parameters, billions
    alpha_expert: np.ndarray  # J/FLOP of the routed experts' format (= alpha for a dense model)
    flops_expert: np.ndarray  # peak FLOP/s of the routed experts' format (= flops if dense)
    idle_spec_w: np.ndarray  # one GPU's idle power from its spec, W (NaN: the spec gives none)
    peak_kind: np.ndarray  # which peak ``flops`` is: PEAK_KINDS index (0 FP16, 1 FP8, 2 FP4)
    peak_kind_expert: np.ndarray  # which peak ``flops_expert`` is (PEAK_KINDS index)
    rocm: np.ndarray  # 1 where the GPU runs ROCm (an AMD GPU), else 0

    def take(self, mask: np.ndarray) -> Rows:
        """The rows ``mask`` of every array."""
        pick = {
            k: (type(v)._make(x[mask] for x in v) if isinstance(v, tuple) else v[mask])
            for k, v in self.__dict__.items()
        }
        return Rows(**pick)

    @property
    def replica_tdp_w(self) -> np.ndarray:
        """The replica's power limit: num_gpus · TDP."""
        return self.num_gpus * self.tdp_w


def gpu_idle_power_w(rows: Rows, c: Constants) -> np.ndarray:
    """Idle draw of one GPU holding its share of a model [W]: idle_w + idle_fraction · TDP, at
    most ``IDLE_CAP`` · TDP (an idle board never draws its power limit; the dynamic budget
    TDP − P_idle stays positive)."""
    return np.minimum(c.idle_w + c.idle_fraction * rows.tdp_w, IDLE_CAP * rows.tdp_w)


def idle_power_w(rows: Rows, c: Constants) -> np.ndarray:
    """Idle draw of the replica [W]: num_gpus · the idle draw of one GPU."""
    return rows.num_gpus * gpu_idle_power_w(rows, c)


def power_floor_w(rows: Rows) -> np.ndarray:
    """The replica's hard power floor [W]: P_floor(G) = G · (the GPU spec's idle power where it
    gives one, else s_floor · TDP), s_floor = ``power_floor_tdp_share`` of energy_coefficients.csv
    (the lowest share of TDP measured at constant power or while serving, rounded down; chosen as a
    bound, not fitted: data/SOURCES.md). A true lower bound, below every training run and every
    published power of the external measurements in its scope (tests/hybrid/test_power_floor.py);
    the fitted idle (:func:`idle_power_w`) is an estimate above it."""
    share = coefficients.value("power_floor_tdp_share", "physical")
    one = np.where(np.isfinite(rows.idle_spec_w), rows.idle_spec_w, share * rows.tdp_w)
    return rows.num_gpus * one


def flops_share(peak_kind: np.ndarray, c: Constants, stack: np.ndarray | float = 1.0) -> np.ndarray:
    """A tensor group's achieved share of its peak FLOP/s, per row: min(η_f · r_fmt · r_stack, 1),
    r_fmt = 1 on FP16, ``fp8_ratio`` on FP8, ``fp4_ratio`` on FP4 (``peak_kind``: a PEAK_KINDS
    index; symbolic_step.achieved_flops), r_stack = ``stack`` (:func:`achieved_hw`). vLLM documents
    FP8 W8A8 as "up to a 1.6x improvement in throughput" at twice the peak (data/SOURCES.md)."""
    ratio = np.array([1.0, c.fp8_ratio, c.fp4_ratio])[np.asarray(peak_kind, dtype=np.int64)]
    return np.minimum(c.eta_flops * ratio * stack, 1.0)


def achieved_hw(rows: Rows, c: Constants) -> Hardware:
    """energy.args.gpu_args at the achieved rates, one GPU's idle draw as static power: each group
    at its share :func:`flops_share` of its peak, min(η_bw · r_stack, 1) of the bandwidth, r_stack
    = ``rocm_ratio`` on ROCm, 1 on CUDA (symbolic_step.achieved_bandwidth: another software
    stack's kernels reach another share of the datasheet, data/SOURCES.md)."""
    stack = np.where(rows.rocm > 0, c.rocm_ratio, 1.0)
    return Hardware(
        alpha_j_per_flop=rows.alpha,
        e_j_per_bit=rows.e_bit,
        peak_flops=flops_share(rows.peak_kind, c, stack) * rows.flops,
        bandwidth_bytes_s=np.minimum(c.eta_bw * stack, 1.0) * rows.bandwidth,
        tdp_w=rows.tdp_w,
        static_w=gpu_idle_power_w(rows, c),
        expert_alpha_j_per_flop=rows.alpha_expert,
        expert_peak_flops=flops_share(rows.peak_kind_expert, c, stack) * rows.flops_expert,
    )


def achieved_deploy(rows: Rows, c: Constants) -> Deployment:
    """energy.args.deploy_args as the engine reaches it: NCCL's latencies times ``collective_ratio``
    (:func:`~wattgpu_lite.energy.symbolic_parallel.engine_allreduce_s`: the engine's launches and
    syncs cost more than the bare call; 1: NCCL's model) and t_grp = ``expert_group_s`` (no
    datasheet gives it; 0 on the dense runs alone). Both fitted across harnesses."""
    d, ratio = rows.deploy, c.collective_ratio
    return d._replace(
        collective_latency_s=ratio * d.collective_latency_s,
        hop_latency_s=ratio * d.hop_latency_s,
        net_hop_latency_s=ratio * d.net_hop_latency_s,
        expert_group_s=np.zeros_like(d.num_gpus) + c.expert_group_s,
    )


def request_call(rows: Rows, batch: np.ndarray, c: Constants) -> dict:
    """physical_evaluate's arguments for one request at a batch of ``batch`` sequences."""
    return {
        "model": rows.model,
        "workload": Workload(t_in=rows.t_in, t_out=rows.t_out, batch=batch),
        "hardware": achieved_hw(rows, c),
        "kappa": c.kappa,
        "deploy": achieved_deploy(rows, c),
    }


def request_terms(rows: Rows, batch: np.ndarray, c: Constants) -> tuple[np.ndarray, np.ndarray]:
    """(t_req s, dynamic J) of one request at a batch of ``batch`` sequences (prefill + decode,
    the whole replica; dynamic = every term but the static and the communication power)."""
    terms, times = physical.physical_evaluate(**request_call(rows, batch, c))
    return terms_of(terms, times)


def host_step_s(batch: float | np.ndarray, c: Constants) -> float | np.ndarray:
    """The host's time per decode step [s]: t_host(B) = c_step + c_seq · B, a fixed cost and a
    cost per sequence in flight (the engine schedules and batches the sequences, samples and
    detokenises each; the GPU waits unless the engine overlaps it). vLLM's profile of Llama 3 8B
    on one H100: 29 % of the time scheduling, 33 % the API server, 38 % the GPU (vLLM blog, v0.6.0,
    2024-09-05: data/SOURCES.md). A fit on the Watt Counts runs alone holds c_seq = 0 (their few
    sequences in flight cannot tell it from c_step); the shipped constants fit it across harnesses
    (:mod:`~wattgpu_lite.hybrid.report.calibration`)."""
    return c.step_s + c.seq_s * batch


def step_time_s(rows: Rows, batch: np.ndarray, c: Constants) -> np.ndarray:
    """Time of one step with ``batch`` sequences [s]: B · t_req(B) / T_out + t_host(B)."""
    found = physical.physical_reduced(_request_time, **request_call(rows, batch, c))
    return step_from_times(rows.t_out, batch, {"prefill + decode": found[0]}, c)


def _request_time(terms: dict, times: dict) -> list:
    """[t_req]: the phases' times summed as :func:`step_from_times` sums them (a reduce of
    :func:`~wattgpu_lite.energy.physical.physical_reduced`)."""
    return [sum(times.values())]


def step_from_times(t_out: np.ndarray, batch: np.ndarray, times: dict, c: Constants) -> np.ndarray:
    """:func:`step_time_s` from the phase times of :func:`request_call`'s evaluation."""
    t_req = np.asarray(sum(times.values()), dtype=float)
    return batch * t_req / t_out + host_step_s(batch, c)


def raw_busy_power_w(rows: Rows, batch: np.ndarray, c: Constants) -> np.ndarray:
    """P_idle + dynamic energy per step / step time [W], at most the TDP."""
    t_req, dynamic = request_terms(rows, batch, c)
    step = batch * t_req / rows.t_out + host_step_s(batch, c)
    power = idle_power_w(rows, c) + dynamic * batch / rows.t_out / step
    return np.minimum(power, rows.replica_tdp_w)


def step_pieces(rows: Rows, c: Constants) -> searches.Pieces:
    """W(B) = B·t_req(B) and N(B) = B·dynamic J of every row in pieces, one call of the generated
    coefficients (:mod:`~wattgpu_lite.energy.symbolic_step`): s(B) = W / T_out + t_host(B), raw
    busy power min(P_idle + N / (T_out·s), TDP), for every B at once."""
    return pieces_from(rows, step_arguments(rows, c))


def step_arguments(rows: Rows, c: Constants) -> dict:
    """The generated coefficients' arguments of :func:`step_pieces` by symbol name: arrays, or
    Python floats for one row (numpy's scalar arithmetic, ~8x faster than on arrays of one
    element)."""
    named = {
        **symbol_values(rows.model),
        "T_in": rows.t_in,
        "T_out": rows.t_out,
        **symbol_values(achieved_hw(rows, c)),
        "kappa": c.kappa,
        **symbol_values(achieved_deploy(rows, c)),
    }
    values = {k: np.asarray(a, dtype=float) for k, a in named.items()}
    if len(rows.t_in) == 1:
        values = {k: float(v.reshape(-1)[0]) for k, v in values.items()}
    return values


def pieces_from(rows: Rows, values: dict) -> searches.Pieces:
    """:func:`step_pieces` from its arguments ``values`` (:func:`step_arguments`): one call of the
    generated coefficients (one row's on its floats, :mod:`~.float_twin`), then the breakpoints."""
    fn, n = _step_generated.coefficients, len(rows.t_in)
    out = float_twin.call(fn, values) if n == 1 else None  # one row's floats: on its twin
    if out is None:
        out = physical.in_blocks(fn, values, (n,))  # elementwise: in cache-sized blocks
    if n == 1:  # scalars: one array of them
        coef = np.array(out, dtype=float).reshape(-1, 1)
    else:
        coef = np.empty((len(out), n))
        for k, v in enumerate(out):
            coef[k] = v
    p = searches.Pieces(coef.reshape(-1, 4, n), log_rho_of(rows), rows.t_in, _step_generated.GROUPS)
    return searches.with_cuts(p)


def log_rho_of(rows: Rows) -> np.ndarray:
    """log ρ per row, ρ = 1 − k/E clipped to [0, 1] (log TINY where ρ = 0: a dense model)."""
    rho = np.minimum(np.maximum(1.0 - rows.model.active_experts / rows.model.experts, 0.0), 1.0)
    return np.log(np.maximum(rho, searches.TINY))


def terms_of(terms: dict, times: dict) -> tuple[np.ndarray, np.ndarray]:
    """(t_req s, dynamic J) of one evaluation of :func:`request_call` (:func:`request_terms`)."""
    dynamic = sum(v for (_, comp), v in terms.items() if comp not in ("static", "communication"))
    return np.asarray(sum(times.values()), dtype=float), np.asarray(dynamic, dtype=float)
