"""The learned part: a bounded correction of the backbone, in log space.

    ln y = ln y_physics + clip(f(x), −bound, +bound)

f is an XGBoost forest fitted on ln(y_measured / y_physics) of the training runs, from spec-sheet and
config inputs only (a user can give every one of them) and the load the backbone computed. Where
physics fixes a sign, XGBoost's ``monotone_constraints`` hold it: the correction never falls as the
load rises, so neither does the prediction. The clip bounds how far data may pull physics.

This module predicts with numpy (:mod:`trees`); fitting, which needs XGBoost, is in
:func:`wattgpu_lite.hybrid.fit.candidates.fit_correction`, so a prediction never imports XGBoost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from wattgpu_lite.energy.uniques import unique_by_identity
from wattgpu_lite.hybrid.predict.trees import FixedCodes, Forest
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.llm import LLM

# NVIDIA architectures whose vLLM build has FlashAttention (compute capability >= 8.0), and AMD's
# CDNA parts with its ROCm port; Volta (7.0) and Turing (7.5) fall back to slower kernels.
FORESTS_CACHED = 8  # parsed correction forests kept (_forest); the shipped model has two
PAIRS_CACHED = 256  # (correction, forest, pairs) whose fixed codes are kept (_pair_codes)
PAIRS_KEPT_UP_TO = 64  # pairs in a call whose codes are kept (a predict, a ranking)
FLASH_ARCHITECTURES = ("Ampere", "Ada Lovelace", "Hopper", "Blackwell", "Blackwell Ultra",
                       "CDNA 2", "CDNA 3", "CDNA 4")  # fmt: skip
FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "gpu": ("log_bandwidth_gbs", "log_fp16_tflops", "log_tdp_w", "log_memory_gb", "release_year",
            "hbm", "flash_attention"),
    "llm": ("log_params_b", "n_layers", "log_hidden_size", "kv_group", "head_dim"),
    "load": ("log_in_flight", "busy_fraction", "log_bytes_per_flop"),
}  # fmt: skip
LLM_COLUMNS = (*FEATURE_GROUPS["llm"], "model_type")  # the columns an LLM gives (llm_features)
MONOTONE_UP = ("log_in_flight", "busy_fraction")  # more load never lowers ITL or power
# bytes per FLOP fall as the batch grows (weights shared, FLOPs not): held non-increasing, so the
# correction still never falls as the load rises
MONOTONE_DOWN = ("log_bytes_per_flop",)
TARGET_CLIP = 1.0  # residuals beyond ±1 (×e) are clipped before fitting: odd runs do not lead
# The load inputs and the fitted residuals are rounded to this many decimals (logs and shares: one
# part in 10^6), so a last-bit difference in the backbone (another BLAS kernel, another run order)
# does not move a tree's split; far below any measurement's precision.
TREE_DECIMALS = 6


def gpu_features(g: GPU) -> dict[str, float]:
    """Spec-sheet inputs of one GPU (logs of the rates and sizes)."""
    return {
        "log_bandwidth_gbs": np.log(g.bandwidth_gbs),
        "log_fp16_tflops": np.log(g.fp16_tflops),
        "log_tdp_w": np.log(g.tdp_w),
        "log_memory_gb": np.log(g.memory_gb),
        "release_year": float(g.release_year),
        "hbm": float(str(g.memory_type).startswith("HBM")),
        "flash_attention": float(g.architecture in FLASH_ARCHITECTURES),
    }


def llm_features(m: LLM) -> dict[str, float]:
    """config.json inputs of one LLM."""
    return {
        "log_params_b": np.log(m.params_b),
        "n_layers": float(m.n_layers),
        "log_hidden_size": np.log(m.hidden_size),
        "kv_group": m.n_heads / m.n_kv_heads,
        "head_dim": float(m.head_dim),
        "model_type": m.model_type,
    }


def raw_load_features(out: dict[str, np.ndarray], bytes_per_flop: np.ndarray) -> dict:
    """The load inputs of the correction before :func:`load_features` rounds them."""
    return {"log_in_flight": np.log(np.maximum(out["in_flight"], 1e-6)),
            "busy_fraction": out["busy_fraction"],
            "log_bytes_per_flop": np.log(np.maximum(bytes_per_flop, 1e-300))}  # fmt: skip


def load_features(out: dict[str, np.ndarray], bytes_per_flop: np.ndarray) -> dict[str, np.ndarray]:
    """The load inputs of the correction, physical quantities only: the sequences in flight and
    the share of time busy (the backbone's outputs), and the bytes per FLOP of the step a request
    sees (:func:`wattgpu_lite.hybrid.predict.bounds.bytes_per_flop`). No regime flag: batch mode and a
    rate differ in these quantities, and each target is corrected in its own unit. Each is rounded
    to :data:`TREE_DECIMALS` decimals (rounding keeps the order, so the monotone constraints hold)."""
    raw = raw_load_features(out, bytes_per_flop)
    return {k: np.asarray(v, dtype=float).round(TREE_DECIMALS) for k, v in raw.items()}


def feature_matrix(
    llms: Sequence[LLM],
    gpus: Sequence[GPU],
    load: dict[str, np.ndarray],
    columns: Sequence[str],
    *,
    families: Sequence[str] = (),
) -> np.ndarray:
    """Rows × ``columns``; ``model_type`` is coded by its position in ``families`` (NaN if new).
    Each distinct LLM and GPU object is described once and gathered by row."""
    models, li = unique_by_identity(llms)
    devices, gi = unique_by_identity(gpus)
    lf = [llm_features(m) for m in models]
    gf = [gpu_features(g) for g in devices]
    code = {f: float(i) for i, f in enumerate(families)}
    cols = []
    for c in columns:
        if c == "model_type":
            cols.append(np.array([code.get(f["model_type"], np.nan) for f in lf])[li])
        elif c in lf[0]:
            cols.append(np.array([f[c] for f in lf], dtype=float)[li])
        elif c in gf[0]:
            cols.append(np.array([f[c] for f in gf], dtype=float)[gi])
        else:
            cols.append(np.broadcast_to(np.asarray(load[c], dtype=float), li.shape))
    return np.column_stack(cols)


@dataclass(frozen=True)
class Correction:
    """A fitted correction: its inputs, bound, model_type codes, and the forest (as JSON text)."""

    columns: tuple[str, ...]
    bound: float
    families: tuple[str, ...]
    forest_json: str

    def predict(self, x: np.ndarray) -> np.ndarray:
        """clip(f(x), −bound, bound), evaluated with numpy (:class:`trees.Forest`)."""
        return np.clip(_forest(self.forest_json).predict(x), -self.bound, self.bound)

    def fixed_part(self, x: np.ndarray) -> FixedCodes | None:
        """What the rows of ``x`` give the forest through every column but the load ones
        (:data:`FEATURE_GROUPS` "load"), for :meth:`predict_at_loads`; None if the forest is
        walked."""
        moving = [j for j, c in enumerate(self.columns) if c in FEATURE_GROUPS["load"]]
        return _forest(self.forest_json).fixed_codes(x, moving)

    def predict_at_loads(
        self, fixed: FixedCodes, rows: np.ndarray, load: dict[str, np.ndarray]
    ) -> np.ndarray:
        """:meth:`predict` of rows whose columns are those of rows ``rows`` of ``fixed``
        (:meth:`fixed_part`) but the load ones, given by name in ``load``: the same values,
        testing the load splits only (``Forest.predict_at``)."""
        moving = {j: load[self.columns[j]] for j in fixed.columns}
        out = _forest(self.forest_json).predict_at(fixed, rows, moving)
        return np.minimum(np.maximum(out, -self.bound), self.bound)  # np.clip's values

    def predict_loads(
        self, llms: Sequence[LLM], gpus: Sequence[GPU], load: dict[str, np.ndarray], pairs=None
    ) -> np.ndarray:
        """:meth:`predict` of ``feature_matrix(llms, gpus, load, ...)``, the same values: each
        distinct (LLM, GPU) pair's columns go through the forest once (:meth:`fixed_part`), then
        each row's load columns alone (``Forest.predict_at``); ``pairs``: :func:`pairs_of` the
        rows, when the caller has it (every target's correction reads the same)."""
        (pair_llms, pair_gpus), row_pair = pairs_of(llms, gpus) if pairs is None else pairs
        moving = {j: c for j, c in enumerate(self.columns) if c in FEATURE_GROUPS["load"]}
        own = type(self).predict is Correction.predict  # not a stand-in's own predict
        forest = _forest(self.forest_json)
        if own and forest.tables is not None and len(pair_llms) > PAIRS_KEPT_UP_TO:
            x, fixed = None, _summed_pair_codes(self, forest, pair_llms, pair_gpus)
        elif own:
            x, fixed = _pair_codes_once(self, forest, pair_llms, pair_gpus)
        else:
            x, fixed = _pair_codes.__wrapped__(self, None, pair_llms, pair_gpus)
        if fixed is None:  # a walked forest (or another predict): every column of every row
            x = x[row_pair]  # a copy: the pairs' matrix may be kept
            for j, c in moving.items():
                x[:, j] = load[c]
            return self.predict(x)
        out = forest.predict_at(fixed, row_pair, {j: load[c] for j, c in moving.items()})
        return np.minimum(np.maximum(out, -self.bound), self.bound)  # np.clip's values


def _summed_pair_codes(
    corr: Correction, forest: Forest, llms: list[LLM], gpus: list[GPU]
) -> FixedCodes:
    """:func:`_pair_codes`' fixed codes of many pairs (``forest`` read through tables), from each
    distinct LLM's columns and each distinct GPU's once (:meth:`Forest.fixed_codes_of_parts`:
    the same codes), not from every pair's row: a long table's chunk names ~10^3 pairs of a
    few dozen LLMs and GPUs."""
    models, li = unique_by_identity(llms)
    devices, gi = unique_by_identity(gpus)
    moving = [j for j, c in enumerate(corr.columns) if c in FEATURE_GROUPS["load"]]
    load = dict.fromkeys((corr.columns[j] for j in moving), 0.0)
    of_llms = feature_matrix(
        models, [devices[0]] * len(models), load, corr.columns, families=corr.families
    )
    of_gpus = feature_matrix(
        [models[0]] * len(devices), devices, load, corr.columns, families=corr.families
    )
    llm_columns = [j for j, c in enumerate(corr.columns) if c in LLM_COLUMNS]
    gpu_columns = [j for j, c in enumerate(corr.columns) if c in FEATURE_GROUPS["gpu"]]
    return forest.fixed_codes_of_parts(
        [(of_llms, llm_columns, li), (of_gpus, gpu_columns, gi)], moving
    )


def _pair_codes_once(
    corr: Correction, forest: Forest, llms: list[LLM], gpus: list[GPU]
) -> tuple[np.ndarray, FixedCodes | None]:
    """:func:`_pair_codes`, kept for the next call with the same correction, forest and pairs
    (LLMs and GPUs by value) when there are at most :data:`PAIRS_KEPT_UP_TO` pairs; more, or a
    pair that cannot be hashed, are coded afresh."""
    llms, gpus = tuple(llms), tuple(gpus)
    if len(llms) <= PAIRS_KEPT_UP_TO:
        try:  # kept; an unhashable pair is coded afresh (a TypeError of the coding raises again)
            return _pair_codes(corr, forest, llms, gpus)
        except TypeError:
            pass
    return _pair_codes.__wrapped__(corr, forest, llms, gpus)


@lru_cache(maxsize=PAIRS_CACHED)
def _pair_codes(
    corr: Correction, forest: Forest | None, llms: Sequence[LLM], gpus: Sequence[GPU]
) -> tuple[np.ndarray, FixedCodes | None]:
    """The feature matrix of the distinct (LLM, GPU) pairs ``llms[i], gpus[i]`` (load columns 0)
    and ``forest``'s codes of its fixed columns (:meth:`Correction.fixed_part`; None for a
    walked forest, or no ``forest``: a stand-in correction), read-only: they depend on the pairs
    alone, not on the load. ``forest`` (compared by identity) is the one the codes are of."""
    moving = [j for j, c in enumerate(corr.columns) if c in FEATURE_GROUPS["load"]]
    load = dict.fromkeys((corr.columns[j] for j in moving), 0.0)
    x = feature_matrix(llms, gpus, load, corr.columns, families=corr.families)
    fixed = None if forest is None else forest.fixed_codes(x, moving)
    for a in (x,) if fixed is None else (x, fixed.code, fixed.moving):
        a.flags.writeable = False
    return x, fixed


def pairs_of(llms: Sequence[LLM], gpus: Sequence[GPU]) -> tuple[tuple[list, list], np.ndarray]:
    """The distinct (LLM, GPU) pairs of the rows, by identity, as (LLMs, GPUs), and each row's
    pair."""
    if len(llms) == 1:  # one row (a single predict): its own pair
        return ([llms[0]], [gpus[0]]), np.zeros(1, dtype=np.intp)
    models, li = unique_by_identity(llms)
    devices, gi = unique_by_identity(gpus)
    key, row_pair = np.unique(li * len(devices) + gi, return_inverse=True)
    pairs = [models[k] for k in key // len(devices)], [devices[k] for k in key % len(devices)]
    return pairs, row_pair.reshape(-1)


@lru_cache(maxsize=FORESTS_CACHED)
def _forest(text: str) -> Forest:
    """The numpy forest of a correction's JSON text, parsed once per text (the shipped model has
    two; a refit or a test adds a few: at most :data:`FORESTS_CACHED` are kept)."""
    return Forest.from_json(text)
