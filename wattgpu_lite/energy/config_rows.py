"""What one configuration gives the backbone, and a list of them as arrays.

    config_row((llm, gpu, layout, (weights, kv_cache, engine)))   # -> ConfigRow, immutable
    stacked([row, ...])          # -> (arrays, KV blocks, engine limits), a row per configuration

A configuration's spec-sheet and config numbers (:mod:`wattgpu_lite.energy.args`) and KV blocks
(:func:`~wattgpu_lite.energy.occupancy.kv_blocks`) depend on it alone, not on the tokens:
:mod:`~wattgpu_lite.energy.backbone.row_arrays` keeps them per configuration and gathers them by row.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from wattgpu_lite.energy import uniques
from wattgpu_lite.energy.args import deploy_args, llm_args, model_gpu_args, model_peak_kinds
from wattgpu_lite.energy.backbone.step_power import PEAK_KINDS
from wattgpu_lite.energy.hardware import PHYSICAL_BASIS
from wattgpu_lite.energy.occupancy import kv_blocks
from wattgpu_lite.specs.engine import engine as engine_of

# what configurations give (:func:`stacked`): their arrays, KV blocks and default limits
Stacked = tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]


class ConfigRow(NamedTuple):
    """What one (LLM, GPU, layout, (weights, KV cache, engine)) configuration gives the backbone,
    not the tokens: its records and numbers (:func:`config_row`), immutable."""

    model: tuple  # llm_args
    hw: tuple  # model_gpu_args, each tensor group at its own format's peak
    deploy: tuple  # deploy_args
    n_layers: float
    params_b: float
    num_gpus: float
    idle_spec_w: float
    peak_kind: tuple[int, int]  # PEAK_KINDS index of each tensor group's peak
    rocm: float  # 1.0 on a ROCm GPU (an AMD one), else 0.0
    blocks: float  # kv_blocks: the replica's KV blocks
    limit: float  # the engine's default concurrency limit
    flat: bytes  # every number above in order, as float64 bytes (:func:`stacked` joins them)


def config_row(config: tuple) -> ConfigRow:
    """The :class:`ConfigRow` of one (LLM, GPU, layout, (weights, KV cache, engine))."""
    m, g, count, (w, kv, eng) = (uniques.unhashed(x) for x in config)
    model = tuple(llm_args(m, w, kv))
    hw = tuple(model_gpu_args(m, g, 0.0, PHYSICAL_BASIS, weights=w))
    deploy, numbers = tuple(deploy_args(g, count)), (m.n_layers, m.params_b, count.num_gpus)
    kinds = tuple(PEAK_KINDS.index(k) for k in model_peak_kinds(m, g, w))
    blocks, limit = kv_blocks(m, g, count, w, kv_cache=kv, engine=eng), engine_of(eng).max_num_seqs
    rocm = float(g.vendor == "AMD")
    parts = (model, hw, deploy, *numbers, g.idle_power_w, kinds, rocm, blocks, limit)
    flat = np.array([x for p in parts for x in (p if isinstance(p, tuple) else (p,))], dtype=float)
    return ConfigRow._make((*parts, flat.tobytes()))


def stacked(rows: list[ConfigRow]) -> Stacked:
    """The configurations' arrays, one row per configuration, their KV blocks and their
    engines' default concurrency limits, from their :class:`ConfigRow` (their bytes joined:
    one array, whose columns are the fields; a field of a tuple a 2-D block)."""
    flat = np.frombuffer(b"".join([r.flat for r in rows]), dtype=float).reshape(len(rows), -1)
    arrays, at = {}, 0
    for k, v in zip(ConfigRow._fields[:-1], rows[0][:-1], strict=True):
        width = len(v) if isinstance(v, tuple) else 1
        arrays[k] = (flat[:, at : at + width] if isinstance(v, tuple) else flat[:, at]).copy()
        at += width
    arrays["peak_kind"] = arrays["peak_kind"].astype(np.int64)
    return arrays, arrays.pop("blocks"), arrays.pop("limit")
