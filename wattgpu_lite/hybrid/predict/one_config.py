"""What a single predict keeps of its configuration: the backbone's row of one (LLM, GPU, layout,
formats), built once, so each call adds its tokens alone.

    rows, cap = built_at(llm, gpu, t_in, t_out, num_gpus=layout, weights=[fmt])

:func:`~wattgpu_lite.energy.backbone.row_arrays.build` of one row gathers the configuration's arrays
and computes its KV capacity cap = min(⌊blocks / ⌈(T_in + T_out/2) / 16⌉⌋, limit)
(:func:`~wattgpu_lite.energy.occupancy.seqs_in`) at every call. Only the tokens change between
warm calls: the row (every field but the tokens), the KV blocks and the engine's limit are kept
per configuration (:func:`_kept`, read-only), and each call sets its tokens and computes its
capacity by the same function from the same values (the same arrays as ``build``'s).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.energy.backbone.step_power import Rows
from wattgpu_lite.energy.config_rows import config_row
from wattgpu_lite.energy.occupancy import seqs_in, seqs_in_one
from wattgpu_lite.specs.layout import as_layout

CONFIGS_CACHED = 256  # configurations kept (:func:`_kept`)


class Kept(NamedTuple):
    """One configuration's row but its tokens, its KV blocks and its engine's default limit:
    arrays of one element, read-only."""

    rows: Rows  # row_arrays.build's row at one token of each kind
    blocks: np.ndarray  # KV blocks of 16 tokens the replica holds beside its weights
    limit: np.ndarray  # the engine's default concurrency limit (max_num_seqs)


@lru_cache(maxsize=CONFIGS_CACHED)
def _kept(config: tuple) -> Kept:
    """The :class:`Kept` of a configuration (LLM, GPU, layout, weights, KV cache, engine), from
    :func:`row_arrays.build_once` (the row) and
    :func:`~wattgpu_lite.energy.config_rows.config_row` (its blocks and limit, the values
    ``build_once`` reads)."""
    llm, gpu, layout, weights, kv_cache, engine = config
    serving = {"kv_cache": kv_cache, "engine": engine}
    built = row_arrays.build_once(
        [llm], [gpu], 1.0, 1.0, num_gpus=layout, weights=[weights], **serving
    )
    rows = built.rows()[0]
    row = config_row((llm, gpu, as_layout(layout), (weights, kv_cache, engine)))
    kept = Kept(rows, np.full(1, row.blocks, dtype=float), np.full(1, row.limit, dtype=float))
    for name, value in rows.__dict__.items():
        for a in value if isinstance(value, tuple) else (value,):
            a.flags.writeable = name in ("t_in", "t_out")
    for a in (kept.blocks, kept.limit):
        a.flags.writeable = False
    return kept


def built_at(
    llm,
    gpu,
    t_in,
    t_out,
    *,
    num_gpus,
    weights,
    kv_cache=None,
    engine=None,
    max_num_seqs=None,
) -> tuple[Rows, np.ndarray]:
    """:func:`row_arrays.build` of one row (``weights``: a list of one format; the other
    arguments as there): the same (Rows, capacity), from the configuration's kept row
    (:func:`_kept`) and its tokens; built afresh when the configuration cannot be hashed."""
    serving = {"kv_cache": kv_cache, "engine": engine}
    try:
        kept = _kept((llm, gpu, num_gpus, weights[0], kv_cache, engine))
    except TypeError:  # unhashable: built as build does (a TypeError of the build raises again)
        every = {**serving, "max_num_seqs": max_num_seqs}
        return row_arrays.build(
            [llm], [gpu], t_in, t_out, num_gpus=num_gpus, weights=weights, **every
        )
    tokens_in, tokens_out = np.array([t_in], dtype=float), np.array([t_out], dtype=float)
    given = None if max_num_seqs is None else np.asarray(max_num_seqs, dtype=float)
    limit = kept.limit if given is None else np.broadcast_to(given, (1,))
    ends = {"t_in": float(tokens_in[0]), "t_out": float(tokens_out[0]), "limit": float(limit[0])}
    one = seqs_in_one(float(kept.blocks[0]), **ends)  # on floats; None: the arrays
    cap = seqs_in(kept.blocks, tokens_in, tokens_out, limit) if one is None else np.array([one])
    return _with_tokens(kept.rows, tokens_in, tokens_out), cap


def _with_tokens(rows: Rows, t_in: np.ndarray, t_out: np.ndarray) -> Rows:
    """``dataclasses.replace(rows, t_in=t_in, t_out=t_out)``: the same record (its other fields
    the kept, read-only arrays), without the frozen ``__init__``'s field-by-field setting."""
    out = object.__new__(Rows)
    out.__dict__.update(rows.__dict__, t_in=t_in, t_out=t_out)
    return out


MODELS_KEPT = 4  # hybrids whose one-row facts are kept (:func:`_facts_of`)
FACTS_KEPT = 1024  # facts kept per hybrid (then emptied)


class _Held:
    """A model as a cache's key, compared by identity (held: its id is never another's)."""

    __slots__ = ("model",)

    def __init__(self, model) -> None:
        self.model = model

    def __hash__(self) -> int:
        return id(self.model)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Held) and other.model is self.model


@lru_cache(maxsize=MODELS_KEPT)
def _facts_of(held: _Held) -> dict:
    """The facts :func:`kept_fact` keeps for one model (filled there)."""
    return {}


def kept_fact(model, key: tuple, make: Callable[[], np.ndarray]) -> np.ndarray:
    """``make()``, a fact of ONE row that depends on ``model`` (a hybrid, compared by identity)
    and on its configuration alone, named by ``key`` (hashable values: the LLM, GPU and numbers
    ``make`` reads); kept for the next call with the same model and key, read-only. A key that
    cannot be hashed: made afresh."""
    facts = _facts_of(_Held(model))
    try:
        fact = facts.get(key)
    except TypeError:
        return make()
    if fact is None:
        if len(facts) >= FACTS_KEPT:
            facts.clear()
        fact = facts[key] = make()
        fact.flags.writeable = False
    return fact
