"""Where the learned correction has data, and the interval each prediction gets.

**Support.** A row the runs never cover (mixture-of-experts, weights below 16 bits, several GPUs)
or whose GPU lies outside the training GPUs' peak bandwidth or FP16 FLOP/s gets the physics backbone
alone; beyond the training range of a watched input, the interval widens by ``WIDEN_PER_EFOLD`` per
e-fold, at most ``WIDEN_MAX`` (data/models/wattgpu_hybrid/candidates.json); a GPU or LLM counts as
seen by its spec values (fingerprint), never by its name.

**Basis.** A prediction's *basis* says which situation its interval was calibrated on, decided by
the spec values and architecture it was given, never by a name:

- ``cv``: the LLM's architecture and the GPU's spec both appear in the training runs (scores of five
  folds grouped by (LLM, GPU) pair; a plain row quantile — the per-group floor is for GPU and LLM
  groups);
- ``new gpu``: the GPU is new (scores of leave one GPU out, grouped by GPU);
- ``new llm``: the LLM is new (five folds grouped by LLM, grouped by LLM);
- ``new gpu and llm``: both are new (folds holding out one GPU and a fifth of the LLMs at once);
- ``physics``: the backbone alone, with the 'physics' candidate's leave-one-GPU-out scores; on a
  configuration the runs never cover, the ITL's from other harnesses (interval_steps.cell_step).

Each table maps a basis, target and scenario group to the half-width q at a grid of levels.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from wattgpu_lite.energy import backbone
from wattgpu_lite.energy.uniques import unique_by_identity
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.llm import LLM

BASES = ("cv", "new gpu", "new llm", "new gpu and llm", "physics")
LEVEL_GRID = tuple(round(x, 3) for x in (*np.arange(0.50, 0.991, 0.01), 0.995, 0.999))
_GRID = np.array(LEVEL_GRID)  # the levels as an array, and as the tables' keys: made once
_LEVEL_KEYS = tuple(f"{lv:g}" for lv in LEVEL_GRID)
_GRID.flags.writeable = False
BASIS_TEXT = np.array(BASES)  # the names as numpy text, gathered by code (basis_code_of)
BASIS_TEXT.flags.writeable = False


def q_at(tables: dict, basis: str, target: str, regime: str, *, level: float) -> float:
    """The half-width q of one basis, target and regime ("server" or "offline") at ``level``,
    linear between the grid levels: np.interp over the two grid levels around ``level`` (the
    last grid level at or below it and the next; the first two, or the last two, beyond the
    grid), the pair np.interp over the whole grid reads, so the same value."""
    row = tables[basis][target][regime]
    j = min(max(int(np.searchsorted(_GRID, level, side="right")) - 1, 0), len(_GRID) - 2)
    return np.interp(level, _GRID[j : j + 2], [row[_LEVEL_KEYS[j]], row[_LEVEL_KEYS[j + 1]]])


def basis_code_of(
    llm_seen: np.ndarray, gpu_seen: np.ndarray, physics_only: np.ndarray
) -> np.ndarray:
    """The basis per row from what the training runs contain, as its index into :data:`BASES`:
    4 ("physics") where ``physics_only``, else 2 · (the LLM is new) + (the GPU is new), which
    is BASES' order (cv, new gpu, new llm, new gpu and llm)."""
    new = 2 * ~np.asarray(llm_seen, dtype=bool) + ~np.asarray(gpu_seen, dtype=bool)
    return np.where(physics_only, BASES.index("physics"), new)


WIDEN_PER_EFOLD = 0.5  # half-width added per e-fold beyond the training range (candidates.json)
WIDEN_MAX = 1.0
WATCHED = ("bandwidth_gbs", "fp16_tflops", "params_b", "in_flight", "context_tokens")


def gpu_fingerprint(g: GPU) -> str:
    """The spec values the predictor reads, as text: equal text, one GPU (:func:`_kept_text`)."""
    return _kept_text(_gpu_text, g)


def llm_fingerprint(m: LLM) -> str:
    """The architecture values the predictor reads, as text (kept per LLM, :func:`_kept_text`)."""
    return _kept_text(_llm_text, m)


FINGERPRINTS_CACHED = 512  # GPUs and LLMs whose fingerprints are kept (:func:`_kept_text`)


def _kept_text(fn, value) -> str:
    """``fn(value)``, kept for the next call with an equal (frozen) ``value``: a warm predict asks
    the same GPU's and LLM's text every time; one that cannot be hashed: afresh."""
    try:
        return _text_of(fn, value)
    except TypeError:
        return fn(value)


@lru_cache(maxsize=FINGERPRINTS_CACHED)
def _text_of(fn, value) -> str:
    return fn(value)


def _gpu_text(g: GPU) -> str:
    """:func:`gpu_fingerprint`'s text."""
    return "|".join(
        f"{v:.6g}" if isinstance(v, float) else str(v)
        for v in (
            g.bandwidth_gbs,
            g.fp16_tflops,
            g.tdp_w,
            g.memory_gb,
            g.release_year,
            g.memory_type,
            g.architecture,
        )
    )


def _llm_text(m: LLM) -> str:
    """:func:`llm_fingerprint`'s text."""
    return "|".join(
        str(v)
        for v in (
            m.model_type,
            m.n_layers,
            m.hidden_size,
            m.intermediate_size,
            m.n_heads,
            m.n_kv_heads,
            m.head_dim,
            m.vocab_size,
            f"{m.params_b:.6g}",
            m.n_experts,
            m.weight_format,
        )
    )


def physics_only(llms: Sequence[LLM], num_gpus: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """Rows the runs never cover: MoE, weights served below 16 bits, or several GPUs."""
    models, li = unique_by_identity(llms)
    moe = np.array([m.is_moe for m in models], dtype=bool)[li]
    return moe | (np.asarray(bits) < 16) | (np.asarray(num_gpus) > 1)


SUPPORT = ("bandwidth_gbs", "fp16_tflops")  # the GPU spec inputs whose training range bounds it
CONTEXT = "context_tokens"  # T_in + T_out: beyond the runs' range the correction is one-sided


def support_values(rows: backbone.Rows) -> dict[str, np.ndarray]:
    """The inputs that bound the correction, per row: the GPU's peak bandwidth (GB/s) and 16-bit
    peak (TFLOP/s, the always-read format's; the correction applies to 16-bit rows only), and
    the context T_in + T_out (tokens)."""
    return {
        "bandwidth_gbs": rows.bandwidth / 1e9,
        "fp16_tflops": rows.flops / 1e12,
        CONTEXT: rows.t_in + rows.t_out,
    }


def beyond_training(model: HybridState, values: dict[str, np.ndarray]) -> np.ndarray:
    """Rows where any of ``values`` (named as in ``model.ranges``) lies beyond its training range
    (a relative tolerance of 1e-9 at both ends)."""
    out = np.zeros(len(next(iter(values.values()))), dtype=bool)
    for name, v in values.items():
        lo, hi = model.ranges[name]
        out |= (v > hi * (1 + 1e-9)) | (v < lo * (1 - 1e-9))
    return out


def outside_support(model: HybridState, values: dict[str, np.ndarray]) -> np.ndarray:
    """Rows whose GPU lies beyond the training GPUs' range of peak bandwidth or FP16 FLOP/s
    (``values``: :func:`support_values`): the correction reads these specs and its trees
    extrapolate flat beyond them, so the answer is the backbone alone."""
    return beyond_training(model, {name: values[name] for name in SUPPORT})


def beyond_context(model: HybridState, values: dict[str, np.ndarray]) -> np.ndarray:
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
    if not beyond.any():  # every factor as it is (np.where's values)
        return dict(factors)
    return {t: np.where(beyond, np.maximum(f, 1.0), f) for t, f in factors.items()}


def excess_efolds(model: HybridState, values: dict[str, np.ndarray]) -> np.ndarray:
    """Sum over watched inputs of how many e-folds each lies beyond its training range: every
    input's e-folds in one (inputs, rows) expression, added up input by input in WATCHED's order."""
    lo, hi = _ends(tuple(tuple(model.ranges[name]) for name in WATCHED))
    v = np.maximum([values[name] for name in WATCHED], 1e-12)
    efolds = np.maximum(np.log(v / hi), 0.0) + np.maximum(np.log(lo / v), 0.0)
    one = v.shape[1] == 1  # one row: the same sum from 0, input by input, on its floats
    total = 0.0 if one else np.zeros(v.shape[1])
    for each in efolds[:, 0].tolist() if one else efolds:
        total += each
    return np.array([total]) if one else total


@lru_cache(maxsize=8)
def _ends(ranges: tuple[tuple[float, float], ...]) -> np.ndarray:
    """(2, inputs, 1) the low and high ends of ``ranges`` (:data:`WATCHED`'s order), read-only."""
    out = np.array(ranges).T[:, :, None]
    out.flags.writeable = False
    return out


def notes_for(model: HybridState, values: dict[str, np.ndarray], i: int, what: str) -> list[str]:
    """Readable notes for row ``i``: which inputs lie beyond the training range (``what``: the
    interval that widens, "the interval", or "the power interval" beside a cross-source ITL)."""
    out = []
    for name in WATCHED:
        lo, hi = model.ranges[name]
        v = float(values[name][i])
        if v > hi * (1 + 1e-9) or v < lo * (1 - 1e-9):
            side = "above" if v > hi else "below"
            out.append(
                f"{name} = {v:.4g} is {side} the training range [{lo:.4g}, {hi:.4g}]: "
                f"{what} is widened"
            )
            if name in SUPPORT:
                out.append(
                    f"no training GPU has a {name} like this one: the learned correction "
                    "does not apply, the answer is the physics backbone alone"
                )
            if name == CONTEXT and v > hi:
                out.append(
                    "no training run had a context like this one: the learned correction "
                    "is kept only where it raises the answer (a slower step, more power), "
                    "never where it would claim a gain no run measured"
                )
    return out
