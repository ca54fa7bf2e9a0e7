"""Parameter count of a decoder-only transformer, dense or mixture-of-experts, from its architecture.

    N = embeddings (+ untied LM head) + learned positions
        + n_layers · (attention + norms per layer)
        + n_dense_layers · MLP(ff) + n_moe_layers · (router + E · MLP(ff_e) + shared experts)

    attention = d·(h·d_h) + 2·d·(kv·d_h) + (h·d_h)·d   (q, k, v, o; GQA when kv < h) + biases
    MLA       = q: d·r_q + r_q·h·(d_nope+d_rope)  (or d·h·(d_nope+d_rope) without r_q)
                kv: d·(r_kv + d_rope) + r_kv·h·(d_nope + d_v);  o: h·d_v·d   (+ LoRA norms)
    MLP       = 3·d·ff (gated: gate, up, down) or 2·d·ff (plain: up, down) + biases
    norm      = 2·d (LayerNorm: weight and bias) or d (RMSNorm: weight only)

Active parameters (per token) = N − gathered − n_moe_layers · (E − k) · MLP(ff_e): every weight a
token multiplies, so neither the routed experts it skips nor the tables it only gathers one row of
(an untied input embedding, learned positions; a tied table is the LM head too and counts). This
is OpenAI's convention for gpt-oss; publishers that count the input table as active (Qwen, Mistral)
are compared with active + gathered (``tests/specs/test_accounting.py``).
What differs between families (biases, norms, QK-norm, learned positions) is the ``FAMILIES``
table keyed by ``model_type``, following each family's ``modeling_<type>.py`` in transformers;
a type not in the table is counted like Llama (RMSNorm, no biases).
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Family:
    """How one model family builds its blocks (the parts a config.json does not spell out)."""

    norm: str = "rms"  # "rms" (weight only) or "layer" (weight + bias)
    norms_per_layer: int = (
        2  # 1 for parallel blocks (GPT-J, Phi, Falcon-7B, Cohere), 4 for Gemma-2/3
    )
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    qk_norm: str = "none"  # "none", "head" (one d_h vector each for q and k), "full" (OLMo-2)
    pos_offset: int | None = None  # learned position table of context + offset rows (GPT-2, OPT)
    lm_head_bias: bool = False
    embed_norm: bool = False  # a LayerNorm right after the token embedding (BLOOM)
    mlp_type: str = "gated"
    tie_default: bool = False  # tie_word_embeddings when the config does not say
    router_bias: bool = False  # a bias on the MoE router (gpt-oss)


_BIASED = dict(norm="layer", qkv_bias=True, o_bias=True, mlp_bias=True)
_PLAIN = "plain"
FAMILIES: dict[str, Family] = {
    "llama": Family(),
    "qwen2": Family(qkv_bias=True),
    "qwen2_moe": Family(qkv_bias=True),
    "qwen3": Family(qk_norm="head"),
    "qwen3_moe": Family(qk_norm="head"),
    "olmo2": Family(qk_norm="full"),
    "olmoe": Family(qk_norm="full"),
    "gemma": Family(tie_default=True),
    "gemma2": Family(norms_per_layer=4, tie_default=True),
    "gemma3": Family(norms_per_layer=4, qk_norm="head", tie_default=True),
    "gemma3_text": Family(norms_per_layer=4, qk_norm="head", tie_default=True),
    "chatglm": Family(qkv_bias=True),
    "nemotron": Family(norm="layer", mlp_type=_PLAIN),
    "phi": Family(norms_per_layer=1, lm_head_bias=True, mlp_type=_PLAIN, **_BIASED),
    "gptj": Family(
        norm="layer", norms_per_layer=1, mlp_bias=True, lm_head_bias=True, mlp_type=_PLAIN
    ),
    "gpt_neox": Family(mlp_type=_PLAIN, **_BIASED),
    "gpt2": Family(pos_offset=0, mlp_type=_PLAIN, tie_default=True, **_BIASED),
    "opt": Family(pos_offset=2, mlp_type=_PLAIN, tie_default=True, **_BIASED),
    "bloom": Family(embed_norm=True, mlp_type=_PLAIN, tie_default=True, **_BIASED),
    "starcoder2": Family(mlp_type=_PLAIN, tie_default=True, **_BIASED),  # PretrainedConfig default
    "falcon": Family(norm="layer", norms_per_layer=1, mlp_type=_PLAIN, tie_default=True),
    "RefinedWeb": Family(norm="layer", norms_per_layer=1, mlp_type=_PLAIN, tie_default=True),
    "RefinedWebModel": Family(norm="layer", norms_per_layer=1, mlp_type=_PLAIN, tie_default=True),
    "cohere": Family(norms_per_layer=1, tie_default=True),  # LayerNorm without bias, parallel
    "mpt": Family(norm="layer", mlp_type=_PLAIN, tie_default=True),
    "olmo": Family(norm="none", tie_default=False),  # non-parametric LayerNorm
    "granite": Family(tie_default=True),
    "gpt_oss": Family(qkv_bias=True, o_bias=True, mlp_bias=True, router_bias=True),
    "dbrx": Family(),
    "phimoe": Family(norm="layer", qkv_bias=True, o_bias=True, lm_head_bias=True),
}


def family(model_type: str) -> Family:
    """The block recipe of ``model_type`` (Llama-like when the family is not in the table)."""
    return FAMILIES.get(model_type, Family())


def with_overrides(fam: Family, **flags: bool | int | str | None) -> Family:
    """``fam`` with the flags a config.json states explicitly (None = not stated, keep default)."""
    return replace(fam, **{k: v for k, v in flags.items() if v is not None})


def norm_params(d: int, fam: Family) -> int:
    """Parameters of one norm over width d: 2·d for LayerNorm, d for RMSNorm, 0 non-parametric."""
    return {"layer": 2 * d, "rms": d, "none": 0}[fam.norm]


def attention_params(d: int, n_heads: int, n_kv_heads: int, head_dim: int, *, fam: Family) -> int:
    """q, k, v, o projections with GQA (+ biases, + QK-norm) of one layer."""
    q_dim, kv_dim = n_heads * head_dim, n_kv_heads * head_dim
    weights = 2 * d * q_dim + 2 * d * kv_dim
    biases = (q_dim + 2 * kv_dim) * fam.qkv_bias + d * fam.o_bias
    qk_norm = {"none": 0, "head": 2 * head_dim, "full": q_dim + kv_dim}[fam.qk_norm]
    return weights + biases + qk_norm


@dataclass(frozen=True)
class MLA:
    """DeepSeek multi-head latent attention: LoRA ranks and head widths from config.json."""

    q_lora_rank: int  # 0 = queries projected directly from d
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


def mla_params(d: int, n_heads: int, m: MLA) -> int:
    """q (optionally via a rank-r_q LoRA with its norm), joint kv LoRA with its norm, o."""
    qk = m.qk_nope_head_dim + m.qk_rope_head_dim
    q = (
        d * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * n_heads * qk
        if m.q_lora_rank
        else (d * n_heads * qk)
    )
    kv = d * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank
    kv += m.kv_lora_rank * n_heads * (m.qk_nope_head_dim + m.v_head_dim)
    return q + kv + n_heads * m.v_head_dim * d


def mlp_params(d: int, ff: int, mlp_type: str, fam: Family) -> int:
    """Gated (gate, up, down: 3·d·ff) or plain (up, down: 2·d·ff) MLP, with biases if any."""
    if mlp_type == "gated":
        return 3 * d * ff + (2 * ff + d) * fam.mlp_bias
    return 2 * d * ff + (ff + d) * fam.mlp_bias


def embedding_params(vocab: int, d: int, tied: bool, context: int, *, fam: Family) -> int:
    """Token embedding, untied LM head (+ bias), learned positions, embedding norm, final norm."""
    return sum(embedding_groups(vocab, d, tied, context, fam=fam).values())


def embedding_groups(
    vocab: int, d: int, tied: bool, context: int, *, fam: Family
) -> dict[str, int]:
    """The embedding-side parameters by group: embed (table, positions, norms) and lm_head."""
    head = 0 if tied else vocab * d + vocab * fam.lm_head_bias
    positions = 0 if fam.pos_offset is None else (context + fam.pos_offset) * d
    embed_norm = norm_params(d, fam) if fam.embed_norm else 0
    return {"embed": vocab * d + positions + embed_norm + norm_params(d, fam), "lm_head": head}


def gathered_params(vocab: int, d: int, tied: bool, context: int, fam: Family) -> int:
    """Parameters a token gathers one row of rather than multiplies: the untied input token table
    (vocab·d; a tied one is the LM head as well, multiplied and read whole every step) and a
    learned position table ((context + offset)·d). A decode step of B tokens reads B·d of them."""
    table = 0 if tied else vocab * d
    positions = 0 if fam.pos_offset is None else (context + fam.pos_offset) * d
    return table + positions


def count_params(
    *,
    n_layers: int,
    hidden_size: int,
    intermediate_size: int,
    n_heads: int,
    n_kv_heads: int,
    head_dim: int,
    vocab_size: int,
    context_length: int,
    tie_embeddings: bool,
    mlp_type: str,
    fam: Family,
) -> int:
    """Total parameters N of a dense model (an integer count, not billions)."""
    d = hidden_size
    per_layer = (
        attention_params(d, n_heads, n_kv_heads, head_dim, fam=fam)
        + mlp_params(d, intermediate_size, mlp_type, fam)
        + fam.norms_per_layer * norm_params(d, fam)
    )
    outer = embedding_params(vocab_size, d, tie_embeddings, context_length, fam=fam)
    return n_layers * per_layer + outer
