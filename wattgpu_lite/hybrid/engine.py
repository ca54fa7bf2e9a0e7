"""Predictions for many rows at once: backbone, correction, intervals, notes, capacity.

:func:`predict_arrays` is what ``wl.predict`` and ``wl.predict_many`` call. Rows are independent;
every step is one numpy operation over all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy import backbone_rows as R
from wattgpu_lite.energy.uniques import unique_by_identity
from wattgpu_lite.hybrid import bounds as B
from wattgpu_lite.hybrid import calibration as K
from wattgpu_lite.hybrid.correction import feature_matrix, load_features
from wattgpu_lite.hybrid.model import HybridModel
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.llm import LLM

WIDEN_PER_EFOLD = 0.5  # half-width added per e-fold beyond the training range (candidates.json)
WIDEN_MAX = 1.0
WATCHED = ("bandwidth_gbs", "fp16_tflops", "params_b", "in_flight", "context_tokens")


def gpu_fingerprint(g: GPU) -> str:
    """The spec values the predictor reads, as text: equal text = the same GPU to the model."""
    return "|".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in (
        g.bandwidth_gbs, g.fp16_tflops, g.tdp_w, g.memory_gb, g.release_year, g.memory_type,
        g.architecture))  # fmt: skip


def llm_fingerprint(m: LLM) -> str:
    """The architecture values the predictor reads, as text."""
    return "|".join(str(v) for v in (
        m.model_type, m.n_layers, m.hidden_size, m.intermediate_size, m.n_heads, m.n_kv_heads,
        m.head_dim, m.vocab_size, f"{m.params_b:.6g}", m.n_experts, m.weight_format))  # fmt: skip


def physics_only(llms: Sequence[LLM], num_gpus: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Rows the runs never cover: MoE, weights served below 16 bits, or several GPUs."""
    moe = np.array([m.is_moe for m in llms], dtype=bool)
    return moe | (np.asarray(bits) < 16) | (np.asarray(num_gpus) > 1)


SUPPORT = ("bandwidth_gbs", "fp16_tflops")  # the GPU spec inputs whose training range bounds it
CONTEXT = "context_tokens"  # T_in + T_out: beyond the runs' range the correction is one-sided


def support_values(rows: S.Rows) -> dict[str, np.ndarray]:
    """The inputs that bound the correction, per row: the GPU's peak bandwidth (GB/s) and 16-bit
    peak (TFLOP/s, the always-read format's; the correction applies to 16-bit rows only), and
    the context T_in + T_out (tokens)."""
    return {"bandwidth_gbs": rows.bandwidth / 1e9, "fp16_tflops": rows.flops / 1e12,
            CONTEXT: rows.t_in + rows.t_out}  # fmt: skip


def beyond_training(model: HybridModel, values: dict[str, np.ndarray]) -> np.ndarray:
    """Rows where any of ``values`` (named as in ``model.ranges``) lies beyond its training range
    (a relative tolerance of 1e-9 at both ends)."""
    out = np.zeros(len(next(iter(values.values()))), dtype=bool)
    for name, v in values.items():
        lo, hi = model.ranges[name]
        out |= (v > hi * (1 + 1e-9)) | (v < lo * (1 - 1e-9))
    return out


def outside_support(model: HybridModel, values: dict[str, np.ndarray]) -> np.ndarray:
    """Rows whose GPU lies beyond the training GPUs' range of peak bandwidth or FP16 FLOP/s
    (``values``: :func:`support_values`): the correction reads these specs and its trees
    extrapolate flat beyond them, so the answer is the backbone alone."""
    return beyond_training(model, {name: values[name] for name in SUPPORT})


def beyond_context(model: HybridModel, values: dict[str, np.ndarray]) -> np.ndarray:
    """Rows whose context T_in + T_out is longer than any training run's (measured tokens, at most
    275): there the learned correction is one-sided (:func:`one_sided`). A context shorter than
    the runs' shortest (19) is not beyond them in this sense: the attention share of the step
    only shrinks toward the weight-dominated steps the runs measured, and the correction applies.

    Why: the correction does not see the context, yet a step's physics depends on it (KV-cache
    reads and attention FLOPs grow with it); its residuals were measured at Watt Counts' short
    prompts only. A factor above 1 (a slower step, more power than the backbone) stands for costs
    the physics misses — scheduling, launches, kernels below their fitted share — which a longer
    context does not remove; a factor below 1 claims a speed or a saving the backbone cannot see,
    in a regime no run timed. So beyond the context range only the first is kept. Cutting the
    correction off instead would let the ITL fall as the context grows past the range (a factor
    above 1 dropping to 1), which physics forbids; keeping the larger of the factor and 1 keeps
    the ITL non-decreasing in the context.

    Chosen after seeing the external check (issue 17): on the H100 SXM, whose specs lie inside the
    training range, the correction made throughput worse than the backbone alone (MdAPE 29.0 %
    against 27.0 %) on dense rows of 2,048 tokens of context, by speeding up Llama-3-8B and
    Mistral-7B steps. The external set is therefore no longer independent evidence for this rule
    (data/hybrid/candidates.json, the 2026-12-02 round)."""
    return values[CONTEXT] > model.ranges[CONTEXT][1] * (1 + 1e-9)


def one_sided(factors: dict[str, np.ndarray], beyond: np.ndarray) -> dict[str, np.ndarray]:
    """exp(correction) per target, held at 1 or above on the ``beyond`` rows (:func:`beyond_context`)."""
    return {t: np.where(beyond, np.maximum(f, 1.0), f) for t, f in factors.items()}


def _physics(rows: S.Rows, cap, rate, batch, c) -> dict[str, np.ndarray]:
    """Backbone outputs for mixed batch rows (rate NaN) and rate rows."""
    off = np.isnan(rate)
    out = {}
    for mask, fn in ((off, lambda r, m: S.at_batch(r, batch[m], c)),
                     (~off, lambda r, m: S.at_rate(r, rate[m], cap[m], c))):  # fmt: skip
        if mask.any():
            for key, value in fn(rows.take(mask), mask).items():
                out.setdefault(key, np.full(len(off), np.nan))[mask] = value
    return out


def _corrected(model, llms, gpus, out, intensity, odd, beyond=None) -> dict[str, np.ndarray]:
    """exp(clipped correction) per target (1 on physics-only rows, at least 1 on the ``beyond``
    rows, :func:`one_sided`); ``intensity``: bytes per FLOP of the step a request sees."""
    loads = load_features(out, intensity)
    factors = {}
    for target, corr in model.corrections.items():
        f = np.zeros(len(odd))
        if corr is not None and (~odd).any():
            idx = np.nonzero(~odd)[0]
            x = feature_matrix([llms[i] for i in idx], [gpus[i] for i in idx],
                               {k: v[idx] for k, v in loads.items()}, corr.columns, corr.families)  # fmt: skip
            f[idx] = corr.predict(x)
        factors[target] = np.exp(f)
    return factors if beyond is None else one_sided(factors, beyond)


def excess_efolds(model: HybridModel, values: dict[str, np.ndarray]) -> np.ndarray:
    """Sum over watched inputs of how many e-folds each lies beyond its training range."""
    total = np.zeros(len(next(iter(values.values()))))
    for name in WATCHED:
        lo, hi = model.ranges[name]
        v = np.maximum(values[name], 1e-12)
        total += np.maximum(np.log(v / hi), 0.0) + np.maximum(np.log(lo / v), 0.0)
    return total


def notes_for(model: HybridModel, values: dict[str, np.ndarray], i: int) -> list[str]:
    """Readable notes for row ``i``: which inputs lie beyond the training range."""
    out = []
    for name in WATCHED:
        lo, hi = model.ranges[name]
        v = float(values[name][i])
        if v > hi * (1 + 1e-9) or v < lo * (1 - 1e-9):
            side = "above" if v > hi else "below"
            out.append(f"{name} = {v:.4g} is {side} the training range [{lo:.4g}, {hi:.4g}]: "
                       "the interval is widened")  # fmt: skip
            if name in SUPPORT:
                out.append(f"no training GPU has a {name} like this one: the learned correction "
                           "does not apply, the answer is the physics backbone alone")  # fmt: skip
            if name == CONTEXT and v > hi:
                out.append("no training run had a context like this one: the learned correction "
                           "is kept only where it raises the answer (a slower step, more power), "
                           "never where it would claim a gain no run measured")  # fmt: skip
    return out


def predict_arrays(model: HybridModel, llms: Sequence[LLM], gpus: Sequence[GPU], t_in, t_out,
                   rate_qps, batch, level: float = 0.8, num_gpus=1,
                   weights: Sequence[str | None] | None = None) -> dict[str, np.ndarray]:  # fmt: skip
    """Every quantity of a prediction, one array per quantity, one value per row.

    ``rate_qps`` NaN = batch mode (``batch`` sequences), else Poisson arrivals. ``num_gpus``: GPUs
    per replica (tensor parallel); ``weights``: the served weight format per row (None: the
    LLM's own). Rows beyond the replica's capacity or whose weights do not fit get ``status``
    text and NaN values. Power and energy are the whole replica's.
    """
    n = len(llms)
    rate = np.broadcast_to(np.asarray(rate_qps, dtype=float), (n,)).copy()
    bat = np.broadcast_to(np.asarray(batch, dtype=float), (n,)).copy()
    rows, cap = R.build(llms, gpus, t_in, t_out, num_gpus, weights)
    c = model.constants
    odd = physics_only(llms, rows.num_gpus, rows.model[-1])
    support = support_values(rows)
    odd |= outside_support(model, support) | (not model.corrects)
    safe_cap = np.maximum(cap, 1.0)
    capacity = S.capacity_qps(rows, safe_cap, c)
    status = _status(cap, rate, bat, capacity)
    ok = status == "ok"
    out = _physics(rows, safe_cap, np.where(ok, rate, np.where(np.isnan(rate), np.nan, 1e-9)),
                   np.where(ok, bat, 1.0), c)  # fmt: skip
    offline = np.isnan(rate)
    step_batch = B.step_batch(out["in_flight"], offline, safe_cap)
    factor = _corrected(model, llms, gpus, out, B.bytes_per_flop(rows, step_batch), odd,
                        beyond_context(model, support))  # fmt: skip
    idle = S.idle_power_w(rows, c)
    power = np.clip(out["power_w"] * factor["power"], idle, rows.replica_tdp_w)
    floor = B.floor_step_s(rows, step_batch)
    itl = np.maximum(out["itl_s"] * factor["itl"], floor)
    # time per token at a rate is 1/(λ·T_out); in batch mode _bound derives it from the ITL,
    # and energy per token from both (power × time per token)
    result = {"power_w": power, "itl_s": itl, "time_per_token_s": out["time_per_token_s"],
              "in_flight": out["in_flight"],
              "busy_fraction": out["busy_fraction"], "capacity_qps": capacity,
              "max_batch": cap, "idle_power_w": idle, "itl_floor_s": floor,
              "backbone_itl_s": out["itl_s"], "backbone_power_w": out["power_w"]}  # fmt: skip
    _add_intervals(model, result, llms, gpus, rows, odd, offline, level)
    for key, value in result.items():
        if key not in (
            "capacity_qps",
            "max_batch",
            "idle_power_w",
            "basis",
            "_watched",
            "replica_tdp_w",
        ):
            result[key] = np.where(ok, value, np.nan)
    result["status"] = status
    return result


def _status(cap, rate, batch, capacity) -> np.ndarray:
    """'ok', or why a row has no steady state."""
    status = np.full(len(cap), "ok", dtype=object)
    status[(~np.isnan(rate)) & (rate >= capacity)] = "saturated"
    status[np.isnan(rate) & (batch > cap)] = "batch above the KV-cache capacity"
    status[cap < 1] = "does not fit in memory"
    return status


def _add_intervals(model, result, llms, gpus, rows, odd, offline, level) -> None:
    """lo/hi per quantity, the basis, and the widening beyond the training range."""
    devices, gi = unique_by_identity(gpus)
    models, li = unique_by_identity(llms)
    seen_g = np.array([gpu_fingerprint(g) in model.seen_gpus for g in devices], dtype=bool)[gi]
    seen_l = np.array([llm_fingerprint(m) in model.seen_llms for m in models], dtype=bool)[li]
    basis = K.basis_of(seen_l, seen_g, odd)
    watched = {"bandwidth_gbs": rows.bandwidth / 1e9, "fp16_tflops": rows.flops / 1e12,
               "params_b": rows.params_b, "in_flight": np.maximum(result["in_flight"], 1e-3),
               "context_tokens": rows.t_in + rows.t_out}  # fmt: skip
    widen = np.minimum(WIDEN_PER_EFOLD * excess_efolds(model, watched), WIDEN_MAX)
    regime = np.where(offline, "offline", "server")
    q = {t: np.zeros(len(basis)) for t in ("power", "itl")}
    for b in np.unique(basis):
        m = basis == b
        for t in q:
            q[t][m] = K.half_width(model.tables, str(b), t, regime[m], level)
    _bound(result, rows, offline, {t: q[t] + widen for t in q})
    result["basis"], result["widening"] = basis, widen
    result["_watched"] = watched


def _bound(result, rows, offline, half) -> None:
    """Intervals at ``half`` (log half-widths per target), then the hard bounds (:mod:`bounds`):
    ITL and its bounds at least the step floor, power and its bounds in [P_idle, G · TDP], time
    per token ITL / B in batch mode (exactly 1 / (λ · T_out) at a steady rate), energy per token
    power × time per token with bounds inside the products of theirs."""
    itl = B.bounded(result["itl_s"], result["itl_s"] * np.exp(-half["itl"]),
                    result["itl_s"] * np.exp(half["itl"]), result["itl_floor_s"])  # fmt: skip
    power = B.bounded(result["power_w"], result["power_w"] * np.exp(-half["power"]),
                      result["power_w"] * np.exp(half["power"]), result["idle_power_w"],
                      rows.replica_tdp_w)  # fmt: skip
    fixed = result["time_per_token_s"]
    tpt = tuple(np.where(offline, v / result["in_flight"], fixed) for v in itl)
    energy = B.energy_bounds(power, tpt, np.maximum(half["power"], half["itl"]))
    for key, values in (("itl_s", itl), ("power_w", power), ("time_per_token_s", tpt),
                        ("energy_per_token_j", energy)):  # fmt: skip
        result[key], result[f"{key}_lo"], result[f"{key}_hi"] = values
    result["replica_tdp_w"] = rows.replica_tdp_w
