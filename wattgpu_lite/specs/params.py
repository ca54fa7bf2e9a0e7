"""Parameter count of a dense decoder-only transformer, from its architecture.

    N = embeddings (+ untied LM head) + learned positions
        + n_layers · (attention + MLP + norms per layer) + final norm

    attention = d·(h·d_h) + 2·d·(kv·d_h) + (h·d_h)·d   (q, k, v, o; GQA when kv < h) + biases
    MLP       = 3·d·ff (gated: gate, up, down) or 2·d·ff (plain: up, down) + biases
    norm      = 2·d (LayerNorm: weight and bias) or d (RMSNorm: weight only)

What differs between families (biases, LayerNorm vs RMSNorm, how many norms a block has, QK-norm,
learned positions) is read from the ``FAMILIES`` table, keyed by the config's ``model_type``; it
follows the layer definitions of each family's ``modeling_<type>.py`` in Hugging Face transformers.
A ``model_type`` not in the table is counted like Llama (RMSNorm, no biases).
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Family:
    """How one model family builds its blocks (the parts a config.json does not spell out)."""

    norm: str = "rms"  # "rms" (weight only) or "layer" (weight + bias)
    norms_per_layer: int = 2  # 1 for parallel blocks (GPT-J, Phi, Falcon-7B), 4 for Gemma-2/3
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    qk_norm: str = "none"  # "none", "head" (one d_h vector each for q and k), "full" (OLMo-2)
    pos_offset: int | None = None  # learned position table of context + offset rows (GPT-2, OPT)
    lm_head_bias: bool = False
    embed_norm: bool = False  # a LayerNorm right after the token embedding (BLOOM)
    mlp_type: str = "gated"
    tie_default: bool = False  # tie_word_embeddings when the config does not say


_BIASED = dict(norm="layer", qkv_bias=True, o_bias=True, mlp_bias=True)
_PLAIN = "plain"
FAMILIES: dict[str, Family] = {
    "llama": Family(),
    "qwen2": Family(qkv_bias=True),
    "qwen3": Family(qk_norm="head"),
    "olmo2": Family(qk_norm="full"),
    "gemma": Family(tie_default=True),
    "gemma2": Family(norms_per_layer=4, tie_default=True),
    "gemma3": Family(norms_per_layer=4, qk_norm="head", tie_default=True),
    "gemma3_text": Family(norms_per_layer=4, qk_norm="head", tie_default=True),
    "chatglm": Family(qkv_bias=True),
    "nemotron": Family(norm="layer", mlp_type=_PLAIN),
    "phi": Family(norms_per_layer=1, lm_head_bias=True, mlp_type=_PLAIN, **_BIASED),
    "gptj": Family(norm="layer", norms_per_layer=1, mlp_bias=True, lm_head_bias=True, mlp_type=_PLAIN),
    "gpt_neox": Family(mlp_type=_PLAIN, **_BIASED),
    "gpt2": Family(pos_offset=0, mlp_type=_PLAIN, tie_default=True, **_BIASED),
    "opt": Family(pos_offset=2, mlp_type=_PLAIN, tie_default=True, **_BIASED),
    "bloom": Family(embed_norm=True, mlp_type=_PLAIN, tie_default=True, **_BIASED),
    "starcoder2": Family(mlp_type=_PLAIN, **_BIASED),
    "falcon": Family(norm="layer", norms_per_layer=1, mlp_type=_PLAIN, tie_default=True),
}  # fmt: skip


def family(model_type: str) -> Family:
    """The block recipe of ``model_type`` (Llama-like when the family is not in the table)."""
    return FAMILIES.get(model_type, Family())


def with_overrides(fam: Family, **flags: bool | int | str | None) -> Family:
    """``fam`` with the flags a config.json states explicitly (None = not stated, keep default)."""
    return replace(fam, **{k: v for k, v in flags.items() if v is not None})


def norm_params(d: int, fam: Family) -> int:
    """Parameters of one norm over width d: 2·d for LayerNorm, d for RMSNorm."""
    return 2 * d if fam.norm == "layer" else d


def attention_params(d: int, n_heads: int, n_kv_heads: int, head_dim: int, fam: Family) -> int:
    """q, k, v, o projections with GQA (+ biases, + QK-norm) of one layer."""
    q_dim, kv_dim = n_heads * head_dim, n_kv_heads * head_dim
    weights = 2 * d * q_dim + 2 * d * kv_dim
    biases = (q_dim + 2 * kv_dim) * fam.qkv_bias + d * fam.o_bias
    qk_norm = {"none": 0, "head": 2 * head_dim, "full": q_dim + kv_dim}[fam.qk_norm]
    return weights + biases + qk_norm


def mlp_params(d: int, ff: int, mlp_type: str, fam: Family) -> int:
    """Gated (gate, up, down: 3·d·ff) or plain (up, down: 2·d·ff) MLP, with biases if any."""
    if mlp_type == "gated":
        return 3 * d * ff + (2 * ff + d) * fam.mlp_bias
    return 2 * d * ff + (ff + d) * fam.mlp_bias


def embedding_params(vocab: int, d: int, tied: bool, context: int, fam: Family) -> int:
    """Token embedding, untied LM head (+ bias), learned positions, embedding norm, final norm."""
    head = 0 if tied else vocab * d + vocab * fam.lm_head_bias
    positions = 0 if fam.pos_offset is None else (context + fam.pos_offset) * d
    embed_norm = norm_params(d, fam) if fam.embed_norm else 0
    return vocab * d + head + positions + embed_norm + norm_params(d, fam)


def count_params(
    *, n_layers: int, hidden_size: int, intermediate_size: int, n_heads: int, n_kv_heads: int,
    head_dim: int, vocab_size: int, context_length: int, tie_embeddings: bool, mlp_type: str,
    fam: Family,
) -> int:  # fmt: skip
    """Total parameters N of the model (an integer count, not billions)."""
    d = hidden_size
    per_layer = (
        attention_params(d, n_heads, n_kv_heads, head_dim, fam)
        + mlp_params(d, intermediate_size, mlp_type, fam)
        + fam.norms_per_layer * norm_params(d, fam)
    )
    outer = embedding_params(vocab_size, d, tie_embeddings, context_length, fam)
    return n_layers * per_layer + outer
