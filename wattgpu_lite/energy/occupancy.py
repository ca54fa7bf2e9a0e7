"""How many sequences share a decode step: the engine's KV-cache capacity and an offline run's mean.

One definition for the whole kit (validation, estimates, the hybrid predictor, the ranking):
:func:`memory_why_not` (the one memory-fit check: the replica's weights at their served format
and one sequence's KV cache at its format against the engine's share of its memory, vLLM's 90 %
by default; :func:`weights_fit` is it with no KV cache), :func:`kv_capacity_seqs` (the sequences
the engine can hold: min(KV capacity, max_num_seqs)) and :func:`offline_in_flight` (the mean
number in flight when n prompts are submitted at once). The engine's defaults (its concurrency
limit and memory share) come from :mod:`wattgpu_lite.specs.engine` (data/engines.csv); the KV
cache's format (``kv_cache``: "auto" 16 bits, "fp8" 8) scales the KV bytes per token.
"""

from __future__ import annotations

import math

import numpy as np

from wattgpu_lite.energy.precision import served_format, weight_bits
from wattgpu_lite.specs.engine import engine as engine_of
from wattgpu_lite.specs.engine import kv_bytes_scale
from wattgpu_lite.specs.layout import as_layout

MEM_UTIL = 0.9  # vLLM's default gpu_memory_utilization (= data/engines.csv's vllm row)
KV_BLOCK_TOKENS = 16  # vLLM's default KV-cache block size (tokens)


def weight_bytes(llm, weights: str | None = None) -> float:
    """Bytes of the model's weights as served (all parameters × bits per weight / 8)."""
    return llm.params_b * 1e9 * weight_bits(llm, weights) / 8


def replica_weight_bytes(llm, num_gpus=1, weights: str | None = None) -> float:
    """Bytes of weights a replica holds: all of them once, plus, with data-parallel attention
    (``Parallel(ep=8)``), dp − 1 more copies of the always-read ones (attention, dense layers,
    shared experts: each attention group keeps its own)."""
    lay = as_layout(num_gpus)
    held_b = (llm.params_b - llm.params_routed_b) * 1e9  # streamed or gathered: each group's own
    always_b = held_b * weight_bits(llm, weights) / 8
    return weight_bytes(llm, weights) + (lay.dp - 1) * always_b


def kv_copies(llm, num_gpus=1) -> int:
    """Copies of each token's KV cache in a replica: tensor parallelism splits KV heads over the
    tp GPUs of a group but replicates them beyond n_kv_heads, and replicates a multi-head latent
    (MLA) cache on every GPU of the group: tp / min(tp, heads); data-parallel groups share none."""
    tp = as_layout(num_gpus).tp
    heads = 1 if llm.mla_kv_width else llm.n_kv_heads
    return -(-tp // min(tp, heads))


def kv_bytes_per_token(llm, kv_cache: str | None = None) -> float:
    """KV bytes one token adds, one copy: the catalog's 16-bit figure (``LLM.kv_bytes_per_token``)
    at the format ``kv_cache`` (None or "auto": as is; "fp8": half)."""
    return llm.kv_bytes_per_token * kv_bytes_scale(kv_cache)


def memory_need_bytes(
    llm,
    num_gpus=1,
    weights: str | None = None,
    kv_tokens: float = 0.0,
    *,
    kv_cache: str | None = None,
) -> float:
    """Bytes a replica must hold: its weights at the served format (:func:`replica_weight_bytes`)
    and the KV cache of one sequence of ``kv_tokens`` tokens at the format ``kv_cache``, every
    copy tensor parallelism keeps (:func:`kv_copies`)."""
    kv_b = kv_bytes_per_token(llm, kv_cache) * kv_copies(llm, num_gpus) * float(kv_tokens)
    return replica_weight_bytes(llm, num_gpus, weights) + kv_b


def usable_memory_bytes(gpu, num_gpus=1, engine=None, weights_b: float = 0.0) -> float:
    """The engine's share of the replica's memory, in bytes, for weights and KV cache together:
    ``gpu_memory_share`` of it (vLLM's ``gpu_memory_utilization`` 0.9, SGLang's
    ``mem_fraction_static``), or, for an engine whose share is of the memory left after the
    weights (TensorRT-LLM's ``free_gpu_memory_fraction``), the ``weights_b`` bytes plus that share
    of the rest. ``engine``: a name or :class:`~wattgpu_lite.specs.engine.Engine` (None: vLLM)."""
    eng = engine_of(engine)
    memory_b = gpu.memory_gb * 1e9 * as_layout(num_gpus).num_gpus
    if eng.memory_share_of == "free":
        return weights_b + eng.gpu_memory_share * max(memory_b - weights_b, 0.0)
    return eng.gpu_memory_share * gpu.memory_gb * 1e9 * as_layout(num_gpus).num_gpus


def memory_why_not(
    llm,
    gpu,
    num_gpus=1,
    weights: str | None = None,
    *,
    kv_tokens: float = 0.0,
    kv_cache: str | None = None,
    engine=None,
) -> str:
    """The kit's one memory-fit check: "" when :func:`memory_need_bytes` fits in
    :func:`usable_memory_bytes`, else the reason in words ("does not fit in memory: needs …").
    ``num_gpus``: a GPU count or a :class:`~wattgpu_lite.specs.layout.Parallel`; ``weights``: the
    served format (None: the model's own; the bytes follow its bits per weight); ``kv_cache``:
    the KV cache's format (None: "auto"); ``engine``: whose memory share (None: vLLM's 0.9)."""
    weights_b = replica_weight_bytes(llm, num_gpus, weights)
    need_b, usable_b = (
        memory_need_bytes(llm, num_gpus, weights, kv_tokens, kv_cache=kv_cache),
        usable_memory_bytes(gpu, num_gpus, engine, weights_b),
    )
    if need_b <= usable_b:
        return ""
    eng = engine_of(engine)
    memory_gb = as_layout(num_gpus).num_gpus * gpu.memory_gb
    kv = f" + KV cache of one {int(kv_tokens)}-token request" if kv_tokens else ", no KV cache"
    share = f"{100 * eng.gpu_memory_share:g} %"
    rest = "" if eng.memory_share_of == "total" else "the weights + "
    of = f"{rest}{share} of {'the rest of ' if rest else ''}{memory_gb:g} GB"
    return (
        f"does not fit in memory: needs {need_b / 1e9:.1f} GB ({served_format(llm, weights)} "
        f"weights {weights_b / 1e9:.1f} GB{kv}) > {of} = {usable_b / 1e9:.1f} GB"
    )


def weights_fit(llm, gpu, num_gpus=1, weights: str | None = None, *, engine=None) -> bool:
    """Whether the weights fit in the engine's share (vLLM: 0.9) of the replica's memory, KV
    cache aside (:func:`memory_why_not` with no KV cache)."""
    return not memory_why_not(llm, gpu, num_gpus, weights, engine=engine)


def kv_capacity_seqs(
    llm,
    gpu,
    t_in,
    t_out,
    *,
    num_gpus=1,
    weights=None,
    kv_cache=None,
    engine=None,
    max_num_seqs=None,
):
    """Sequences in flight a replica can hold: min(floor(KV blocks / blocks per sequence),
    max_num_seqs), at least 0.

    KV blocks = (the engine's share of memory · num_gpus − replica weight bytes at the served
    format) / (16 tokens · KV bytes per token at the ``kv_cache`` format · :func:`kv_copies`):
    vLLM keeps ``gpu_memory_utilization`` = 0.9 of each GPU (:func:`usable_memory_bytes` for the
    other engines), loads the weights (split over the GPUs with tensor parallelism) and pages the
    KV cache in 16-token blocks (the kit uses vLLM's block for every engine). A sequence holds on
    average its prompt and half its output, ceil((T_in + T_out/2) / 16) blocks (it grows one
    token per step; vLLM allocates blocks as it grows). An fp8 cache halves the bytes per token,
    so it holds twice the tokens. Capped at ``max_num_seqs`` (None: the engine's default, vLLM's
    256; one value or one per row); 0 when not one sequence fits (the weights alone may not:
    :func:`weights_fit`).
    """
    eng = engine_of(engine)
    limit = eng.max_num_seqs if max_num_seqs is None else np.asarray(max_num_seqs, dtype=float)
    return seqs_in(
        kv_blocks(llm, gpu, num_gpus, weights, kv_cache=kv_cache, engine=eng), t_in, t_out, limit
    )


def kv_blocks(llm, gpu, num_gpus=1, weights=None, *, kv_cache=None, engine=None) -> float:
    """KV blocks of 16 tokens a replica holds beside its weights (:func:`kv_capacity_seqs`'s
    first half: none of it depends on the tokens)."""
    eng = engine_of(engine)
    weights_b = replica_weight_bytes(llm, num_gpus, weights)
    free_b = usable_memory_bytes(gpu, num_gpus, eng, weights_b) - weights_b
    per_block = KV_BLOCK_TOKENS * kv_bytes_per_token(llm, kv_cache) * kv_copies(llm, num_gpus)
    return np.floor(np.maximum(free_b, 0.0) / per_block)


def seqs_in(blocks, t_in, t_out, limit):
    """Sequences ``blocks`` KV blocks hold, each ceil((T_in + T_out/2) / 16) blocks, at most
    ``limit`` and at least 0 (:func:`kv_capacity_seqs`'s second half, elementwise)."""
    per_seq = np.ceil((np.asarray(t_in, float) + np.asarray(t_out, float) / 2) / KV_BLOCK_TOKENS)
    return np.clip(np.floor(blocks / per_seq), 0.0, limit)


def seqs_in_one(blocks: float, *, t_in: float, t_out: float, limit: float) -> float | None:
    """:func:`seqs_in` of one row on Python floats: the same operations (numpy's ceil and floor
    of a finite float are math's, its clip min(max(x, 0), limit)); None where a value is not a
    finite positive float or the limit is NaN (the caller's arrays give numpy's inf, NaN or
    signed zero)."""
    per_seq = (t_in + t_out / 2) / KV_BLOCK_TOKENS
    if not (math.isfinite(per_seq) and per_seq > 0.0 and limit == limit):
        return None
    fits = blocks / math.ceil(per_seq)
    if not (math.isfinite(fits) and fits >= 1.0):
        return None
    return min(float(math.floor(fits)), limit)


def offline_in_flight(cap, n_requests):
    """Mean sequences in flight when ``n_requests`` prompts are submitted at once: n·b / (n + b),
    b = min(max(cap, 1), n) (continuous batching; a replica that holds none runs one at a time).

    Count decode steps. vLLM admits a waiting request the moment a running one ends, so the b
    slots stay full until the queue is empty: the n·T output tokens take n·T / b steps at full
    occupancy. Then the last requests drain, for about one request length T (the longest of the
    last b), while the occupancy falls towards 0. So steps ≈ n·T / b + T and the mean occupancy
    is tokens / steps = n·T / (n·T / b + T) = n·b / (n + b), i.e. 1/L = 1/b + 1/n: L → b for
    n ≫ b, L ≈ n for n ≪ b, b/2 at n = b; 204 for 1,000 prompts at 256 slots.
    The wave count n / ceil(n / b) (250 there) assumes every request has the same length, so a
    batch of b ends together and the next b start at once; Watt Counts' outputs vary (capped at
    256 tokens, 180 on average), so the waves blur into a continuous stream with a tail.
    """
    n = np.asarray(n_requests, dtype=float)
    b = np.minimum(np.maximum(np.asarray(cap, dtype=float), 1.0), n)
    return n * b / (n + b)
