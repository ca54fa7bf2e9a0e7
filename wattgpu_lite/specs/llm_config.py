"""An LLM's fields from any Hugging Face config.json (``LLM.from_hf_config``).

Reads the dense part (:mod:`~wattgpu_lite.specs.hf_config`, the family and section of
:mod:`~wattgpu_lite.specs.hf_family`), mixture-of-experts and DeepSeek MLA
(:mod:`~wattgpu_lite.specs.moe_config`), the weights' storage (:mod:`~wattgpu_lite.specs.quant`),
sliding windows (:mod:`~wattgpu_lite.specs.window`) and the model's Hub id (:func:`config_name`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from wattgpu_lite.errors import ConfigError, InvalidInputError, UnsupportedModelError
from wattgpu_lite.specs import hf_family
from wattgpu_lite.specs.count import active_params, count_groups, storage_bits, streamed_bits
from wattgpu_lite.specs.hf_config import (
    as_int,
    block_recipe,
    check_finite,
    ffn_width,
    flag,
    head_dim,
    kv_heads,
    load_config,
    pick,
)
from wattgpu_lite.specs.moe_config import moe_notes, read_mla, read_moe
from wattgpu_lite.specs.params import Family, gathered_params, mlp_params
from wattgpu_lite.specs.plausible import check_params_b
from wattgpu_lite.specs.quant import weight_format
from wattgpu_lite.specs.support import check_supported
from wattgpu_lite.specs.window import read_window

# a Hugging Face Hub id: owner/name, each part letters, digits, '-', '_' or '.', not led by '.'
HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*")
# a training run's folder, not a model: checkpoint-500, checkpoint_2, step1000, global_step20
CHECKPOINT_DIR = re.compile(r"(checkpoint|(global_)?step|epoch)[-_]?\d*", re.IGNORECASE)


def parse_fields(cfg: dict[str, Any]) -> tuple[dict[str, Any], Family, dict[str, Any]]:
    """LLM fields (dense part), the block recipe and the language-model dict of a config."""
    check_supported(cfg)
    text = hf_family.text_part(cfg)
    check_supported(text)
    model_type = hf_family.require_model_type(cfg, text)
    inner_type = str(text.get("model_type") or model_type)
    hf_family.check_type_spelling(model_type)
    hf_family.check_type_spelling(inner_type)
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
        "model_type": model_type,
        "n_layers": as_int("n_layers", pick(text, "n_layers")),
        "hidden_size": d,
        "intermediate_size": ffn_width(text, d, fam),
        "n_heads": n_heads,
        "n_kv_heads": kv_heads(text, n_heads, inner_type),
        "head_dim": head_dim(text, d, n_heads),
        "vocab_size": as_int("vocab_size", pick(text, "vocab_size")),
        "context_length": hf_family.context_length(text, inner_type),
        "tie_embeddings": fam.tie_default if tied is None else tied,
        "mlp_type": fam.mlp_type,
    }
    return fields, fam, text


def llm_fields(path_or_dict: str | Path | dict[str, Any], name: str | None = None) -> dict:
    """The keyword arguments of :class:`~wattgpu_lite.specs.llm.LLM` for a config.json (a path
    or the parsed dict); UnsupportedModelError for encoder, encoder-decoder and (hybrid)
    recurrent models, ConfigError for a missing or malformed field."""
    cfg, where = load_config(path_or_dict)
    fields, fam, text = parse_fields(cfg)
    moe = read_moe(text, fields["n_layers"], fields["intermediate_size"])
    mla = read_mla(text)
    groups = count_groups(fields, fam, moe, mla)
    vocab, d, tied, context = (
        fields[k] for k in ("vocab_size", "hidden_size", "tie_embeddings", "context_length")
    )
    gathered = gathered_params(vocab, d, tied, context, fam=fam)
    fmt = weight_format(text)
    always_bits, expert_bits = streamed_bits(groups, fmt, gathered)
    inner_type = str(text.get("model_type") or fields["model_type"])
    window, sliding = read_window(text, inner_type, fields["n_layers"], fields["context_length"])
    check_finite(cfg)  # the rest: the fields read above named their own range
    named = None if name is None else check_label("name", name)  # as wl.predict's name=
    label = named or config_name(cfg) or "custom model"
    extra = {
        # a dense model's is params_b − gathered, rounded as LLM.__post_init__ does it
        "params_active_b": round(active_params(groups, moe, gathered) / 1e9, 6) if moe else 0.0,
        "weight_format": fmt.name,
        "weight_bits": storage_bits(groups, fmt),
        "weight_bits_always": always_bits,
        "weight_bits_expert": expert_bits,
        "sliding_window": window,
        "n_sliding_layers": sliding,
        "mla_kv_width": mla.kv_lora_rank + mla.qk_rope_head_dim if mla else 0,
    }
    if mla:
        head = mla.qk_nope_head_dim + mla.qk_rope_head_dim
        fields |= {"n_kv_heads": fields["n_heads"], "head_dim": head}
    if moe:
        expert_b = round(mlp_params(fields["hidden_size"], moe.expert_ff, "gated", fam) / 1e9, 9)
        extra |= {
            "n_experts": moe.n_experts,
            "n_experts_active": moe.top_k,
            "n_shared_experts": moe.n_shared,
            "n_moe_layers": moe.n_moe_layers,
            "params_expert_b": expert_b,
        }
    params_b = round(sum(groups.values()) / 1e9, 6)
    if implausible := check_params_b(params_b, f"config {label!r}"):
        raise ConfigError(implausible)
    notes = (where, *hf_family.default_notes(cfg), *moe_notes(text), *fmt.notes)
    ours = {"params_b": params_b, "params_nominal_b": params_b, "in_wattgpu": False}
    return {"name": str(label), **fields, **ours, "source": "; ".join(notes), **extra}


def check_label(field: str, text: Any) -> str:
    """A display name: text of 1 to 200 printable characters (InvalidInputError naming ``field``)."""
    if not isinstance(text, str) or not text.strip() or len(text) > 200 or not text.isprintable():
        raise InvalidInputError(
            f"{field} must be a name of 1 to 200 printable characters, got "
            f"{text!r:.80}; pass e.g. {field}='my-finetune'"
        )
    return text.strip()


def is_hub_id(text: str) -> bool:
    """Whether ``text`` reads as a Hub id ``owner/name`` (``meta-llama/Llama-3.1-8B``): one
    ``/``, no path of a machine (absolute, ``./``, ``~``, a drive, a backslash) and no training
    checkpoint folder (``runs/checkpoint-500``) as its name."""
    if not HUB_ID.fullmatch(text):
        return False
    owner, name = text.split("/")
    return not (CHECKPOINT_DIR.fullmatch(name) or CHECKPOINT_DIR.fullmatch(owner))


def config_name(cfg: dict[str, Any]) -> str:
    """The model's Hub id a config carries (``_name_or_path``, else ``name_or_path``) when it
    reads as one (:func:`is_hub_id`), else "" (a path of the machine that saved it, a
    checkpoint folder: no name); ConfigError if it is not text (a number or a list would become
    a name like ``"5"``)."""
    for key in ("_name_or_path", "name_or_path"):
        value = cfg.get(key)
        if value is not None and not isinstance(value, str):
            got = f"got {value!r:.60} ({type(value).__name__})"
            example = 'the model\'s id, e.g. "meta-llama/Llama-3.1-8B"'
            fix = "write it in quotes or leave it out"
            raise ConfigError(f"config.json field {key!r} must be text ({example}), {got}; {fix}")
        if value and is_hub_id(value.strip()):
            return value.strip()
    return ""
