"""Read a Hugging Face config.json into the fields of :class:`wattgpu_lite.specs.catalog.LLM`.

Families spell the same quantity differently (GPT-2 ``n_layer``/``n_embd``/``n_head``, GLM
``num_layers``/``ffn_hidden_size``, Falcon ``n_head_kv``/``multi_query``); multimodal wrappers nest
the language model in ``text_config`` (Gemma-3). Models the kit cannot describe honestly raise
:class:`UnsupportedModelError`: mixture-of-experts (the features and the energy model assume every
parameter is used for every token), quantised weights (bytes per parameter are not 2), and
state-space models without attention heads (no KV cache, no attention FLOPs).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from wattgpu_lite.errors import ConfigError, UnsupportedModelError
from wattgpu_lite.specs.params import Family, family, with_overrides
from wattgpu_lite.specs.support import check_supported

SPELLINGS: dict[str, tuple[str, ...]] = {
    "n_layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "hidden_size": ("hidden_size", "n_embd", "d_model", "model_dim"),
    "n_heads": ("num_attention_heads", "n_head", "num_heads", "n_heads"),
    "intermediate_size": ("intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim", "d_ff"),
    "vocab_size": ("vocab_size", "padded_vocab_size", "n_vocab"),
    "context_length": (
        "max_position_embeddings", "n_positions", "seq_length", "n_ctx", "max_sequence_length",
    ),
}  # fmt: skip


def load_config(path_or_dict: str | Path | dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The config as a dict, and a short description of where it came from."""
    if isinstance(path_or_dict, dict):
        return dict(path_or_dict), "config dict"
    path = Path(path_or_dict)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} not found: pass a config.json path or dict")
    try:
        return json.loads(path.read_text()), f"config.json {path.name}"
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path.name} is not valid JSON ({err}); pass a config.json") from err


def as_int(field: str, value: Any) -> int:
    """``value`` as a positive whole number, or ConfigError naming the field (no bools, no "")."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    whole = number and math.isfinite(value) and value == int(value)
    if not whole or value <= 0:
        raise ConfigError(f"config.json field {field!r} must be a positive integer, got {value!r}")
    return int(value)


def text_part(cfg: dict[str, Any]) -> dict[str, Any]:
    """The language-model part: ``text_config`` (multimodal wrappers) over the top level."""
    inner = cfg.get("text_config") or {}
    if not isinstance(inner, dict):
        raise ConfigError(f"config.json 'text_config' must be an object, got {inner!r}")
    return {**{k: v for k, v in cfg.items() if k != "text_config"}, **inner}


def pick(cfg: dict[str, Any], field: str, default: Any = None) -> Any:
    """The first spelling of ``field`` present in ``cfg``; ConfigError naming them if none is."""
    for key in SPELLINGS[field]:
        if cfg.get(key) is not None:
            return cfg[key]
    if default is not None:
        return default
    raise ConfigError(
        f"config.json lacks {field!r}: looked for {', '.join(SPELLINGS[field])}. "
        "Add one of these keys (see the model's config.json on the Hugging Face Hub)."
    )


def kv_heads(cfg: dict[str, Any], n_heads: int) -> int:
    """KV heads: GQA key, Falcon's multi_query / new_decoder_architecture, GLM groups, else heads."""
    if cfg.get("model_type") == "falcon" and not cfg.get("new_decoder_architecture"):
        return 1 if cfg.get("multi_query", True) else n_heads
    if cfg.get("multi_query_attention") and cfg.get("multi_query_group_num"):
        return as_int("multi_query_group_num", cfg["multi_query_group_num"])
    for key in ("num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num"):
        if cfg.get(key):
            return as_int(key, cfg[key])
    return 1 if cfg.get("multi_query") else n_heads


def head_dim(cfg: dict[str, Any], hidden_size: int, n_heads: int) -> int:
    """Explicit ``head_dim`` (Gemma, Qwen3, Mistral-NeMo) or ``kv_channels``, else d / h."""
    for key in ("head_dim", "kv_channels"):
        if cfg.get(key):
            return as_int(key, cfg[key])
    if hidden_size % n_heads:
        raise ConfigError(
            f"hidden_size {hidden_size} is not divisible by {n_heads} heads; add head_dim"
        )
    return hidden_size // n_heads


def block_recipe(cfg: dict[str, Any], model_type: str) -> Family:
    """The family's recipe with the bias / norm flags this config states explicitly."""
    fam = family(model_type)
    all_bias = next((cfg[k] for k in ("bias", "use_bias") if k in cfg), None)
    attn_bias = cfg.get("attention_bias", all_bias)
    qkv = next((cfg[k] for k in ("qkv_bias", "add_qkv_bias", "use_qkv_bias") if k in cfg), None)
    new_falcon = model_type == "falcon" and cfg.get("new_decoder_architecture")
    return with_overrides(
        fam,
        qkv_bias=qkv if qkv is not None else attn_bias,
        o_bias=attn_bias,
        mlp_bias=cfg.get("mlp_bias", all_bias),
        norms_per_layer=2 if new_falcon else None,
    )


def parse_fields(cfg: dict[str, Any]) -> tuple[dict[str, Any], Family]:
    """LLM fields (without name, params and provenance) and the block recipe of a config dict."""
    check_supported(cfg)
    text = text_part(cfg)
    check_supported(text)
    model_type = str(cfg.get("model_type") or text.get("model_type") or "unknown")
    heads = pick(text, "n_heads")
    if heads == 0:
        raise UnsupportedModelError("0 attention heads: the kit models attention decoders")
    n_heads = as_int("n_heads", heads)
    d = as_int("hidden_size", pick(text, "hidden_size"))
    fam = block_recipe(text, model_type)
    ff_default = 4 * d if fam.mlp_type == "plain" else None  # GPT-2/GPT-J n_inner: null -> 4·d
    fields = {
        "model_type": model_type,
        "n_layers": as_int("n_layers", pick(text, "n_layers")),
        "hidden_size": d,
        "intermediate_size": as_int(
            "intermediate_size", pick(text, "intermediate_size", default=ff_default)
        ),
        "n_heads": n_heads,
        "n_kv_heads": kv_heads(text, n_heads),
        "head_dim": head_dim(text, d, n_heads),
        "vocab_size": as_int("vocab_size", pick(text, "vocab_size")),
        "context_length": as_int("context_length", pick(text, "context_length")),
        "tie_embeddings": bool(text.get("tie_word_embeddings", fam.tie_default)),
        "mlp_type": fam.mlp_type,
    }
    return fields, fam
