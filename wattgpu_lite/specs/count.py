"""From parsed config fields to parameter counts by group, totals, active count and storage bits.

Groups (integer counts): ``embed`` (token table, positions, embedding and final norms),
``lm_head``, ``attention`` (projections, biases, QK-norms, gpt-oss sinks), ``norms`` (per-layer),
``dense_mlp`` (MLPs of the dense layers), ``router``, ``shared`` (always-on experts and their gate)
and ``routed`` (all routed experts). Total N = Σ groups; active = N − gathered − (E − k)/E · routed,
with ``gathered`` the tables a token reads one row of (:func:`~wattgpu_lite.specs.params.gathered_params`).

Storage bits are the parameter-weighted mean over groups: the quantised linear layers at the
method's bits (:mod:`wattgpu_lite.specs.quant`), and embeddings, norms, the LM head (unless a
config quantises it) and every module the config keeps out of quantisation at 16 bits. A decode
step streams two kinds of weight at their own widths (:func:`streamed_bits`): the always-read
groups (everything but the routed experts and the gathered tables) and the routed experts.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from wattgpu_lite.specs.moe_config import MoE
from wattgpu_lite.specs.params import (
    MLA,
    Family,
    attention_params,
    embedding_groups,
    mla_params,
    mlp_params,
    norm_params,
)
from wattgpu_lite.specs.quant import WeightFormat

# a representative module name of each group, for matching keep-16-bit lists (layer 1)
MODULES = {
    "attention": ("model.layers.1.self_attn.q_proj", "model.layers.1.self_attn.o_proj"),
    "dense_mlp": ("model.layers.0.mlp.gate_proj", "model.layers.0.mlp.down_proj"),
    "shared": (
        "model.layers.1.mlp.shared_experts.down_proj",
        "model.layers.1.mlp.shared_expert.down_proj",
    ),
    "routed": (
        "model.layers.1.mlp.experts.0.down_proj",
        "model.layers.1.block_sparse_moe.experts.0.w2",
    ),
    "router": (
        "model.layers.1.mlp.gate",
        "model.layers.1.mlp.router",
        "transformer.blocks.1.ffn.router.layer",
    ),
    "lm_head": ("lm_head",),
}
QUANTISABLE = ("attention", "dense_mlp", "shared", "routed", "router", "lm_head")


def count_groups(
    f: dict[str, Any], fam: Family, moe: MoE | None, mla: MLA | None
) -> dict[str, int]:
    """Parameters of the model by group (see the module docstring)."""
    d, layers = f["hidden_size"], f["n_layers"]
    attn = (
        mla_params(d, f["n_heads"], mla)
        if mla
        else attention_params(d, f["n_heads"], f["n_kv_heads"], f["head_dim"], fam=fam)
    )
    sinks = f["n_heads"] if f["model_type"] == "gpt_oss" else 0
    groups = embedding_groups(f["vocab_size"], d, f["tie_embeddings"], f["context_length"], fam=fam)
    n_moe = moe.n_moe_layers if moe else 0
    groups |= {
        "attention": layers * (attn + sinks),
        "norms": layers * fam.norms_per_layer * norm_params(d, fam),
        "dense_mlp": (layers - n_moe) * mlp_params(d, f["intermediate_size"], f["mlp_type"], fam),
        "router": 0,
        "shared": 0,
        "routed": 0,
    }
    if moe:
        expert = mlp_params(d, moe.expert_ff, "gated", fam)
        groups["router"] = n_moe * (d * moe.n_experts + moe.n_experts * fam.router_bias)
        shared = moe.n_shared * mlp_params(d, moe.shared_ff, "gated", fam) + d * moe.shared_gate
        groups["shared"] = n_moe * shared
        groups["routed"] = n_moe * moe.n_experts * expert
    return groups


def active_params(groups: dict[str, int], moe: MoE | None, gathered: int) -> float:
    """Parameters a token multiplies: all but the ``gathered`` tables and the (E − k) routed
    experts it skips, N − gathered − (E − k)/E · routed."""
    skipped = groups["routed"] * (moe.n_experts - moe.top_k) / moe.n_experts if moe else 0.0
    return sum(groups.values()) - gathered - skipped


def storage_bits(groups: dict[str, int], fmt: WeightFormat) -> float:
    """Parameter-weighted bits per weight over all groups (see the module docstring)."""
    if fmt.bits == 16.0:
        return 16.0
    total = sum(groups.values())
    bits = sum(n * _group_bits(g, fmt) for g, n in groups.items())
    return round(bits / total, 4)


def streamed_bits(groups: dict[str, int], fmt: WeightFormat, gathered: int) -> tuple[float, float]:
    """(always-read, routed-expert) bits per weight: the mean over the groups every step reads,
    weighted by the parameters it reads of each (the embed group without its ``gathered``
    tables), and the routed experts' width (= the always-read width without experts)."""
    if fmt.bits == 16.0:
        return 16.0, 16.0
    always = {g: n - (gathered if g == "embed" else 0) for g, n in groups.items() if g != "routed"}
    bits = sum(n * _group_bits(g, fmt) for g, n in always.items())
    mean = round(bits / sum(always.values()), 4)
    return mean, (_group_bits("routed", fmt) if groups["routed"] else mean)


def _group_bits(group: str, fmt: WeightFormat) -> float:
    if group in fmt.also:
        return fmt.bits
    if group not in QUANTISABLE or group == "lm_head":
        return 16.0
    if any(kept_16bit(m, fmt.keep_16bit) for m in MODULES[group]):
        return 16.0
    return fmt.bits


def kept_16bit(module: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``module`` or a parent matches a keep-16-bit entry (``re:`` regex, glob, dotted)."""
    up = [".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 2)]
    for pat in patterns:
        if pat.startswith("re:"):
            if re.match(pat[3:], module):
                return True
        elif any(fnmatch.fnmatchcase(p, pat) for p in up) or f".{pat.strip('.')}." in f".{module}.":
            return True
    return False
