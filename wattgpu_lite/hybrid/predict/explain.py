"""``wl.explain``: one prediction taken apart into the terms it is made of, so it can be asked "why".

    x = wl.explain("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", rate_qps=0.5)
    x.table()            # one row per part: group, part, value, unit, note
    x.binding            # "bandwidth", "compute", "power limit", "fixed cost", "communication", ...

The parts, for one decode step of B sequences (B = the batch a request sees: 1 + L at a rate,
the batch offline; :mod:`wattgpu_lite.energy.backbone`) on a replica of G GPUs:

- bytes and FLOPs per step by tensor group: weights read, KV-cache reads (attention over the
  context), KV-cache writes; matrix FLOPs (2 · active parameters per token) and attention FLOPs —
  the backbone's own accounting (:func:`wattgpu_lite.energy.physical.physical_evaluate` evaluated
  at unit energy coefficients, so each energy term is its bit or FLOP count);
- the step-time terms: memory time Q/(G · η_bw · BW), compute time C/(G · η_f · F) and the power
  limit's time; the largest of the three is the step's roofline. Backbone step time = roofline +
  layout term (collectives, expert groups, replicated weights) + the prompt's share (B · prefill
  time / T_out) + the step's fixed cost c_step; these add up to the backbone's ITL exactly;
- the hard floor (:func:`wattgpu_lite.hybrid.predict.bounds.floor_step_s`), idle and busy power;
- the learned correction per target (a factor on the backbone, 1 on "physics" rows) and why it
  applies or not; the final value = the backbone × the factor, held inside the bounds (ITL ≥ the
  floor, power in [P_idle, G · TDP], its interval down to the hard power floor) — the table says
  when a bound binds;
- energy per token = power × time per token; the intervals and their basis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wattgpu_lite.energy import backbone, physical
from wattgpu_lite.energy.args import Workload, expert_flops_per_token
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.energy.request import check_request
from wattgpu_lite.hybrid.predict import intervals, steps
from wattgpu_lite.hybrid.predict.api import DEFAULT_LEVEL, predict_request
from wattgpu_lite.hybrid.predict.explanation import (
    BINDINGS,
    REL,
    Correction,
    Explanation,
    Part,
    parts_of,
)
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.specs.layout import Parallel
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

__all__ = ["BINDINGS", "Correction", "Explanation", "Part", "explain"]


def explain(
    llm,
    gpu,
    *,
    rate_qps: float | None = None,
    batch: float | None = None,
    scenario: str | None = None,
    t_in: int = DEFAULT_T_IN,
    t_out: int = DEFAULT_T_OUT,
    level: float = DEFAULT_LEVEL,
    num_gpus: int = 1,
    weights: str | None = None,
    parallel: Parallel | None = None,
    kv_cache: str | None = None,
    engine: str | None = None,
    max_num_seqs: int | None = None,
) -> Explanation:
    """The prediction of ``wl.predict`` with the same arguments, and the parts it is made of
    (module docstring). Raises what ``wl.predict`` raises (CapacityError beyond the capacity)."""
    serving = {"kv_cache": kv_cache, "engine": engine, "max_num_seqs": max_num_seqs}
    load = {"scenario": scenario, "rate_qps": rate_qps, "batch": batch}
    tokens = {"t_in": t_in, "t_out": t_out}
    layout = {"num_gpus": num_gpus, "parallel": parallel, "weights": weights}
    hm = HybridState.pretrained()  # before ``model`` names the LLM, as in wl.predict
    model, device = resolve_llm(llm), resolve_gpu(gpu)
    req = check_request(model, device, level=level, **load, **tokens, **layout, **serving)
    p = predict_request(req, hm)
    rate, bat = req.rate_qps, np.nan if p.inputs.batch is None else float(p.inputs.batch)
    llms, gpus = [model], [device]
    deploy = {"num_gpus": req.layout, "weights": [req.weights], **req.serving_args()}
    asked = {"t_out": req.t_out, "rate_qps": rate, "batch": bat, "level": req.level}
    out = steps.predict_arrays(hm, llms, gpus, req.t_in, **asked, **deploy)
    rows, cap = row_arrays.build(llms, gpus, req.t_in, req.t_out, **deploy)
    c = hm.constants
    offline = np.isnan(np.array([rate]))
    in_flight = out.in_flight
    step_batch = np.where(offline, in_flight, np.minimum(1.0 + in_flight, np.maximum(cap, 1.0)))
    step = _step_parts(rows, step_batch, c)
    learned, applies_why = _learned(hm, llms, gpus, rows, cap=cap, rate=rate, bat=bat, out=out)
    busy = float(out.busy_fraction[0])
    busy_batch = in_flight if offline[0] else np.maximum(in_flight / max(busy, 1e-300), 1.0)
    busy_w = float(backbone.busy_power_w(rows, busy_batch, c)[0])
    corrections = _corrections(out, learned, applies_why)
    parts = parts_of(
        p, out, step, corrections, busy_w=busy_w, busy=busy, step_batch=float(step_batch[0])
    )
    return Explanation(
        prediction=p,
        step_batch=float(step_batch[0]),
        bytes_per_step=step["bytes"],
        flops_per_step=step["flops"],
        step_terms_s=step["terms"],
        roofline=step["roofline"],
        binding=step["binding"],
        backbone_step_s=float(out.backbone_itl_s[0]),
        floor_s=float(out.itl_floor_s[0]),
        idle_power_w=float(out.idle_power_w[0]),
        busy_power_w=busy_w,
        busy_fraction=busy,
        backbone_power_w=float(out.backbone_power_w[0]),
        replica_tdp_w=float(out.replica_tdp_w[0]),
        corrections=corrections,
        basis=str(out.basis[0]),
        widening=float(out.widening[0]),
        parts=parts,
    )


def _step_parts(rows: backbone.Rows, batch: np.ndarray, c: backbone.Constants) -> dict[str, Any]:
    """Bytes, FLOPs and time terms of one decode step of ``batch`` sequences (row 0)."""
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
    bits = {
        k: float(counts[("decode", k)][0]) * per_step
        for k in ("parameter_reads", "attention_reads", "kv_writes")
    }
    flops = float(counts[("decode", "compute")][0]) * per_step
    expert = float(expert_flops_per_token(rows.model)[0]) * float(batch[0])  # C_e, B tokens
    matrix = 2.0 * float(rows.model.active_params[0]) * float(batch[0])  # 2·N_act/token, B tokens
    # the energy terms drawn from TDP − P_static (the power limit's time)
    dynamic_terms = ("compute", "parameter_reads", "attention_reads", "kv_writes")
    dynamic = sum(float(terms[("decode", k)][0]) for k in dynamic_terms) * per_step
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
    summed = {k: time[k] for k in (roof, "layout", "prompt", "fixed")}
    return {
        "bytes": {
            "weights read": bits["parameter_reads"] / 8.0,
            "KV-cache reads": bits["attention_reads"] / 8.0,
            "KV-cache writes": bits["kv_writes"] / 8.0,
        },
        "flops": {"matrix (2 x active params x B)": matrix, "attention": max(flops - matrix, 0.0)},
        "terms": time,
        "roofline": roof,
        "binding": BINDINGS[max(summed, key=lambda k: summed[k])],
    }


def _learned(hm, llms, gpus, rows, *, cap, rate, bat, out) -> tuple[dict[str, float], str]:
    """The learned factor per target for row 0 and why the correction applies or not."""
    model, device = llms[0], gpus[0]
    reasons = []
    if model.is_moe:
        reasons.append("a mixture-of-experts model")
    if float(rows.model.always_bits[0]) < 16:
        reasons.append(f"weights served at {float(rows.model.always_bits[0]):.3g} bits")
    if float(rows.num_gpus[0]) > 1:
        reasons.append(f"{int(rows.num_gpus[0])} GPUs per replica")
    support = intervals.support_values(rows)
    if intervals.outside_support(hm, support)[0]:
        reasons.append(f"{device.name}'s bandwidth or FP16 peak lies outside the training GPUs'")
    beyond = intervals.beyond_context(hm, support)
    rates, batches = np.array([rate]), np.array([1.0 if np.isnan(bat) else bat])
    backbone_result = steps.backbone_step(hm, rows, cap, rates, batch=batches)
    unlike_training = np.array([bool(reasons)])  # no correction where the runs hold nothing like it
    factors = steps.correction_step(
        hm, llms, gpus, rows, backbone_result=backbone_result, physics_only=unlike_training
    )
    learned = {t: float(v[0]) for t, v in factors.items()}
    if reasons:
        why = (
            "no correction: the training runs hold nothing like this ("
            + "; ".join(reasons)
            + "), so the answer is the physics backbone alone"
        )
    elif beyond[0]:
        lo, hi = hm.ranges[intervals.CONTEXT]
        why = (
            f"the learned correction applies one-sided (basis {str(out.basis[0])!r}): a "
            f"context of {float(support[intervals.CONTEXT][0]):.0f} tokens is longer than any training "
            f"run's ({lo:.0f}–{hi:.0f}), so only a factor that raises the answer is kept"
        )
    else:
        why = (
            f"the learned correction applies (basis {str(out.basis[0])!r}: dense, 16-bit, "
            "one GPU, inside the training GPUs' range and the training runs' context)"
        )
    return learned, why


def _corrections(out, learned, why) -> dict[str, Correction]:
    applies = why.startswith("the learned")
    corrections_by_target = {}
    for target, key, final_key in (
        ("power", "backbone_power_w", "power_w"),
        ("itl", "backbone_itl_s", "itl_s"),
    ):
        backbone_value, final = float(getattr(out, key)[0]), float(getattr(out, final_key)[0])
        raw_factor = learned.get(target, 1.0)
        bound = ""
        at_floor = final <= float(out.itl_floor_s[0]) * (1 + REL)
        if target == "itl" and at_floor and backbone_value * raw_factor < final * (1 - REL):
            bound = "floor"
        if target == "power":
            if backbone_value * raw_factor < final * (1 - REL):
                bound = "idle power"
            elif backbone_value * raw_factor > final * (1 + REL):
                bound = "TDP"
        corrections_by_target[target] = Correction(
            target,
            backbone_value,
            raw_factor,
            final,
            factor=final / backbone_value,
            applies=applies,
            bound=bound,
            why=why,
        )
    return corrections_by_target
