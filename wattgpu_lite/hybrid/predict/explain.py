"""``wl.explain``: one prediction taken apart into the terms it is made of, so it can be asked "why".

    x = wl.explain("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", rate_qps=0.5)
    x.table()            # one row per part: group, part, value, unit, note
    x.binding            # "bandwidth", "compute", "power limit", "fixed cost", "communication", ...

The parts, read from the result ``wl.predict``'s steps fill (``StepResult.decode_step``: the
step's own), of one decode step of B sequences (1 + L at a rate, the batch offline) on G GPUs:

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

from wattgpu_lite.energy.request import check_request
from wattgpu_lite.hybrid.predict import intervals
from wattgpu_lite.hybrid.predict.api import DEFAULT_LEVEL, predict_request
from wattgpu_lite.hybrid.predict.explanation import (
    BINDINGS,
    REL,
    Correction,
    Explanation,
)
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.result import StepResult
from wattgpu_lite.specs.layout import Parallel
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT


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
    p, out = predict_request(req, hm)  # the prediction is row 0 of ``out``: the rest is read
    step = out.decode_step(0)
    summed = {k: step["terms"][k] for k in (step["roofline"], "layout", "prompt", "fixed")}
    step["binding"] = BINDINGS[max(summed, key=lambda k: summed[k])]
    corrections = _corrections(out, _why(hm, out, device.name, is_moe=model.is_moe))
    return Explanation(
        prediction=p,
        step_batch=float(out.step_batch[0]),
        bytes_per_step=step["bytes"],
        flops_per_step=step["flops"],
        step_terms_s=step["terms"],
        roofline=step["roofline"],
        binding=step["binding"],
        backbone_step_s=float(out.backbone_itl_s[0]),
        floor_s=float(out.itl_floor_s[0]),
        idle_power_w=float(out.idle_power_w[0]),
        busy_power_w=step["busy_power_w"],
        busy_fraction=float(out.busy_fraction[0]),
        backbone_power_w=float(out.backbone_power_w[0]),
        replica_tdp_w=float(out.replica_tdp_w[0]),
        corrections=corrections,
        basis=str(out.basis[0]),
        widening=float(out.widening[0]),
    )


def _why(hm: HybridState, out: StepResult, gpu: str, *, is_moe: bool) -> str:
    """Why the learned correction of row 0 applies, one-sided or not at all."""
    rows, reasons = out.rows, []
    if is_moe:
        reasons.append("a mixture-of-experts model")
    if float(rows.model.always_bits[0]) < 16:
        reasons.append(f"weights served at {float(rows.model.always_bits[0]):.3g} bits")
    if float(rows.num_gpus[0]) > 1:
        reasons.append(f"{int(rows.num_gpus[0])} GPUs per replica")
    support = intervals.support_values(rows)
    if intervals.outside_support(hm, support)[0]:
        reasons.append(f"{gpu}'s bandwidth or FP16 peak lies outside the training GPUs'")
    if reasons:
        return (
            "no correction: the training runs hold nothing like this ("
            + "; ".join(reasons)
            + "), so the answer is the physics backbone alone"
        )
    if intervals.beyond_context(hm, support)[0]:
        lo, hi = hm.ranges[intervals.CONTEXT]
        return (
            f"the learned correction applies one-sided (basis {str(out.basis[0])!r}): a "
            f"context of {float(support[intervals.CONTEXT][0]):.0f} tokens is longer than any training "
            f"run's ({lo:.0f}–{hi:.0f}), so only a factor that raises the answer is kept"
        )
    return (
        f"the learned correction applies (basis {str(out.basis[0])!r}: dense, 16-bit, "
        "one GPU, inside the training GPUs' range and the training runs' context)"
    )


def _corrections(out: StepResult, why: str) -> dict[str, Correction]:
    """Per target, the backbone value of row 0, its learned factor (the correction step's) and
    the final value, and the bound that holds it: the one below when backbone × factor lies
    under the final value, the one above when over (the ITL's floor only where it holds)."""
    at_floor = float(out.itl_s[0]) <= float(out.itl_floor_s[0]) * (1 + REL)
    held_by = {"power": ("idle power", "TDP"), "itl": ("floor" if at_floor else "", "")}
    corrections_by_target = {}
    for target, key in (("power", "power_w"), ("itl", "itl_s")):
        backbone_value = float(getattr(out, f"backbone_{key}")[0])
        final, raw_factor = float(getattr(out, key)[0]), float(out.factor[target][0])
        below, above = held_by[target]
        learned = backbone_value * raw_factor
        bound = (
            below if learned < final * (1 - REL) else above if learned > final * (1 + REL) else ""
        )
        corrections_by_target[target] = Correction(
            target,
            backbone_value,
            raw_factor,
            final,
            factor=final / backbone_value,
            applies=why.startswith("the learned"),
            bound=bound,
            why=why,
        )
    return corrections_by_target
