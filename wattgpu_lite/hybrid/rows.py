"""Per-row arrays for the backbone, built once per distinct LLM and GPU and gathered by index.

A table of 10^4 (LLM, GPU, workload) rows usually names a few dozen models and GPUs: their
spec-sheet numbers are computed once each and broadcast with ``np.take``, so building the arrays
costs microseconds per row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy.hardware import spec_coefficients_j
from wattgpu_lite.hybrid.serving import MAX_NUM_SEQS, Rows
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.llm import LLM

MEM_UTIL = 0.9  # vLLM's default gpu_memory_utilization
KV_BLOCK_TOKENS = 16  # vLLM's default KV-cache block size


def _unique(objects: Sequence) -> tuple[list, np.ndarray]:
    """Distinct objects (by identity of their values) and each row's index into them."""
    index: dict = {}
    codes = np.fromiter((index.setdefault(o, len(index)) for o in objects), dtype=np.int64,
                        count=len(objects))  # fmt: skip
    return list(index), codes


def _llm_table(models: list[LLM]) -> dict[str, np.ndarray]:
    args = np.array([P.llm_args(m) for m in models], dtype=float).reshape(len(models), -1)
    return {
        "args": args,
        "n_layers": np.array([m.n_layers for m in models], dtype=float),
        "weight_bytes": np.array([m.params_b * 1e9 * m.bytes_per_weight for m in models]),
        "kv_bytes_per_token": np.array([m.kv_bytes_per_token for m in models], dtype=float),
    }


def _gpu_table(gpus: list[GPU]) -> dict[str, np.ndarray]:
    coef = np.array([spec_coefficients_j(g)[:2] for g in gpus], dtype=float).reshape(len(gpus), 2)
    return {
        "alpha": coef[:, 0], "e_bit": coef[:, 1],
        "flops": np.array([g.fp16_tflops * 1e12 for g in gpus]),
        "bandwidth": np.array([g.bandwidth_gbs * 1e9 for g in gpus]),
        "tdp_w": np.array([g.tdp_w for g in gpus], dtype=float),
        "memory_b": np.array([g.memory_gb * 1e9 for g in gpus]),
    }  # fmt: skip


def build(llms: Sequence[LLM], gpus: Sequence[GPU], t_in, t_out) -> tuple[Rows, np.ndarray]:
    """(Rows, KV capacity in sequences) for per-row LLMs, GPUs and token counts."""
    models, li = _unique(llms)
    devices, gi = _unique(gpus)
    lt, gt = _llm_table(models), _gpu_table(devices)
    t_in = np.broadcast_to(np.asarray(t_in, dtype=float), li.shape).copy()
    t_out = np.broadcast_to(np.asarray(t_out, dtype=float), li.shape).copy()
    rows = Rows(
        model=tuple(lt["args"][li].T), n_layers=lt["n_layers"][li], alpha=gt["alpha"][gi],
        e_bit=gt["e_bit"][gi], flops=gt["flops"][gi], bandwidth=gt["bandwidth"][gi],
        tdp_w=gt["tdp_w"][gi], t_in=t_in, t_out=t_out,
    )  # fmt: skip
    cap = kv_capacity_seqs(gt["memory_b"][gi], lt["weight_bytes"][li],
                           lt["kv_bytes_per_token"][li], t_in, t_out)  # fmt: skip
    return rows, cap


def kv_capacity_seqs(memory_b, weight_bytes, kv_bytes_per_token, t_in, t_out) -> np.ndarray:
    """Sequences the KV cache holds: floor(blocks / blocks per sequence), in [0, 256].

    blocks = (0.9 · memory − weight bytes) / (16 tokens · KV bytes per token); a sequence holds its
    prompt and on average half its output: ceil((T_in + T_out/2) / 16) blocks. 0 = does not fit.
    """
    free_b = MEM_UTIL * np.asarray(memory_b, float) - np.asarray(weight_bytes, float)
    blocks = np.floor(np.maximum(free_b, 0.0) / (KV_BLOCK_TOKENS * np.asarray(kv_bytes_per_token)))
    per_seq = np.ceil((np.asarray(t_in, float) + np.asarray(t_out, float) / 2) / KV_BLOCK_TOKENS)
    return np.clip(np.floor(blocks / per_seq), 0.0, MAX_NUM_SEQS)


def offline_in_flight(cap, n_requests) -> np.ndarray:
    """Mean sequences in flight of n prompts submitted at once to b = min(cap, n) slots under
    continuous batching: n·b / (n + b) (n·T_out tokens in n·T_out/b full steps plus ~T_out steps
    draining the last sequences)."""
    n = np.asarray(n_requests, dtype=float)
    b = np.minimum(np.maximum(cap, 1.0), n)
    return n * b / (n + b)
