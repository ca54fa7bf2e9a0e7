"""The physics backbone: per-request ITL, time per token and mean power of an LLM served on a GPU.

Per request and phase, :mod:`wattgpu_lite.energy.physical` gives the energy terms and the roofline
time at a batch of B sequences (weights read once per step and shared by the batch; KV reads growing
with the context; compute growing with B; a power ceiling). On top of it, with B the sequences in
flight and T_out the generated tokens:

- step time  s(B) = B · t_req(B) / T_out + t_host(B),  t_req = prefill + decode time per request
  at the kernels' achieved bandwidth η_bw·BW and compute η_f·F; t_host(B) = c_step + c_seq·B the
  host's time per step (:func:`host_step_s`: a fixed cost — scheduling, kernel launches; a
  per-layer share is not identifiable from the runs, :mod:`~wattgpu_lite.energy.backbone_fit` —
  and a cost per sequence in flight — batching its inputs, sampling, detokenising);
- per-request ITL = s(1 + L) at a rate (a request sees its L neighbours, M/G/∞), s(B) at a batch;
  time per token (1/throughput) = s(B)/B in batch mode, 1/(λ·T_out) at a rate;
- in flight at a rate λ: L = λ·W(1 + L), W = T_out·ITL, the smallest root; beyond the
  capacity B_max / W(B_max) no steady state exists;
- busy power P_busy(B) = P_idle + E_dyn per step / s(B), capped at the TDP, and its peak over B;
  mean power P_idle + u·(P_busy(L/u) − P_idle) with u = 1 − e^(−L) the share of time with a
  request in flight.

Both are solved on the step's pieces (:func:`step_pieces`, :mod:`~wattgpu_lite.energy.symbolic_step`,
one call): s(B) is a sum of maxes and mins of terms affine in B (a dense model; a MoE adds the
experts a step touches, a concave term), so the load is a root of a line on the first piece where
Little's law turns, and the peak the best breakpoint or end (Newton on dP/dB for a MoE's curved
pieces): exact to the last bits (:mod:`~wattgpu_lite.energy.searches`). The bracketed searches
they replaced are the references of the tests (tests/energy/reference_searches.py).

Every function takes and returns numpy arrays (one value per row); all rows are computed at once.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from wattgpu_lite.energy import _step_generated, coefficients, physical, searches
from wattgpu_lite.energy.args import Deployment, Hardware, ModelRecord, Workload, symbol_values

MAX_BATCH = 1024.0  # the peak batch is searched on [1, 1024]
PEAK_GRID_POINTS = 33  # ln B on [0, ln 1024] every 0.22: the global peak's neighbourhood
IDLE_CAP = 0.8  # idle power is at most this share of the TDP
EPS = float(np.finfo(float).eps)
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

    def take(self, mask: np.ndarray) -> Rows:
        """The rows ``mask`` of every array."""
        pick = {k: (type(v)._make(x[mask] for x in v) if isinstance(v, tuple) else v[mask])
                for k, v in self.__dict__.items()}  # fmt: skip
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


def flops_share(peak_kind: np.ndarray, c: Constants) -> np.ndarray:
    """The achieved share of a tensor group's peak FLOP/s, per row: η_f · r_fmt, at most 1,
    with r_fmt = 1 on the FP16 peak, ``fp8_ratio`` on the FP8 peak and ``fp4_ratio`` on the FP4
    peak (``peak_kind`` indexes :data:`PEAK_KINDS`; :func:`~wattgpu_lite.energy.symbolic_step.
    achieved_flops`). A low-precision kernel need not reach the same share of its (doubled) peak
    as a 16-bit one: vLLM documents FP8 W8A8 as "up to a 1.6x improvement in throughput" on a
    GPU whose FP8 peak is twice its FP16 peak (data/SOURCES.md). r_fmt = 1 (the shipped
    constants) gives one η_f for every format; no share exceeds the peak."""
    ratio = np.array([1.0, c.fp8_ratio, c.fp4_ratio])[np.asarray(peak_kind, dtype=np.int64)]
    return np.minimum(c.eta_flops * ratio, 1.0)


def achieved_hw(rows: Rows, c: Constants) -> Hardware:
    """energy.args.gpu_args at the achieved rates (each group's peak at its format's share
    :func:`flops_share`, η_bw on the bandwidth), with one GPU's idle draw as static power."""
    return Hardware(
        alpha_j_per_flop=rows.alpha,
        e_j_per_bit=rows.e_bit,
        peak_flops=flops_share(rows.peak_kind, c) * rows.flops,
        bandwidth_bytes_s=c.eta_bw * rows.bandwidth,
        tdp_w=rows.tdp_w,
        static_w=gpu_idle_power_w(rows, c),
        expert_alpha_j_per_flop=rows.alpha_expert,
        expert_peak_flops=flops_share(rows.peak_kind_expert, c) * rows.flops_expert,
    )


def achieved_deploy(rows: Rows, c: Constants) -> Deployment:
    """energy.args.deploy_args with each collective's latency as the engine reaches it: the base
    and per-hop latencies of NCCL's tuning model times ``collective_ratio``
    (:func:`~wattgpu_lite.energy.symbolic_parallel.engine_allreduce_s`). The engine pays more
    per all-reduce than the bare collective (its kernel launches and the synchronisation around
    it); ratio 1 (the shipped constants) is NCCL's model, and one GPU has no collective to
    scale."""
    d = rows.deploy
    ratio = c.collective_ratio
    return d._replace(collective_latency_s=ratio * d.collective_latency_s,
                      hop_latency_s=ratio * d.hop_latency_s)  # fmt: skip


def request_call(rows: Rows, batch: np.ndarray, c: Constants) -> dict:
    """physical_evaluate's arguments for one request at a batch of ``batch`` sequences."""
    return {"model": rows.model, "workload": Workload(t_in=rows.t_in, t_out=rows.t_out, batch=batch),
            "hardware": achieved_hw(rows, c), "kappa": c.kappa,
            "deploy": achieved_deploy(rows, c)}  # fmt: skip


def request_terms(rows: Rows, batch: np.ndarray, c: Constants) -> tuple[np.ndarray, np.ndarray]:
    """(t_req s, dynamic J) of one request at a batch of ``batch`` sequences (prefill + decode,
    the whole replica; dynamic = every term but the static and the communication power)."""
    return terms_of(*physical.physical_evaluate(**request_call(rows, batch, c)))


def host_step_s(batch: float | np.ndarray, c: Constants) -> float | np.ndarray:
    """The host's time per decode step [s]: t_host(B) = c_step + c_seq · B, a fixed cost and a
    cost per sequence in flight (the engine gathers the last step's tokens, schedules and batches
    the next step's sequences, samples and detokenises each; the GPU waits meanwhile unless the
    engine overlaps it). vLLM's profile of Llama 3 8B on one H100 put 29 % of the time in
    scheduling and 33 % in the API server, against 38 % on the GPU (vLLM blog, "vLLM v0.6.0: 2.7x
    Throughput Improvement and 5x Latency Reduction", 2024-09-05: data/SOURCES.md). The shipped
    constants fit c_step only (c_seq = 0: the runs' few sequences in flight cannot tell it from
    c_step); :mod:`~wattgpu_lite.hybrid.report.calibration` fits c_seq across harnesses."""
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
    dynamic = sum(v for (phase, comp), v in terms.items()
                  if phase == "decode" and comp not in ("static", "communication"))  # fmt: skip
    step = batch * np.asarray(times["decode"], dtype=float) / rows.t_out + host_step_s(batch, c)
    power = idle_power_w(rows, c) + np.asarray(dynamic, dtype=float) * batch / rows.t_out / step
    return {"itl_s": step, "power_w": np.minimum(power, rows.replica_tdp_w)}


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
    named = {**symbol_values(rows.model), "T_in": rows.t_in, "T_out": rows.t_out,
             **symbol_values(achieved_hw(rows, c)), "kappa": c.kappa,
             **symbol_values(achieved_deploy(rows, c))}  # fmt: skip
    values = {k: np.asarray(a, dtype=float) for k, a in named.items()}
    if len(rows.t_in) == 1:
        values = {k: float(v.reshape(-1)[0]) for k, v in values.items()}
    return values


def pieces_from(rows: Rows, values: dict) -> searches.Pieces:
    """:func:`step_pieces` from its arguments ``values`` (:func:`step_arguments`): one call of
    the generated coefficients, then the breakpoints."""
    n = len(rows.t_in)
    out = physical.in_blocks(
        _step_generated.coefficients, values, (n,)
    )  # elementwise: in cache-sized blocks
    if n == 1:  # scalars: one array of them
        coef = np.array(out, dtype=float).reshape(-1, 1)
    else:
        coef = np.empty((len(out), n))
        for k, v in enumerate(out):
            coef[k] = v
    rho = np.clip(1.0 - rows.model.active_experts / rows.model.experts, 0.0, 1.0)  # 1 − k/E
    p = searches.Pieces(
        coef.reshape(-1, 4, n),
        np.log(np.maximum(rho, searches.TINY)),
        rows.t_in,
        _step_generated.GROUPS,
    )
    return searches.with_cuts(p)


def _pieces_power_w(rows: Rows, p: searches.Pieces, batch: np.ndarray, c: Constants) -> np.ndarray:
    """The raw busy power at ``batch`` (n, m) from the pieces: min(P_idle + N/(W + T_out·t_host),
    TDP)."""
    w, dyn = searches.switched(p, batch)
    power = idle_power_w(rows, c)[:, None] + dyn / (w + rows.t_out[:, None] * host_step_s(batch, c))
    return np.minimum(power, rows.replica_tdp_w[:, None])


def _power_slope(p: searches.Pieces, w: np.ndarray, dyn: np.ndarray, batch: np.ndarray,
                 t_out: np.ndarray, c: Constants) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(h, h') with h = N'·S − N·S', S = W + T_out·t_host(B), on the branch of coefficients ``w``
    and ``dyn`` at ``batch``: the sign of dP/dB and its derivative, for Newton on dP/dB = 0."""
    (s, s1, s2), (n, n1, n2) = (
        [searches.curve(p, e, batch, k) for k in range(3)] for e in (w, dyn)
    )
    s, s1 = s + t_out * host_step_s(batch, c), s1 + t_out * c.seq_s
    return n1 * s - n * s1, n2 * s - n * s2


def _stationary_peaks(rows: Rows, p: searches.Pieces, lo: np.ndarray, hi: np.ndarray,
                      c: Constants) -> np.ndarray:  # fmt: skip
    """Per row, the B in [lo, hi] (one piece) where dP/dB falls through 0 (h(lo) > 0 > h(hi),
    :func:`_power_slope`), by Newton on h kept inside the bracket (bisection when a step leaves
    it); ``lo`` where h does not change sign that way (P's maximum there is an end)."""
    w, dyn = searches.branch_of(p, 0.5 * (lo + hi))
    a, b = lo.copy(), hi.copy()
    inside = (_power_slope(p, w, dyn, a, rows.t_out, c)[0] > 0) & (
        _power_slope(p, w, dyn, b, rows.t_out, c)[0] < 0
    )
    x = 0.5 * (a + b)
    for _ in range(searches.NEWTON_STEPS):
        h, dh = _power_slope(p, w, dyn, x, rows.t_out, c)
        a, b = np.where(h > 0, x, a), np.where(h > 0, b, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            nxt = x - h / dh
        nxt = np.where((nxt > a) & (nxt < b), nxt, 0.5 * (a + b))
        done = np.abs(nxt - x) <= 4.0 * np.finfo(float).eps * x
        x = nxt
        if np.all(done | ~inside):
            break
    return np.where(inside, x, lo)


def peak_batch(rows: Rows, c: Constants, upper: float | np.ndarray = 1024.0,
               pieces: searches.Pieces | None = None) -> np.ndarray:  # fmt: skip
    """Batch at which the raw busy power is highest on [1, upper] (``upper`` per row or one for
    all; at most 1024), from the step's pieces (:func:`step_pieces`, one call; ``pieces`` if
    given). Between two breakpoints of s(B) (:func:`~wattgpu_lite.energy.searches.breakpoints`)
    a dense model's N and s are affine, so P = P_idle + N/(T_out·s) is monotone there: the peak is
    the best of 1, ``upper`` and the breakpoints, exactly. A MoE's pieces are curved (the experts
    a step touches): the best of those points and a grid of :data:`PEAK_GRID_POINTS` in ln B, then
    Newton on dP/dB = 0 (analytic derivatives) on the pieces either side of it.

    The raw power rises while a step is memory-bound (more work per weight read) and may dip once
    it turns compute-bound (the weight read spread over a longer step); with several local peaks
    (a roofline corner per phase), the best point is the highest one.
    """
    n = len(rows.t_in)
    bound = np.clip(np.broadcast_to(np.asarray(upper, dtype=float), (n,)), 1.0, MAX_BATCH)
    p = step_pieces(rows, c) if pieces is None else pieces
    if n == 1 and not p.curved[0]:  # one dense row (a single predict's): on its floats
        return _peak_affine(rows, p, float(bound[0]), c)
    points = np.concatenate(
        [np.ones((n, 1)), bound[:, None], searches.cuts_within(p, bound)], axis=1
    )
    curved = p.curved
    out = np.empty(n)
    flat = ~curved
    if flat.any():
        sub, sub_p, at = _part(rows, p, flat, points)
        best = np.argmax(_pieces_power_w(sub, sub_p, at, c), axis=1)
        out[flat] = at[np.arange(len(at)), best]
    if curved.any():
        sub, sub_p, at = _part(rows, p, curved, points)
        out[curved] = _curved_peak(sub, sub_p, at, bound[curved], c)
    return out


def _peak_affine(rows: Rows, p: searches.Pieces, bound: float, c: Constants) -> np.ndarray:
    """:func:`peak_batch` of ONE row whose pieces are affine, in Python floats: the raw busy
    power (:func:`_pieces_power_w`, the same operations in the same order) at 1, ``bound`` and
    the breakpoints below it, the first best of them (numpy's argmax; a point repeated, as 1 is
    for every breakpoint above ``bound``, once: its power is the same)."""
    coef = p.coef[:, :, 0].tolist()
    points = list(
        dict.fromkeys([1.0, bound, *searches.cuts_within(p, np.array([bound]))[0].tolist()])
    )
    idle, t_out = float(idle_power_w(rows, c)[0]), float(rows.t_out[0])
    tdp = float(rows.replica_tdp_w[0])
    power = []
    for b in points:
        w = searches.affine_switched(coef, p.groups, b)
        dyn = coef[-1][0] + coef[-1][1] * b
        power.append(min(idle + dyn / (w + t_out * host_step_s(b, c)), tdp))
    return np.array([points[max(range(len(points)), key=power.__getitem__)]])


def _part(rows: Rows, p: searches.Pieces, mask: np.ndarray,
          points: np.ndarray) -> tuple[Rows, searches.Pieces, np.ndarray]:  # fmt: skip
    """(rows, pieces, points) of the rows ``mask``: the whole set itself when it is every row
    (a single predict's one row; a copy would hold the same values)."""
    if mask.all():
        return rows, p, points
    return rows.take(mask), p.take(mask), points[mask]


def _curved_peak(rows: Rows, p: searches.Pieces, points: np.ndarray, bound: np.ndarray,
                 c: Constants) -> np.ndarray:  # fmt: skip
    """:func:`peak_batch` for rows whose pieces are curved: the best of ``points`` and a grid in
    ln B, refined by :func:`_stationary_peaks` on the interval either side of it."""
    grid = np.exp(np.linspace(0.0, np.log(MAX_BATCH), PEAK_GRID_POINTS))
    at = np.sort(np.concatenate([points, np.minimum(grid[None, :], bound[:, None])], axis=1),
                 axis=1)  # fmt: skip
    power = _pieces_power_w(rows, p, at, c)
    best = np.argmax(power, axis=1)
    row = np.arange(len(at))
    top = at[row, best][:, None]
    below = np.max(np.where(at < top, at, -np.inf), axis=1, initial=-np.inf)
    above = np.min(np.where(at > top, at, np.inf), axis=1, initial=np.inf)
    top = top[:, 0]
    tries = [top]
    for lo, hi in (
        (np.where(np.isfinite(below), below, top), top),
        (top, np.where(np.isfinite(above), above, top)),
    ):
        tries.append(_stationary_peaks(rows, p, lo, hi, c))
    tries = np.stack(tries, axis=1)
    return tries[row, np.argmax(_pieces_power_w(rows, p, tries, c), axis=1)]


def step_and_power(rows: Rows, points: np.ndarray, c: Constants) -> tuple[np.ndarray, ...]:
    """(step time s, raw busy power W) at ``points`` (n, m): one call of the physics over each
    row's distinct points (:func:`step_time_s`, :func:`raw_busy_power_w`). A point equal to an
    earlier one of its row (a batch's step and busy batch, a peak at the batch or at 1) is
    evaluated once and copied: the physics is elementwise, the same inputs give the same
    values (about 40 % of a frame's points)."""
    first = _first_equal(points)
    row, col = np.nonzero(first == np.arange(points.shape[1]))
    sub, batch = rows.take(row), points[row, col]
    found = physical.physical_reduced(terms_of, **request_call(sub, batch, c))
    step, power = step_and_power_from(sub, batch, found, c)
    at = (np.arange(len(points))[:, None], first)
    return tuple(_scattered(v, row, col, points.shape)[at] for v in (step, power))


def _first_equal(points: np.ndarray) -> np.ndarray:
    """(n, m) for each point the column of the first point of its row equal to it (itself when
    none before it is; NaN equals nothing)."""
    first = np.broadcast_to(np.arange(points.shape[1]), points.shape).copy()
    for j in range(1, points.shape[1]):
        for i in range(j):
            same = (first[:, j] == j) & (points[:, j] == points[:, i])
            first[same, j] = i
    return first


def _scattered(values: np.ndarray, row: np.ndarray, col: np.ndarray, shape: tuple) -> np.ndarray:
    """An array of ``shape`` holding ``values`` at (``row``, ``col``) (elsewhere unset)."""
    out = np.empty(shape)
    out[row, col] = values
    return out


def terms_of(terms: dict, times: dict) -> tuple[np.ndarray, np.ndarray]:
    """(t_req s, dynamic J) of one evaluation of :func:`request_call` (:func:`request_terms`)."""
    dynamic = sum(v for (_, comp), v in terms.items() if comp not in ("static", "communication"))
    return np.asarray(sum(times.values()), dtype=float), np.asarray(dynamic, dtype=float)


def step_and_power_from(rows: Rows, batch: np.ndarray, found: tuple[np.ndarray, np.ndarray],
                        c: Constants) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(s(B) = B · t_req / T_out + t_host(B) [s], raw busy power
    min(P_idle + dynamic · B / T_out / s(B), TDP) [W]) from ``found`` = (t_req, dynamic) of
    :func:`terms_of` at ``batch`` (one value per row)."""
    t_req, dynamic = found
    step = batch * t_req / rows.t_out + host_step_s(batch, c)
    power = np.minimum(idle_power_w(rows, c) + dynamic * batch / rows.t_out / step,
                       rows.replica_tdp_w)  # fmt: skip
    return step, power


def busy_power_w(rows: Rows, batch: np.ndarray, c: Constants,
                 pieces: searches.Pieces | None = None) -> np.ndarray:  # fmt: skip
    """Mean power while serving ``batch`` sequences [W]: the raw power at this batch, or at the
    peak batch below it if that is higher. Past the point where a step turns compute-bound the
    raw figure can dip; a board serving more sequences keeps its clocks and traffic, so the kit
    never lets power fall with load. max(P_raw(B), P_raw(1), P_raw(B_peak on [1, B])), one call
    (and one for the pieces unless ``pieces`` is given)."""
    return _steps_and_busy(rows, batch, batch, c, pieces)[1]


def _steps_and_busy(rows: Rows, step_at: np.ndarray, batch: np.ndarray, c: Constants,
                    pieces: searches.Pieces | None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(s(step_at), busy_power_w(batch)) in one call of the physics after the peak's pieces."""
    return steps_and_busy_from(
        *step_and_power(rows, busy_points(rows, step_at, batch, c, pieces), c)
    )


def busy_points(rows: Rows, step_at: np.ndarray, batch: np.ndarray, c: Constants,
                pieces: searches.Pieces | None) -> np.ndarray:  # fmt: skip
    """The (n, 4) batches :func:`_steps_and_busy` evaluates: ``step_at``, ``batch``, 1 and the
    peak batch on [1, ``batch``] (:func:`peak_batch`)."""
    n = len(rows.t_in)
    batch = np.asarray(batch, dtype=float) * np.ones(n)
    peak = np.minimum(peak_batch(rows, c, upper=batch, pieces=pieces), batch)
    return np.stack([np.asarray(step_at, dtype=float) * np.ones(n), batch, np.ones(n), peak], 1)


def steps_and_busy_from(step: np.ndarray, power: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s at the first point, max(P_raw(B), P_raw(1), P_raw(B_peak))) from the step times and raw
    powers (n, 4) at :func:`busy_points`."""
    return step[:, 0], np.max(power[:, 1:], axis=1)


def in_flight_at_rate(rows: Rows, rate_qps: np.ndarray, cap: np.ndarray, c: Constants,
                      pieces: searches.Pieces | None = None) -> np.ndarray:  # fmt: skip
    """Mean requests in flight L at Poisson rate λ: the smallest root of
    g(L) = λ · T_out · s(min(1 + L, cap)) − L on [0, cap] (Little's law with the per-request ITL
    at the batch a request sees), from the step's pieces (:func:`step_pieces`, one call;
    ``pieces`` if given). g > 0 at L = 0; between the breakpoints of s (and cap − 1, where the
    batch stops growing) g is affine for a dense model and concave for a MoE, so the first of
    those points where g ≤ 0 closes the piece holding the smallest root, and Newton from that end
    reaches it without overshooting: one step when affine, to adjacent floats either way. No root:
    beyond capacity, L = cap.
    """
    n = len(rows.t_in)
    rate = np.broadcast_to(np.asarray(rate_qps, dtype=float), (n,))
    cap = np.broadcast_to(np.asarray(cap, dtype=float), (n,))
    p = step_pieces(rows, c) if pieces is None else pieces
    host = (rows.t_out * c.step_s, rows.t_out * c.seq_s)  # T_out·t_host(B) = a + b·B
    curved, out = p.curved, np.empty(n)
    if n == 1 and not curved[0]:  # one dense row (a single predict's): on its floats
        return _smallest_root_affine(p, rate, cap, host)
    for part in (~curved, curved):  # a dense row's evaluations skip the powers of ρ
        if part.all():  # every row (a single predict's one): the arrays themselves
            return _smallest_root(p, rate, cap, host)
        if part.any():
            out[part] = _smallest_root(p.take(part), rate[part], cap[part],
                                       (host[0][part], host[1][part]))  # fmt: skip
    return out


def _smallest_root(p: searches.Pieces, rate: np.ndarray, cap: np.ndarray,
                   host: tuple[np.ndarray, np.ndarray]) -> np.ndarray:  # fmt: skip
    """:func:`in_flight_at_rate` on the pieces ``p`` (``host`` = (T_out·c_step, T_out·c_seq): the
    host's time over a request's steps, a + b·B, affine in B like a dense piece)."""
    fixed, per_seq = host
    n = len(rate)
    cuts = searches.cuts_within(p, np.maximum(cap, 1.0)) - 1.0
    loads = np.concatenate([np.zeros((n, 1)), cap[:, None], np.maximum(cap - 1.0, 0.0)[:, None],
                            cuts], axis=1)  # fmt: skip
    loads = np.sort(loads, axis=1)
    batch = np.minimum(1.0 + loads, cap[:, None])
    host_s = fixed[:, None] + per_seq[:, None] * batch
    nonpositive = rate[:, None] * (searches.switched(p, batch)[0] + host_s) - loads <= 0
    k = np.argmax(nonpositive, axis=1)
    saturated = ~nonpositive.any(axis=1)
    row = np.arange(n)
    lo, hi = loads[row, np.maximum(k - 1, 0)], loads[row, k]
    w, _ = searches.branch_of(p, np.minimum(1.0 + 0.5 * (lo + hi), cap))
    x, grows = hi.copy(), hi > lo
    eps = 4.0 * np.finfo(float).eps
    for _ in range(
        searches.NEWTON_STEPS
    ):  # g(x) = λ·(W(b) + T_out·t_host(b)) − x, b = min(1 + x, cap)
        batch = np.minimum(1.0 + x, cap)
        demand = rate * (searches.curve(p, w, batch) + fixed + per_seq * batch)
        g = demand - x
        slope = rate * (searches.curve(p, w, batch, 1) + per_seq) * (1.0 + x < cap) - 1.0
        grows &= np.abs(g) > eps * (demand + x)  # a residual above the rounding of its terms
        if not grows.any():
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(grows, g / slope, 0.0)
        x = np.clip(x - np.where(np.isfinite(step), step, 0.0), lo, hi)
    return np.where(saturated, cap, x)


def _smallest_root_affine(p: searches.Pieces, rate: np.ndarray, cap: np.ndarray,
                          host: tuple[np.ndarray, np.ndarray]) -> np.ndarray:  # fmt: skip
    """:func:`_smallest_root` of ONE row whose pieces are affine (``p.curved`` false), on Python
    floats: the same operations in the same order on each value (numpy's exp where that takes
    it, :func:`searches.curve`), so the same bits, without a numpy call per operation
    (tests/energy/test_backbone_searches.py holds the two equal)."""
    lam, b_max = float(rate[0]), float(cap[0])
    fixed, per_seq = float(host[0][0]), float(host[1][0])
    coef = p.coef[:, :, 0].tolist()  # (K, 4): a_0, a_B, a_T, a_1 of each expression
    cuts = (searches.cuts_within(p, np.maximum(cap, 1.0)) - 1.0)[0].tolist()
    loads = sorted([0.0, b_max, max(b_max - 1.0, 0.0), *cuts])
    k, saturated = 0, True
    for j, load in enumerate(loads):  # the first load where g ≤ 0 (numpy's argmax)
        if j and load == loads[j - 1]:  # a repeated load: g as at the one before, > 0
            continue
        batch = min(1.0 + load, b_max)
        host_s = fixed + per_seq * batch
        if lam * (searches.affine_switched(coef, p.groups, batch) + host_s) - load <= 0:
            k, saturated = j, False
            break
    lo, hi = loads[max(k - 1, 0)], loads[k]
    w = searches.affine_branch(coef, p.groups, min(1.0 + 0.5 * (lo + hi), b_max))
    rate_t, rate_1 = float(p.log_rho[0] * p.t_in[0]), float(p.log_rho[0])
    x, grows = hi, hi > lo
    eps = 4.0 * EPS
    for _ in range(searches.NEWTON_STEPS):
        batch = min(1.0 + x, b_max)
        # ρ's powers, in [0, 1]; where their coefficient is ±0 (a dense row) 0 gives the same bits
        u_t = np.exp(rate_t * batch) if w[2] != 0 else 0.0
        u_1 = np.exp(rate_1 * batch) if w[3] != 0 else 0.0
        demand = lam * (w[0] + w[1] * batch + w[2] * u_t + w[3] * u_1 + fixed + per_seq * batch)
        g = demand - x
        slope = lam * (w[1] + w[2] * rate_t * u_t + w[3] * rate_1 * u_1 + per_seq) * float(
            1.0 + x < b_max) - 1.0  # fmt: skip
        grows = grows and abs(g) > eps * (demand + x)
        if not grows:
            break
        step = g / slope if slope != 0.0 else 0.0
        x = min(max(x - (step if math.isfinite(step) else 0.0), lo), hi)
    return np.array([b_max if saturated else x], dtype=float)


def capacity_qps(rows: Rows, cap: np.ndarray, c: Constants) -> np.ndarray:
    """Highest request rate a replica sustains [req/s]: cap sequences finishing every
    T_out steps of s(cap): cap / (T_out · s(cap))."""
    return capacity_from_step(rows, cap, step_time_s(rows, cap, c))


def capacity_from_step(rows: Rows, cap: np.ndarray, step_s: np.ndarray) -> np.ndarray:
    """:func:`capacity_qps` from s(cap) [s]: cap / (T_out · s(cap))."""
    return cap / (rows.t_out * step_s)


def at_batch(rows: Rows, batch: np.ndarray, c: Constants) -> dict[str, np.ndarray]:
    """A fixed batch (offline): ITL = s(B), time per token s(B)/B, power P_busy(B)."""
    return batch_outputs(batch, *_steps_and_busy(rows, batch, batch, c, step_pieces(rows, c)))


def batch_outputs(batch: np.ndarray, step: np.ndarray, power: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`at_batch`'s outputs from s(B) and P_busy(B): ITL s(B), time per token s(B)/B."""
    return {"in_flight": batch, "itl_s": step, "time_per_token_s": step / batch, "power_w": power,
            "busy_fraction": np.ones_like(step)}  # fmt: skip


def at_rate(
    rows: Rows, rate_qps: np.ndarray, cap: np.ndarray, c: Constants
) -> dict[str, np.ndarray]:
    """Poisson arrivals at λ: ITL = s(1 + L), time per token 1/(λ·T_out), mean power
    P_idle + u·(P_busy(L/u) − P_idle) with u = 1 − e^(−L)."""
    pieces = step_pieces(rows, c)  # one call: the load and the peak are solved on it
    load, busy, step_at, busy_batch = rate_loads(rows, rate_qps, cap, c, pieces)
    itl, p_busy = _steps_and_busy(rows, step_at, busy_batch, c, pieces)
    return rate_outputs(rows, rate_qps, load, busy, itl, p_busy, c)


def rate_loads(rows: Rows, rate_qps: np.ndarray, cap: np.ndarray, c: Constants,
               pieces: searches.Pieces) -> tuple[np.ndarray, ...]:  # fmt: skip
    """(L, u, the step's batch min(1 + L, cap), the busy batch max(L/u, 1)) at Poisson rate λ:
    L in flight (:func:`in_flight_at_rate` on ``pieces``), u = 1 − e^(−L) the busy share."""
    load = in_flight_at_rate(rows, rate_qps, cap, c, pieces=pieces)
    busy = -np.expm1(-load)
    return load, busy, np.minimum(1.0 + load, cap), np.maximum(load / np.maximum(busy, 1e-300), 1.0)


def rate_outputs(rows: Rows, rate_qps: np.ndarray, load: np.ndarray, busy: np.ndarray,
                 itl: np.ndarray, p_busy: np.ndarray, c: Constants) -> dict[str, np.ndarray]:  # fmt: skip
    """:func:`at_rate`'s outputs from the load (:func:`rate_loads`), s(1 + L) and P_busy(L/u):
    time per token 1/(λ·T_out), mean power P_idle + u·(P_busy − P_idle)."""
    p_idle = idle_power_w(rows, c)
    return {"in_flight": load, "itl_s": itl, "time_per_token_s": 1.0 / (rate_qps * rows.t_out),
            "power_w": p_idle + busy * (p_busy - p_idle), "busy_fraction": busy}  # fmt: skip
