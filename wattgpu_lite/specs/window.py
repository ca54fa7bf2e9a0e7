"""Sliding-window attention from a config.json: the window and how many layers use it.

A sliding-window layer attends to at most the last W tokens, so a decode step reads at most W
cached tokens of that layer whatever the context. Which layers slide, as transformers builds them:

* ``layer_types`` (gpt-oss, recent Gemma-3 and Qwen configs): the layers marked
  ``"sliding_attention"``;
* Gemma-2: every other layer, starting with layer 0 (``is_sliding = not layer_idx % 2``);
* Gemma-3: all but every ``sliding_window_pattern``-th layer (default 6: five local, one global);
* Qwen2/Qwen3 (dense and MoE): the layers from ``max_window_layers`` on, only when
  ``use_sliding_window`` is true (it is false in the released configs);
* any other family with a ``sliding_window`` (Mistral-7B v0.1, Phi-3, StarCoder2): every layer.

A window at or beyond the context length bounds nothing and is dropped (``(0, 0)``).
"""

from __future__ import annotations

from typing import Any

from wattgpu_lite.specs.hf_config import as_int, flag
from wattgpu_lite.specs.support import check_string_list

QWEN = ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe")
GEMMA3 = ("gemma3", "gemma3_text")
GEMMA3_PATTERN = 6  # transformers' Gemma3TextConfig default sliding_window_pattern


def sliding_layers(cfg: dict[str, Any], model_type: str, n_layers: int) -> int:
    """How many of the ``n_layers`` layers attend through the sliding window (module docstring)."""
    check_string_list(
        cfg,
        "layer_types",
        'layer kinds (e.g. ["sliding_attention", "full_attention"])',
        "write one string per layer",
    )
    types = cfg.get("layer_types")
    if types:
        return sum(t == "sliding_attention" for t in types[:n_layers])
    if model_type in QWEN:
        if not flag(cfg, "use_sliding_window"):
            return 0
        return max(n_layers - as_int("max_window_layers", cfg.get("max_window_layers", 0), lo=0), 0)
    if model_type == "gemma2":
        return (n_layers + 1) // 2
    if model_type in GEMMA3:
        pattern = as_int(
            "sliding_window_pattern", cfg.get("sliding_window_pattern") or GEMMA3_PATTERN
        )
        return n_layers - n_layers // pattern
    return n_layers


def read_window(
    cfg: dict[str, Any], model_type: str, n_layers: int, context: int
) -> tuple[int, int]:
    """(window W in tokens, sliding layers) of a config; (0, 0) without a window that bounds."""
    raw = cfg.get("sliding_window")
    if raw is None or raw is False:
        return 0, 0
    window = as_int("sliding_window", raw, lo=0)
    layers = sliding_layers(cfg, model_type, n_layers) if 0 < window < context else 0
    return (window, layers) if layers else (0, 0)
