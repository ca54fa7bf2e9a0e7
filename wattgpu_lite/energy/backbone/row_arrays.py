"""Per-row arrays for the backbone, built once per distinct configuration and gathered by index.

A table of 10^4 (LLM, GPU, GPU count, weight and KV-cache format, engine, workload) rows usually
names a few dozen configurations: their spec-sheet and config numbers
(:mod:`wattgpu_lite.energy.args`) and KV-cache capacity (:mod:`wattgpu_lite.energy.occupancy`, the
kit's one definition) are computed once each (:mod:`~wattgpu_lite.energy.config_rows`) and
gathered, at microseconds per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from wattgpu_lite.energy import uniques
from wattgpu_lite.energy.args import Deployment, ModelRecord
from wattgpu_lite.energy.backbone.step_power import Rows
from wattgpu_lite.energy.config_rows import ConfigRow, Stacked, config_row, stacked
from wattgpu_lite.energy.occupancy import MEM_UTIL, offline_in_flight, seqs_in
from wattgpu_lite.energy.uniques import Coded, take, unique_by_identity, unique_rows
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.layout import Parallel, as_layout
from wattgpu_lite.specs.llm import LLM

__all__ = ["MEM_UTIL", "Built", "build", "build_once", "layouts_per_row", "offline_in_flight"]
CONFIGS_CACHED = 256  # configuration lists whose arrays are kept (:func:`_configured`)
CACHED_UP_TO = 64  # configurations in a list kept (a predict, a ranking); a long table's: not
CONFIG_ROWS_CACHED = 4096  # single configurations whose rows are kept (:func:`_configured_one`)
# the Rows field of each column of model_gpu_args (a Hardware; its static_w: not a field)
HW_FIELDS = ("alpha", "e_bit", "flops", "bandwidth", "tdp_w", None, "alpha_expert", "flops_expert")


def layouts_per_row(num_gpus, n: int) -> Sequence[Parallel]:
    """One Parallel per row from a count, a Parallel, or a sequence of either (a :class:`Coded`
    one stays coded)."""
    if isinstance(num_gpus, Coded):  # each distinct value the rows use converted once
        used = np.bincount(num_gpus.code, minlength=len(num_gpus.distinct)) > 0
        distinct = zip(num_gpus.distinct, used.tolist(), strict=True)
        return Coded([as_layout(_plain(v)) if u else None for v, u in distinct], num_gpus.code)
    if isinstance(num_gpus, Parallel) or np.ndim(num_gpus) == 0:
        return [as_layout(_plain(num_gpus))] * n
    distinct, code = unique_by_identity(list(num_gpus))  # each distinct value converted once
    return take([as_layout(_plain(v)) for v in distinct], code)


def _plain(value):
    """A numpy integer (or integral float) as int; anything else unchanged."""
    if isinstance(value, np.integer | np.floating) and float(value).is_integer():
        return int(value)
    return value


def _codes(llms, gpus, layouts, formats) -> tuple[list, np.ndarray]:
    """Distinct (LLM, GPU, layout, format) configurations, in the order of their first rows, and
    each row's index into them. ``formats``: per row, a weight format or a tuple (weight format,
    KV-cache format, engine), coded by its text. A configuration is the row of its four codes
    (:func:`~wattgpu_lite.energy.uniques.unique_rows`; no arithmetic packing, which can collide)."""
    if len(llms) == 1:  # one row (a single predict): its own configuration
        return [(llms[0], gpus[0], layouts[0], formats[0])], np.zeros(1, dtype=np.int64)
    models, li = unique_by_identity(llms)
    devices, gi = unique_by_identity(gpus)
    fmts, fo = unique_by_identity(formats)  # each distinct object coded once, gathered by row
    fmt_index = {f: k for k, f in enumerate(sorted({str(f) for f in fmts}))}
    fi = np.array([fmt_index[str(f)] for f in fmts], dtype=np.int64).reshape(-1)[fo]
    kinds, ko = unique_by_identity(layouts)
    kind_index = {p: k for k, p in enumerate(sorted(set(kinds), key=lambda p: (p.tp, p.ep)))}
    pi = np.array([kind_index[p] for p in kinds], dtype=np.int64).reshape(-1)[ko]
    code, first = unique_rows([li, gi, pi, fi])
    return _configs_at(llms, gpus, layouts, formats, rows=first), code


def _configs_at(llms, gpus, layouts, formats, *, rows: np.ndarray) -> list[tuple]:
    """The (LLM, GPU, layout, format) of each row of ``rows``, each distinct LLM, GPU and layout
    hashed once (:class:`~wattgpu_lite.energy.uniques.Hashed`: the configuration caches' keys)."""
    parts = zip(*(uniques.hashed_at(x, rows) for x in (llms, gpus, layouts)), strict=True)
    return [(m, g, c, formats[i]) for (m, g, c), i in zip(parts, rows.tolist(), strict=True)]


def _coded_per_row(value, n: int) -> Coded:
    """One entry per row, coded: one value (None included), a sequence of ``n`` (each distinct
    object coded once) or a :class:`Coded` (as it is)."""
    if isinstance(value, Coded):
        return value
    if value is None or isinstance(value, str) or np.ndim(value) == 0:
        return Coded([value], np.zeros(n, dtype=np.int64))
    distinct, code = unique_by_identity(list(value))
    return Coded(distinct, code)


def _formats(weights, kv_cache, engine, n: int) -> Sequence:
    """One format per row: the weight format (None: the LLM's own), or, when a KV-cache format
    or an engine is given, the tuple (weights, KV cache, engine), each distinct combination of
    the rows' objects one tuple (:class:`Coded`)."""
    if kv_cache is None and engine is None:  # a tuple per row only when asked for
        if weights is None:
            return [None] * n
        return weights if isinstance(weights, Coded) else list(weights)
    parts = [_coded_per_row(v, n) for v in (weights, kv_cache, engine)]
    group, first = unique_rows([p.code for p in parts])
    return Coded([tuple(p[i] for p in parts) for i in first], group)


@dataclass(frozen=True)
class Built:
    """Rows' distinct configurations, built once: their arrays (:func:`stacked`), each
    row's configuration and its KV capacity (sequences). :meth:`rows` gathers the backbone's
    :class:`Rows` of any subset of the rows, as :func:`build` of that subset would."""

    arrays: dict[str, np.ndarray]  # one row per configuration
    code: np.ndarray  # (rows,) each row's configuration
    t_in: np.ndarray  # (rows,) tokens
    t_out: np.ndarray
    cap: np.ndarray  # (rows,) sequences the replica's KV cache holds

    def rows(self, part: np.ndarray | slice = slice(None)) -> tuple[Rows, np.ndarray]:
        """(Rows, capacities) of the rows ``part``, in its order."""
        a, code = self.arrays, self.code[part]
        # a field per row of each block, gathered by column: each field contiguous, as the
        # physics reads it (a row of a gathered (rows, fields) block would be strided)
        model, hw, deploy = (np.take(a[k].T, code, axis=1) for k in ("model", "hw", "deploy"))
        rows = Rows(
            model=ModelRecord._make(model),
            **{k: a[k][code] for k in ("n_layers", "num_gpus", "params_b", "idle_spec_w", "rocm")},
            **{k: hw[j] for j, k in enumerate(HW_FIELDS) if k},
            t_in=self.t_in[part].copy(),
            t_out=self.t_out[part].copy(),
            deploy=Deployment._make(deploy),
            peak_kind=a["peak_kind"][code, 0],
            peak_kind_expert=a["peak_kind"][code, 1],
        )
        return rows, self.cap[part]


def build(*args, **kwargs) -> tuple[Rows, np.ndarray]:
    """(Rows, sequences in flight a replica can hold) of :func:`build_once`'s arguments."""
    return build_once(*args, **kwargs).rows()


def build_once(
    llms: Sequence[LLM],
    gpus: Sequence[GPU],
    t_in,
    t_out,
    *,
    num_gpus=1,
    weights: Sequence[str | None] | None = None,
    kv_cache=None,
    engine=None,
    max_num_seqs=None,
    groups: np.ndarray | None = None,
) -> Built:
    """The configurations and KV capacities of per-row LLMs, GPUs, layouts (a GPU count or
    :class:`~wattgpu_lite.specs.layout.Parallel`, or one per row), weight formats (None: each
    LLM's own), KV-cache formats (None: "auto"), engines (None: vLLM) and concurrency limits
    (None: the engine's default) — each of the last three one value or one per row — and token
    counts, kept for :meth:`Built.rows` of any part of the rows (a long table builds them once,
    then gathers a chunk's rows at a time). The capacity is
    :func:`~wattgpu_lite.energy.occupancy.kv_capacity_seqs`. ``groups``: each row's group when
    the caller has grouped the rows already (rows of one group share their LLM, GPU, layout and
    formats; two groups may name equal ones): each group is then a configuration, not found
    again (:func:`_codes`); the same rows."""
    n = len(llms)
    formats = _formats(weights, kv_cache, engine, n)
    layouts = layouts_per_row(num_gpus, n)
    if groups is None:
        configs, code = _codes(llms, gpus, layouts, formats)
    else:  # a configuration per group, from any of its rows
        code, first = uniques.dense_groups(groups)
        configs = _configs_at(llms, gpus, layouts, formats, rows=first)
    configs = [(m, g, c, f if isinstance(f, tuple) else (f, None, None)) for m, g, c, f in configs]
    t_in = np.broadcast_to(np.asarray(t_in, dtype=float), (n,)).copy()
    t_out = np.broadcast_to(np.asarray(t_out, dtype=float), (n,)).copy()
    arrays, blocks, limit = _configured_once(tuple(configs))
    # each row's KV capacity, kv_capacity_seqs' second half (the engine's limit where not given)
    given = None if max_num_seqs is None else np.asarray(max_num_seqs, dtype=float)
    limit = limit[code] if given is None else np.broadcast_to(given, (n,))
    cap = seqs_in(blocks[code], t_in, t_out, limit)
    return Built(arrays, code.astype(np.int32), t_in, t_out, cap=cap)  # < 2^31 configurations


def _configured_once(configs: tuple[tuple, ...]) -> Stacked:
    """:func:`_configured` of ``configs``, kept for the next call with equal configurations
    (compared by value) when there are at most :data:`CACHED_UP_TO` of them; a longer list is
    stacked from each one's kept row (:func:`_configured_one`); one not hashable: afresh."""
    try:
        if len(configs) <= CACHED_UP_TO:
            return _configured(configs)
        return stacked([_configured_one(c) for c in configs])
    except TypeError:  # unhashable: built afresh (a TypeError of the build itself raises again)
        return stacked([config_row(c) for c in configs])


@lru_cache(maxsize=CONFIGS_CACHED)
def _configured(configs: tuple[tuple, ...]) -> Stacked:
    """What depends on the configurations alone, not on the tokens (:func:`stacked`: the KV
    blocks are the first half of :func:`~wattgpu_lite.energy.occupancy.kv_capacity_seqs`),
    read-only (shared by every call that names them)."""
    arrays, blocks, limit = stacked([_configured_one(c) for c in configs])
    for a in (blocks, limit, *arrays.values()):
        a.flags.writeable = False
    return arrays, blocks, limit


@lru_cache(maxsize=CONFIG_ROWS_CACHED)
def _configured_one(config: tuple) -> ConfigRow:
    """:func:`~wattgpu_lite.energy.config_rows.config_row` of one configuration, kept: a long
    table's configurations are each built once, then gathered from here by every call that
    names them. Immutable."""
    return config_row(config)
