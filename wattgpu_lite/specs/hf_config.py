"""Read a Hugging Face config.json into the dense fields of :class:`wattgpu_lite.specs.llm.LLM`.

Families spell the same quantity differently (GPT-2 ``n_layer``/``n_embd``/``n_head``, GLM
``num_layers``/``ffn_hidden_size``, Falcon ``n_head_kv``/``multi_query``, MPT ``d_model`` and
``expansion_ratio``); multimodal and omni wrappers nest the language model in ``text_config``,
``llm_config`` (InternVL), ``language_config`` (DeepSeek-VL2) or ``thinker_config`` (Qwen2.5-Omni,
itself holding a ``text_config``), sometimes leaving fields to the text class's documented
defaults (``TEXT_DEFAULTS``). Every size must be a positive whole number below 10⁷ (context
below 10⁸), every flag a real JSON boolean, every number in the config finite (no NaN or
Infinity, :func:`check_finite`); :func:`default_notes` says what was filled in. A config must
name its family (``model_type``, here or in its language-model section): without it the block
recipe (norms, biases, MLP) is unknown, so the kit refuses it rather than count it like Llama;
a family the kit does not know by name is counted like Llama, and the model's source says so.

``context_length`` is the longest sequence the config declares (max_position_embeddings,
n_positions, seq_length, max_seq_len …). Families without any such key — ALiBi (BLOOM) or early
rotary checkpoints (Falcon-40B's ``RefinedWeb`` and Falcon-7B's ``RefinedWebModel`` configs) —
take the training sequence length their authors publish, which is also transformers' own
default where it has one (``TRAINING_CONTEXT``, ``CONTEXT_SOURCE``); it bounds the tokens the
kit lets a request use, and the model's source line says where it came from.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from wattgpu_lite.checks import check_count
from wattgpu_lite.datafiles import DuplicateKeyError, read_bytes, refuse_folder, unique_keys
from wattgpu_lite.errors import ConfigError, UnsupportedModelError
from wattgpu_lite.specs.params import FAMILIES, Family, family, with_overrides
from wattgpu_lite.specs.plausible import plausible_range
from wattgpu_lite.specs.support import check_supported, class_family

SIZE_LIMIT, CONTEXT_LIMIT = 10**7, 10**8
SPELLINGS: dict[str, tuple[str, ...]] = {
    "n_layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "hidden_size": ("hidden_size", "n_embd", "d_model", "model_dim"),
    "n_heads": ("num_attention_heads", "n_head", "num_heads", "n_heads"),
    "intermediate_size": ("intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim", "d_ff"),
    "vocab_size": ("vocab_size", "padded_vocab_size", "n_vocab"),
    "context_length": ("max_position_embeddings", "n_positions", "seq_length", "n_ctx",
                       "max_sequence_length", "max_seq_len"),
}  # fmt: skip
# spellings that may differ from the others in a real config (the first present is read, as
# before): the context keys but the first mean other lengths (Qwen-14B: max_position_embeddings
# 8192 beside seq_length 2048, its training length); padded_vocab_size rounds vocab_size up
UNCOMPARED = frozenset({*SPELLINGS["context_length"][1:], "padded_vocab_size"})
# text_config fields a wrapper may omit: the defaults of the text class in transformers,
# huggingface/transformers @ 008f5c8c, src/transformers/models/gemma3/configuration_gemma3.py,
# Gemma3TextConfig.__init__ (vocab_size=262_208, num_attention_heads=8, num_key_value_heads=4,
# head_dim=256, max_position_embeddings=131_072, tie_word_embeddings=True)
TEXT_DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma3_text": {"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
                    "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
                    "head_dim": 256, "max_position_embeddings": 131072,
                    "tie_word_embeddings": True},
}  # fmt: skip
# training sequence length of families whose config declares none (see the module docstring);
# Falcon's 2,048: transformers' FalconConfig, src/transformers/models/falcon/
# configuration_falcon.py, FalconConfig.__init__(max_position_embeddings=2048), the class that
# reads Falcon-7B's RefinedWebModel and Falcon-40B's RefinedWeb configs (model_type mapping in
# the same package's modeling code); the Falcon model cards state 2,048-token training
TRAINING_CONTEXT = {"bloom": 2048, "falcon": 2048, "RefinedWeb": 2048, "RefinedWebModel": 2048}
CONTEXT_SOURCE = {
    "falcon": "transformers' own default (FalconConfig max_position_embeddings=2048)",
    "bloom": "BLOOM's published training length (ALiBi: neither the config nor transformers' "
             "BloomConfig declares a maximum)",
    "RefinedWeb": "Falcon's published training length (the remote-code RWConfig declares none; "
                  "transformers' FalconConfig defaults to the same 2048)",
    "RefinedWebModel": "transformers' FalconConfig default max_position_embeddings=2048 (it reads "
                       "Falcon-7B's remote-code RWConfig, which declares none; Falcon-7B was "
                       "trained on 2,048-token sequences)",
}  # fmt: skip
KV_KEYS = ("num_key_value_heads", "num_kv_heads", "n_head_kv")  # GQA's spellings at the top level
# model types whose spelling the kit checks (check_type_spelling): the families it counts, and
# common ones counted like Llama
KNOWN_TYPES = frozenset({*FAMILIES, *TRAINING_CONTEXT, *TEXT_DEFAULTS, "llama4", "llama4_text",
                         "mistral", "mixtral", "deepseek_v2", "deepseek_v3", "phi3", "gemma3n"})  # fmt: skip
# where multimodal / omni wrappers nest the language model, in the order they are looked for
LM_SECTIONS = ("text_config", "llm_config", "language_config", "thinker_config")
FLAGS = ("tie_word_embeddings", "attention_bias", "bias", "use_bias", "mlp_bias", "qkv_bias",
         "add_qkv_bias", "use_qkv_bias", "new_decoder_architecture", "multi_query", "parallel_attn",
         "multi_query_attention", "no_bias", "alibi", "is_encoder_decoder")  # fmt: skip


def load_config(path_or_dict: str | Path | dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The config as a dict, and a short description of where it came from."""
    if isinstance(path_or_dict, dict):
        return dict(path_or_dict), "config dict"
    if not isinstance(path_or_dict, str | Path):
        raise ConfigError(f"a config must be a dict or a path to config.json, got "
                          f"{type(path_or_dict).__name__}")  # fmt: skip
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
        raise ConfigError(f"cannot read {str(path)!r} as a config.json ({type(err).__name__}: "
                          f"{err}); pass the path of a JSON object or a dict") from err  # fmt: skip
    if not isinstance(cfg, dict):
        raise ConfigError(f"{path.name} holds a JSON {type(cfg).__name__}, not an object; a "
                          "config.json is an object of fields")  # fmt: skip
    return cfg, f"config.json {path.name}"


def as_int(field: str, value: Any, limit: int = SIZE_LIMIT, lo: int = 1) -> int:
    """``value`` as a whole number from ``lo`` to ``limit`` − 1, narrowed to the field's
    plausible range (:mod:`~wattgpu_lite.specs.plausible`) where it has one (the strict
    conversion of :func:`wattgpu_lite.checks.check_count`), or ConfigError naming the field,
    the range, why and the fix."""
    keys = f" ({' / '.join(SPELLINGS[field])})" if field in SPELLINGS else ""
    low, high, why = plausible_range(field, lo, limit)
    fix = (f"write {field} as a whole number from {low:,} to {high:,} (a JSON number, not "
           f"text), as the model's published config.json has it{f' ({why})' if why else ''}")  # fmt: skip
    return check_count(field, value, low, high, error=ConfigError, fix=fix,
                       label=f"config.json field {field!r}{keys}")  # fmt: skip


def flag(cfg: dict[str, Any], key: str) -> bool | None:
    """A boolean field as True/False, None when absent or null; ConfigError for anything else."""
    value = cfg.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise ConfigError(f"config.json field {key!r} must be true or false, got {value!r:.40}; write "
                      "it as a JSON true or false (no quotes), or leave it out")  # fmt: skip


def lm_section(cfg: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(dotted path, dict) of the language model: the first of ``LM_SECTIONS`` present, followed
    down (Qwen2.5-Omni: thinker_config.text_config); ("", cfg) when none is."""
    path, section = "", cfg
    for _ in range(len(LM_SECTIONS)):
        key = next((k for k in LM_SECTIONS if section.get(k) is not None), None)
        if key is None:
            break
        inner, path = section[key], f"{path}.{key}" if path else key
        if not isinstance(inner, dict):
            raise ConfigError(f"config.json {path!r} must be an object (the language model's "
                              f"fields), got {type(inner).__name__} {inner!r:.60}")  # fmt: skip
        section = inner
    return path, section


def text_part(cfg: dict[str, Any]) -> dict[str, Any]:
    """The language model: its nested section (``LM_SECTIONS``) over its class defaults, or the
    top level."""
    path, inner = lm_section(cfg)
    if not path:
        return cfg
    outer = {k: cfg[k] for k in ("tie_word_embeddings", "quantization_config", "quantization")
             if k in cfg}  # fmt: skip
    return {**TEXT_DEFAULTS.get(str(inner.get("model_type")), {}), **outer, **inner}


def default_notes(cfg: dict[str, Any]) -> tuple[str, ...]:
    """What the kit filled in for ``cfg`` because the config leaves it out, and from where."""
    path, inner = lm_section(cfg)
    notes = []
    filled = sorted(set(TEXT_DEFAULTS.get(str(inner.get("model_type")), {})) - set(inner))
    if path and filled:
        notes.append(f"{path} lacks {', '.join(filled)}: filled with the defaults of "
                     f"transformers' {inner.get('model_type')} config class")  # fmt: skip
    text = text_part(cfg)
    model_type = str(text.get("model_type") or cfg.get("model_type") or "")
    if model_type and model_type not in KNOWN_TYPES:
        notes.append(f"model_type {model_type!r} is not a family the kit knows by name: its "
                     "blocks are counted like Llama's (RMSNorm, gated MLP, no biases) but for "
                     "the flags the config states")  # fmt: skip
    declared = [k for k in SPELLINGS["context_length"] if text.get(k) is not None]
    if model_type in TRAINING_CONTEXT and not declared:
        notes.append(f"context_length {TRAINING_CONTEXT[model_type]:,}: "
                     f"{CONTEXT_SOURCE[model_type]} (the config declares none)")  # fmt: skip
    return tuple(notes)


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
    found = one_value(cfg, keys, field) or next(
        ((k, cfg[k]) for k in SPELLINGS[field] if cfg.get(k) is not None), None
    )
    if found is not None:
        return found[1]
    if default is not None:
        return default
    raise ConfigError(
        f"config.json lacks {field!r}: looked for {', '.join(SPELLINGS[field])}. "
        "Add one of these keys (see the model's config.json on the Hugging Face Hub)."
    )


def kv_heads(cfg: dict[str, Any], n_heads: int, model_type: str) -> int:
    """KV heads: GQA key, Falcon's multi_query, GLM groups, DBRX attn_config, else heads."""
    if model_type in ("falcon", "RefinedWebModel") and not flag(cfg, "new_decoder_architecture"):
        return 1 if flag(cfg, "multi_query") in (True, None) else n_heads
    attn = cfg.get("attn_config") if isinstance(cfg.get("attn_config"), dict) else {}
    one_value(cfg, KV_KEYS, "n_kv_heads")  # spellings that disagree are refused
    for key, where in (("num_key_value_heads", cfg), ("num_kv_heads", cfg), ("n_head_kv", cfg),
                       ("kv_n_heads", attn), ("multi_query_group_num", cfg)):  # fmt: skip
        if where.get(key) is not None:
            kv = as_int(key, where[key])
            if n_heads % kv:
                raise ConfigError(f"config.json field {key!r} = {kv} does not divide the "
                                  f"{n_heads} attention heads; use the value of the model's "
                                  "published config.json")  # fmt: skip
            return kv
    return 1 if flag(cfg, "multi_query") else n_heads


def head_dim(cfg: dict[str, Any], hidden_size: int, n_heads: int) -> int:
    """Explicit ``head_dim`` (Gemma, Qwen3, Mistral-NeMo) or ``kv_channels``, else d / h."""
    found = one_value(cfg, ("head_dim", "kv_channels"), "head_dim")
    if found is not None:
        return as_int(*found)
    if hidden_size % n_heads:
        raise ConfigError(f"hidden_size {hidden_size} is not divisible by {n_heads} heads; "
                          "add head_dim")  # fmt: skip
    return hidden_size // n_heads


def block_recipe(cfg: dict[str, Any], model_type: str) -> Family:
    """The family's recipe with the bias / norm flags this config states explicitly."""
    for key in FLAGS:
        flag(cfg, key)
    fam = family(model_type)
    all_bias = next((cfg[k] for k in ("bias", "use_bias") if cfg.get(k) is not None), None)
    if cfg.get("no_bias") is not None:
        all_bias = not cfg["no_bias"]
    attn_bias = cfg.get("attention_bias") if cfg.get("attention_bias") is not None else all_bias
    qkv = next((cfg[k] for k in ("qkv_bias", "add_qkv_bias", "use_qkv_bias")
                if cfg.get(k) is not None), None)  # fmt: skip
    new_falcon = model_type in ("falcon", "RefinedWeb") and cfg.get("new_decoder_architecture")
    return with_overrides(
        fam, qkv_bias=qkv if qkv is not None else attn_bias, o_bias=attn_bias,
        mlp_bias=cfg.get("mlp_bias") if cfg.get("mlp_bias") is not None else all_bias,
        norms_per_layer=2 if new_falcon or model_type == "RefinedWeb" else None,
    )  # fmt: skip


def context_length(cfg: dict[str, Any], model_type: str) -> int:
    """Declared maximum sequence length, else the family's published training length."""
    default = TRAINING_CONTEXT.get(model_type)
    return as_int("context_length", pick(cfg, "context_length", default), CONTEXT_LIMIT)


def _folded_type(name: str) -> str:
    """A model type without case, spaces, hyphens or underscores (``" GPT-NeoX"`` → ``gptneox``),
    as :func:`~wattgpu_lite.specs.support.class_family` writes a class's family."""
    return re.sub(r"[\s_-]", "", name.lower())


def check_type_spelling(model_type: str) -> None:
    """ConfigError for a ``model_type`` that is a known family in another case or spelling
    (``"GEMMA2"``, ``"gpt-neox"``, ``" llama"``): read as written it would be no family and
    counted like Llama (other norms, biases, ties)."""
    if model_type in KNOWN_TYPES:
        return
    same = sorted(t for t in KNOWN_TYPES if _folded_type(t) == _folded_type(model_type))
    if same:
        raise ConfigError(f"config.json field 'model_type' is {model_type!r}, but the family "
                          f"is spelled {same[0]!r} (transformers' model types are exact: case, "
                          f"spaces and separators count); write \"model_type\": \"{same[0]}\"")  # fmt: skip


def type_from_classes(cfg: dict[str, Any]) -> str | None:
    """The known model type an ``architectures`` class names (``Qwen2ForCausalLM`` → ``qwen2``,
    ``GPTNeoXForCausalLM`` → ``gpt_neox``), or None."""
    archs = cfg.get("architectures") if isinstance(cfg.get("architectures"), list) else []
    for arch in archs:
        family_ = class_family(str(arch))
        found = sorted(t for t in KNOWN_TYPES if _folded_type(t) == family_)
        if found:
            return found[0]
    return None


def require_model_type(cfg: dict[str, Any], text: dict[str, Any]) -> str:
    """The config's ``model_type`` (top level, else its language-model section), or ConfigError:
    without one the kit cannot tell the family's block recipe, and would count it like Llama."""
    model_type = cfg.get("model_type") or text.get("model_type")
    if model_type:
        return str(model_type)
    guess = type_from_classes(text) or type_from_classes(cfg)
    hint = (f'"model_type": "{guess}" (the family of its architectures class)' if guess
            else 'its family, e.g. "model_type": "llama"')  # fmt: skip
    raise ConfigError("config.json lacks 'model_type' (or it is empty): without the family the "
                      "kit cannot tell the layers' norms, biases and MLP, and will not count it "
                      f"like Llama silently; add {hint}, as the model's published config.json "
                      "has it")  # fmt: skip


def check_finite(cfg: Any, where: str = "") -> None:
    """ConfigError naming the first number of ``cfg`` (at any depth) that is NaN or infinite:
    JSON has no such numbers (Python's json reads the literals NaN and Infinity, and 1e400 as
    infinity), so a config holding one was written by hand or damaged."""
    stack: list[tuple[str, Any]] = [(where, cfg)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):  # reversed: the first in the file is reported first
            stack.extend(reversed([(f"{path}.{k}" if path else str(k), v)
                                   for k, v in value.items()]))  # fmt: skip
        elif isinstance(value, list):
            stack.extend(reversed([(f"{path}[{i}]", v) for i, v in enumerate(value)]))
        elif isinstance(value, float) and not math.isfinite(value):
            shown = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
            raise ConfigError(f"config.json field {path!r} is {shown}, which is not a JSON "
                              "number (NaN and Infinity are not allowed, nor a number too large "
                              "for a float); write the finite value of the model's published "
                              "config.json, or delete the field")  # fmt: skip


def parse_fields(cfg: dict[str, Any]) -> tuple[dict[str, Any], Family, dict[str, Any]]:
    """LLM fields (dense part), the block recipe and the language-model dict of a config."""
    check_supported(cfg)
    text = text_part(cfg)
    check_supported(text)
    model_type = require_model_type(cfg, text)
    inner_type = str(text.get("model_type") or model_type)
    check_type_spelling(model_type)
    check_type_spelling(inner_type)
    if pick(text, "n_heads") == 0:
        raise UnsupportedModelError(
            "0 attention heads (config.json field 'num_attention_heads' = 0): the kit models "
            "attention decoders; a model without attention is not described. If it has "
            "attention, write its number of heads as its published config.json has it"
        )
    n_heads = as_int("n_heads", pick(text, "n_heads"))
    d = as_int("hidden_size", pick(text, "hidden_size"))
    fam = block_recipe(text, inner_type)  # checks every flag, tie_word_embeddings included
    tied = flag(text, "tie_word_embeddings")
    fields = {
        "model_type": model_type, "n_layers": as_int("n_layers", pick(text, "n_layers")),
        "hidden_size": d, "intermediate_size": ffn_width(text, d, fam),
        "n_heads": n_heads, "n_kv_heads": kv_heads(text, n_heads, inner_type),
        "head_dim": head_dim(text, d, n_heads), "vocab_size": as_int("vocab_size",
        pick(text, "vocab_size")), "context_length": context_length(text, inner_type),
        "tie_embeddings": fam.tie_default if tied is None else tied, "mlp_type": fam.mlp_type,
    }  # fmt: skip
    return fields, fam, text


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
    return as_int("intermediate_size", pick(cfg, "intermediate_size",
                  4 * d if fam.mlp_type == "plain" else None))  # fmt: skip
