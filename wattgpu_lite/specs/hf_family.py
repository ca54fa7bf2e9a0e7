"""Which model a Hugging Face config.json describes: its family, its language-model section.

A config must name its family (``model_type``, here or in its language-model section): without
it the block recipe (norms, biases, MLP) is unknown, so the kit refuses it rather than count it
like Llama; a family the kit does not know by name is counted like Llama, and the model's source
says so. Multimodal and omni wrappers nest the language model in ``text_config``, ``llm_config``
(InternVL), ``language_config`` (DeepSeek-VL2) or ``thinker_config`` (Qwen2.5-Omni, itself
holding a ``text_config``), sometimes leaving fields to the text class's documented defaults
(``TEXT_DEFAULTS``); :func:`default_notes` says what was filled in.

``context_length`` is the longest sequence the config declares (max_position_embeddings,
n_positions, seq_length, max_seq_len …). Families without any such key — ALiBi (BLOOM) or early
rotary checkpoints (Falcon-40B's ``RefinedWeb`` and Falcon-7B's ``RefinedWebModel`` configs) —
take the training sequence length their authors publish, which is also transformers' own
default where it has one (``TRAINING_CONTEXT``, ``CONTEXT_SOURCE``); it bounds the tokens the
kit lets a request use, and the model's source line says where it came from.
"""

from __future__ import annotations

import re
from typing import Any

from wattgpu_lite.errors import ConfigError
from wattgpu_lite.specs.hf_config import CONTEXT_LIMIT, SPELLINGS, as_int, pick
from wattgpu_lite.specs.params import FAMILIES
from wattgpu_lite.specs.support import class_family

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
}
# model types whose spelling the kit checks (check_type_spelling): the families it counts, and
# common ones counted like Llama
COUNTED_LIKE_LLAMA = (
    "llama4",
    "llama4_text",
    "mistral",
    "mixtral",
    "deepseek_v2",
    "deepseek_v3",
    "phi3",
    "gemma3n",
)
KNOWN_TYPES = frozenset({*FAMILIES, *TRAINING_CONTEXT, *TEXT_DEFAULTS, *COUNTED_LIKE_LLAMA})
# where multimodal / omni wrappers nest the language model, in the order they are looked for
LM_SECTIONS = ("text_config", "llm_config", "language_config", "thinker_config")


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
            fields = f"the language model's fields), got {type(inner).__name__} {inner!r:.60}"
            raise ConfigError(f"config.json {path!r} must be an object ({fields}")
        section = inner
    return path, section


def text_part(cfg: dict[str, Any]) -> dict[str, Any]:
    """The language model: its nested section (``LM_SECTIONS``) over its class defaults, or the
    top level."""
    path, inner = lm_section(cfg)
    if not path:
        return cfg
    outer = ("tie_word_embeddings", "quantization_config", "quantization")
    defaults = TEXT_DEFAULTS.get(str(inner.get("model_type")), {})
    return {**defaults, **{k: cfg[k] for k in outer if k in cfg}, **inner}


def default_notes(cfg: dict[str, Any]) -> tuple[str, ...]:
    """What the kit filled in for ``cfg`` because the config leaves it out, and from where."""
    path, inner = lm_section(cfg)
    notes = []
    filled = sorted(set(TEXT_DEFAULTS.get(str(inner.get("model_type")), {})) - set(inner))
    if path and filled:
        kind = f"transformers' {inner.get('model_type')} config class"
        notes.append(f"{path} lacks {', '.join(filled)}: filled with the defaults of {kind}")
    text = text_part(cfg)
    model_type = str(text.get("model_type") or cfg.get("model_type") or "")
    if model_type and model_type not in KNOWN_TYPES:
        how = "blocks are counted like Llama's (RMSNorm, gated MLP, no biases)"
        known = f"model_type {model_type!r} is not a family the kit knows by name"
        notes.append(f"{known}: its {how} but for the flags the config states")
    declared = [k for k in SPELLINGS["context_length"] if text.get(k) is not None]
    if model_type in TRAINING_CONTEXT and not declared:
        length = f"context_length {TRAINING_CONTEXT[model_type]:,}"
        notes.append(f"{length}: {CONTEXT_SOURCE[model_type]} (the config declares none)")
    return tuple(notes)


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
        exact = "transformers' model types are exact: case, spaces and separators count"
        spelled = f"but the family is spelled {same[0]!r} ({exact})"
        fix = f'write "model_type": "{same[0]}"'
        raise ConfigError(f"config.json field 'model_type' is {model_type!r}, {spelled}; {fix}")


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
    of_class = f'"model_type": "{guess}" (the family of its architectures class)'
    hint = of_class if guess else 'its family, e.g. "model_type": "llama"'
    lacks = "config.json lacks 'model_type' (or it is empty): without the family the kit cannot"
    why = "tell the layers' norms, biases and MLP, and will not count it like Llama silently"
    raise ConfigError(f"{lacks} {why}; add {hint}, as the model's published config.json has it")
