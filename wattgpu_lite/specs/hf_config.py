"""Read a Hugging Face config.json into the dense fields of :class:`wattgpu_lite.specs.llm.LLM`.

Families spell the same quantity differently (GPT-2 ``n_layer``/``n_embd``/``n_head``, GLM
``num_layers``/``ffn_hidden_size``, Falcon ``n_head_kv``/``multi_query``, MPT ``d_model`` and
``expansion_ratio``): :data:`SPELLINGS`. Every size must be a positive whole number below 10⁷
(context below 10⁸), every flag a real JSON boolean, every number in the config finite (no NaN
or Infinity, :func:`check_finite`). Which family and which section of a wrapper the fields are
read from: :mod:`~wattgpu_lite.specs.hf_family`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from wattgpu_lite.checks import check_count
from wattgpu_lite.datafiles import read_bytes, refuse_folder
from wattgpu_lite.errors import ConfigError
from wattgpu_lite.jsonfiles import DuplicateKeyError, unique_keys
from wattgpu_lite.specs.params import Family, family, with_overrides
from wattgpu_lite.specs.plausible import plausible_range

SIZE_LIMIT, CONTEXT_LIMIT = 10**7, 10**8
SPELLINGS: dict[str, tuple[str, ...]] = {
    "n_layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "hidden_size": ("hidden_size", "n_embd", "d_model", "model_dim"),
    "n_heads": ("num_attention_heads", "n_head", "num_heads", "n_heads"),
    "intermediate_size": ("intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim", "d_ff"),
    "vocab_size": ("vocab_size", "padded_vocab_size", "n_vocab"),
    "context_length": (
        "max_position_embeddings",
        "n_positions",
        "seq_length",
        "n_ctx",
        "max_sequence_length",
        "max_seq_len",
    ),
}
# spellings that may differ from the others in a real config (the first present is read, as
# before): the context keys but the first mean other lengths (Qwen-14B: max_position_embeddings
# 8192 beside seq_length 2048, its training length); padded_vocab_size rounds vocab_size up
UNCOMPARED = frozenset({*SPELLINGS["context_length"][1:], "padded_vocab_size"})
KV_KEYS = ("num_key_value_heads", "num_kv_heads", "n_head_kv")  # GQA's spellings at the top level
FLAGS = (
    "tie_word_embeddings",
    "attention_bias",
    "bias",
    "use_bias",
    "mlp_bias",
    "qkv_bias",
    "add_qkv_bias",
    "use_qkv_bias",
    "new_decoder_architecture",
    "multi_query",
    "parallel_attn",
    "multi_query_attention",
    "no_bias",
    "alibi",
    "is_encoder_decoder",
)


def load_config(path_or_dict: str | Path | dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The config as a dict, and a short description of where it came from."""
    if isinstance(path_or_dict, dict):
        return dict(path_or_dict), "config dict"
    if not isinstance(path_or_dict, str | Path):
        got = type(path_or_dict).__name__
        raise ConfigError(f"a config must be a dict or a path to config.json, got {got}")
    path = Path(path_or_dict)
    refuse_folder(path, "config.json", "config.json", ConfigError)
    raw = read_bytes(path, what="config file", sha256=None, error=ConfigError)
    try:  # json's own parser: the Hub's configs hold Infinity (Nemotron-H's time_step_limit)
        cfg = json.loads(raw.decode("utf-8-sig"), object_pairs_hook=unique_keys)
    except DuplicateKeyError as err:
        raise ConfigError(f"{path.name}: {err}") from None
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path.name} is not valid JSON ({err}); pass a config.json") from err
    except (ValueError, RecursionError) as err:
        why = f"({type(err).__name__}: {err}); pass the path of a JSON object or a dict"
        raise ConfigError(f"cannot read {str(path)!r} as a config.json {why}") from err
    if not isinstance(cfg, dict):
        kind = f"a JSON {type(cfg).__name__}, not an object"
        raise ConfigError(f"{path.name} holds {kind}; a config.json is an object of fields")
    return cfg, f"config.json {path.name}"


def as_int(field: str, value: Any, limit: int = SIZE_LIMIT, lo: int = 1) -> int:
    """``value`` as a whole number from ``lo`` to ``limit`` − 1, narrowed to the field's
    plausible range (:mod:`~wattgpu_lite.specs.plausible`) where it has one (the strict
    conversion of :func:`wattgpu_lite.checks.check_count`), or ConfigError naming the field,
    the range, why and the fix."""
    keys = f" ({' / '.join(SPELLINGS[field])})" if field in SPELLINGS else ""
    low, high, why = plausible_range(field, lo, limit)
    fix = f"write {field} as a whole number from {low:,} to {high:,} (a JSON number, not text)"
    fix += f", as the model's published config.json has it{f' ({why})' if why else ''}"
    label = f"config.json field {field!r}{keys}"
    return check_count(field, value, low, high, error=ConfigError, fix=fix, label=label)


def flag(cfg: dict[str, Any], key: str) -> bool | None:
    """A boolean field as True/False, None when absent or null; ConfigError for anything else."""
    value = cfg.get(key)
    if value is None or isinstance(value, bool):
        return value
    fix = "write it as a JSON true or false (no quotes), or leave it out"
    raise ConfigError(f"config.json field {key!r} must be true or false, got {value!r:.40}; {fix}")


def one_value(cfg: dict[str, Any], keys: tuple[str, ...], field: str) -> tuple[str, Any] | None:
    """(key, value) of the first of ``keys`` present (not null) in ``cfg``, or None. Two of them
    with different values (``n_layer`` 12 beside ``num_hidden_layers`` 32) are a ConfigError
    naming both keys and values: which one the model has cannot be told (equal ones are fine)."""
    found = [(k, cfg[k]) for k in keys if cfg.get(k) is not None]
    for key, value in found[1:]:
        if _differ(found[0][1], value):
            raise ConfigError(
                f"config.json gives {field!r} twice with different values: {found[0][0]!r} = "
                f"{found[0][1]!r:.40} and {key!r} = {value!r:.40}; keep the one the model's "
                f"published config.json has and delete the other (or make them equal)"
            )
    return found[0] if found else None


def _differ(a: Any, b: Any) -> bool:
    """Whether two JSON values differ (32 and 32.0 are one number; true is not 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is not b
    return a != b


def pick(cfg: dict[str, Any], field: str, default: Any = None) -> Any:
    """The spelling of ``field`` present in ``cfg`` (:func:`one_value`: spellings that disagree
    are refused, but for the ``UNCOMPARED`` keys); ConfigError naming them if none is."""
    keys = tuple(k for k in SPELLINGS[field] if k not in UNCOMPARED)
    present = ((k, cfg[k]) for k in SPELLINGS[field] if cfg.get(k) is not None)
    found = one_value(cfg, keys, field) or next(present, None)
    if found is not None:
        return found[1]
    if default is not None:
        return default
    lacks = f"config.json lacks {field!r}: looked for {', '.join(SPELLINGS[field])}"
    hub = "see the model's config.json on the Hugging Face Hub"
    raise ConfigError(f"{lacks}. Add one of these keys ({hub}).")


def kv_heads(cfg: dict[str, Any], n_heads: int, model_type: str) -> int:
    """KV heads: GQA key, Falcon's multi_query, GLM groups, DBRX attn_config, else heads."""
    if model_type in ("falcon", "RefinedWebModel") and not flag(cfg, "new_decoder_architecture"):
        return 1 if flag(cfg, "multi_query") in (True, None) else n_heads
    attn = cfg.get("attn_config") if isinstance(cfg.get("attn_config"), dict) else {}
    one_value(cfg, KV_KEYS, "n_kv_heads")  # spellings that disagree are refused
    spots = [*((k, cfg) for k in KV_KEYS), ("kv_n_heads", attn), ("multi_query_group_num", cfg)]
    for key, where in spots:
        if where.get(key) is not None:
            kv = as_int(key, where[key])
            if n_heads % kv:
                fix = "use the value of the model's published config.json"
                heads = f"does not divide the {n_heads} attention heads"
                raise ConfigError(f"config.json field {key!r} = {kv} {heads}; {fix}")
            return kv
    return 1 if flag(cfg, "multi_query") else n_heads


def head_dim(cfg: dict[str, Any], hidden_size: int, n_heads: int) -> int:
    """Explicit ``head_dim`` (Gemma, Qwen3, Mistral-NeMo) or ``kv_channels``, else d / h."""
    found = one_value(cfg, ("head_dim", "kv_channels"), "head_dim")
    if found is not None:
        key, value = found
        return as_int(key, value)
    if hidden_size % n_heads:
        not_divisible = f"hidden_size {hidden_size} is not divisible by {n_heads} heads"
        raise ConfigError(f"{not_divisible}; add head_dim")
    return hidden_size // n_heads


def _stated(cfg: dict[str, Any], keys: tuple[str, ...], default: Any = None) -> Any:
    """The value of the first of ``keys`` the config states (not null), else ``default``."""
    return next((cfg[k] for k in keys if cfg.get(k) is not None), default)


def block_recipe(cfg: dict[str, Any], model_type: str) -> Family:
    """The family's recipe with the bias / norm flags this config states explicitly."""
    for key in FLAGS:
        flag(cfg, key)
    all_bias = _stated(cfg, ("bias", "use_bias"))
    if cfg.get("no_bias") is not None:
        all_bias = not cfg["no_bias"]
    attn_bias = _stated(cfg, ("attention_bias",), all_bias)
    qkv = _stated(cfg, ("qkv_bias", "add_qkv_bias", "use_qkv_bias"), attn_bias)
    new_falcon = model_type in ("falcon", "RefinedWeb") and cfg.get("new_decoder_architecture")
    norms = 2 if new_falcon or model_type == "RefinedWeb" else None
    mlp_bias = _stated(cfg, ("mlp_bias",), all_bias)
    biases = {"qkv_bias": qkv, "o_bias": attn_bias, "mlp_bias": mlp_bias}
    return with_overrides(family(model_type), **biases, norms_per_layer=norms)


def ffn_width(cfg: dict[str, Any], d: int, fam: Family) -> int:
    """The (dense) MLP width: explicit (Llama 4: ``intermediate_size_mlp``), MPT's
    expansion_ratio·d, or 4·d for plain MLPs (GPT-2/GPT-J ``n_inner: null``, Falcon, BLOOM);
    gated MLPs must state it."""
    ffn = cfg.get("ffn_config") if isinstance(cfg.get("ffn_config"), dict) else {}
    if cfg.get("model_type") == "llama4_text" and cfg.get("intermediate_size_mlp") is not None:
        return as_int("intermediate_size_mlp", cfg["intermediate_size_mlp"])
    if ffn.get("ffn_hidden_size") is not None:
        return as_int("ffn_config.ffn_hidden_size", ffn["ffn_hidden_size"])
    if cfg.get("expansion_ratio") is not None:
        return as_int("expansion_ratio", cfg["expansion_ratio"]) * d
    plain = 4 * d if fam.mlp_type == "plain" else None
    return as_int("intermediate_size", pick(cfg, "intermediate_size", plain))


def check_finite(cfg: Any, where: str = "") -> None:
    """ConfigError naming the first number of ``cfg`` (at any depth) that is NaN or infinite:
    JSON has no such numbers (Python's json reads the literals NaN and Infinity, and 1e400 as
    infinity), so a config holding one was written by hand or damaged."""
    stack: list[tuple[str, Any]] = [(where, cfg)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):  # reversed: the first in the file is reported first
            items = [(f"{path}.{k}" if path else str(k), v) for k, v in value.items()]
            stack.extend(reversed(items))
        elif isinstance(value, list):
            stack.extend(reversed([(f"{path}[{i}]", v) for i, v in enumerate(value)]))
        elif isinstance(value, float) and not math.isfinite(value):
            shown = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
            raise ConfigError(
                f"config.json field {path!r} is {shown}, which is not a JSON number (NaN and "
                "Infinity are not allowed, nor a number too large for a float); write the finite "
                "value of the model's published config.json, or delete the field"
            )
