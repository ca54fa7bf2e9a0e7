"""How many sequences share a decode step: vLLM's KV-cache capacity and an offline run's mean.

One definition for the whole kit (validation, estimates, the hybrid predictor, the ranking):
:func:`memory_why_not` (the one memory-fit check: the replica's weights at their served format
and one sequence's KV cache against vLLM's 90 % of its memory; :func:`weights_fit` is it with no
KV cache), :func:`kv_capacity_seqs` (the sequences vLLM can hold) and :func:`offline_in_flight`
(the mean number in flight when n prompts are submitted at once).
"""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy.precision import served_format, weight_bits
from wattgpu_lite.specs.layout import as_layout

MAX_NUM_SEQS = 256  # vLLM's default max_num_seqs (Watt Counts ran with it)
MEM_UTIL = 0.9  # vLLM's default gpu_memory_utilization
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


def memory_need_bytes(llm, num_gpus=1, weights: str | None = None, kv_tokens: float = 0.0) -> float:
    """Bytes a replica must hold: its weights at the served format (:func:`replica_weight_bytes`)
    and the KV cache of one sequence of ``kv_tokens`` tokens, every copy tensor parallelism keeps
    (:func:`kv_copies`)."""
    kv_b = llm.kv_bytes_per_token * kv_copies(llm, num_gpus) * float(kv_tokens)
    return replica_weight_bytes(llm, num_gpus, weights) + kv_b


def usable_memory_bytes(gpu, num_gpus=1) -> float:
    """vLLM's share (``gpu_memory_utilization`` 0.9) of the replica's memory, in bytes."""
    return MEM_UTIL * gpu.memory_gb * 1e9 * as_layout(num_gpus).num_gpus


def memory_why_not(llm, gpu, num_gpus=1, weights: str | None = None, kv_tokens: float = 0.0) -> str:
    """The kit's one memory-fit check: "" when :func:`memory_need_bytes` fits in
    :func:`usable_memory_bytes`, else the reason in words ("does not fit in memory: needs …").
    ``num_gpus``: a GPU count or a :class:`~wattgpu_lite.specs.layout.Parallel`; ``weights``: the
    served format (None: the model's own; the bytes follow its bits per weight)."""
    need_b, usable_b = (
        memory_need_bytes(llm, num_gpus, weights, kv_tokens),
        usable_memory_bytes(gpu, num_gpus),
    )
    if need_b <= usable_b:
        return ""
    weights_gb = replica_weight_bytes(llm, num_gpus, weights) / 1e9
    memory_gb = as_layout(num_gpus).num_gpus * gpu.memory_gb
    kv = f" + KV cache of one {int(kv_tokens)}-token request" if kv_tokens else ", no KV cache"
    return (f"does not fit in memory: needs {need_b / 1e9:.1f} GB ({served_format(llm, weights)} "
            f"weights {weights_gb:.1f} GB{kv}) > 90 % of {memory_gb:g} GB = {usable_b / 1e9:.1f} GB")  # fmt: skip


def weights_fit(llm, gpu, num_gpus=1, weights: str | None = None) -> bool:
    """Whether the weights fit in vLLM's share (0.9) of the replica's memory, KV cache aside
    (:func:`memory_why_not` with no KV cache)."""
    return not memory_why_not(llm, gpu, num_gpus, weights)


def kv_capacity_seqs(llm, gpu, t_in, t_out, num_gpus=1, weights=None):
    """Sequences the KV cache of a replica holds: floor(KV blocks / blocks per sequence), in [0, 256].

    KV blocks = (0.9 · memory · num_gpus − replica weight bytes at the served format) / (16 tokens ·
    KV bytes per token · :func:`kv_copies`): vLLM keeps ``gpu_memory_utilization`` = 0.9 of each GPU, loads the weights
    (split over the GPUs with tensor parallelism) and pages the KV cache in 16-token blocks. A
    sequence holds on average its prompt and half its output, ceil((T_in + T_out/2) / 16) blocks
    (it grows one token per step; vLLM allocates blocks as it grows). Capped at max_num_seqs 256;
    0 when not one sequence fits (the weights alone may not: :func:`weights_fit`).
    """
    free_b = usable_memory_bytes(gpu, num_gpus) - replica_weight_bytes(llm, num_gpus, weights)
    per_block = KV_BLOCK_TOKENS * llm.kv_bytes_per_token * kv_copies(llm, num_gpus)
    blocks = np.floor(np.maximum(free_b, 0.0) / per_block)
    per_seq = np.ceil((np.asarray(t_in, float) + np.asarray(t_out, float) / 2) / KV_BLOCK_TOKENS)
    return np.clip(np.floor(blocks / per_seq), 0.0, MAX_NUM_SEQS)


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
