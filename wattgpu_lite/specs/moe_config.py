"""Read the mixture-of-experts and multi-head-latent-attention fields of a config.json.

Experts: ``num_local_experts`` (Mixtral, gpt-oss, Phi-3.5-MoE), ``num_experts`` (Qwen-MoE, OLMoE),
``n_routed_experts`` (DeepSeek, GLM-4.5, Kimi), DBRX's ``ffn_config.moe_num_experts``. Top-k:
``num_experts_per_tok``, ``experts_per_token``, ``moe_top_k``. Expert width: ``moe_intermediate_size``
(else the MLP width). Shared experts: ``n_shared_experts`` experts of the expert width, or one
of ``shared_expert_intermediate_size`` with a sigmoid gate (Qwen-MoE). Llama 4 (``llama4_text``)
names no width or shared expert: its routed experts and its one always-on shared expert are
``intermediate_size`` wide (transformers ``Llama4TextMoe``), its dense layers
``intermediate_size_mlp`` (read by :func:`~wattgpu_lite.specs.hf_config.ffn_width`). Which layers
are MoE:

- ``first_k_dense_replace`` k and ``moe_layer_freq`` f (DeepSeek, GLM-4.5): i ≥ k and i mod f = 0;
- ``decoder_sparse_step`` s and ``mlp_only_layers`` (Qwen-MoE): (i + 1) mod s = 0, not listed;
- ``interleave_moe_layer_step`` s (Llama 4): (i + 1) mod s = 0;
- otherwise every layer.

A config with fewer than two experts is dense (0 experts beside a top-k: the source says the
top-k is not read, :func:`moe_notes`); one expert with a top-k above 1 is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wattgpu_lite.checks import check_counts
from wattgpu_lite.errors import ConfigError
from wattgpu_lite.specs.hf_config import as_int, one_value
from wattgpu_lite.specs.params import MLA

EXPERT_KEYS = ("num_local_experts", "num_experts", "n_routed_experts")
TOPK_KEYS = ("num_experts_per_tok", "experts_per_token", "moe_top_k", "num_experts_per_token")


@dataclass(frozen=True)
class MoE:
    """Routed experts per MoE layer, top-k, shared experts, widths and MoE layer count."""

    n_experts: int
    top_k: int
    expert_ff: int
    n_shared: int  # always-on experts of width shared_ff
    shared_ff: int
    shared_gate: bool  # a d→1 gate on the shared expert (Qwen-MoE)
    n_moe_layers: int


def _first(cfg: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, Any] | None:
    """(key, value) of the first of ``keys`` present; two that disagree are a ConfigError."""
    return one_value(cfg, keys, keys[0])


def read_moe(cfg: dict[str, Any], n_layers: int, dense_ff: int) -> MoE | None:
    """The MoE description of a (language-model) config dict, or None for a dense model."""
    ffn = cfg.get("ffn_config") if isinstance(cfg.get("ffn_config"), dict) else {}
    experts = _first(cfg, EXPERT_KEYS) or _first(ffn, ("moe_num_experts",))
    if experts is None:
        _no_expert_count(_first(cfg, TOPK_KEYS))
        return None
    n_experts = as_int(experts[0], experts[1], lo=0)
    topk = _first(cfg, TOPK_KEYS) or _first(ffn, ("moe_top_k",))
    if n_experts < 2:  # dense (0: no experts, moe_notes says so), but 1 expert routed to 2
        if n_experts == 1 and topk is not None and as_int(topk[0], topk[1], lo=0) > 1:
            raise _too_many(topk, experts, n_experts)
        return None
    if topk is None:
        raise ConfigError(
            f"config.json has {experts[0]} = {n_experts} but no top-k; looked for "
            f"{', '.join(TOPK_KEYS)}; add the experts each token is routed to, "
            f'e.g. "num_experts_per_tok": 2'
        )
    top_k = as_int(topk[0], topk[1])
    if top_k > n_experts:
        raise _too_many(topk, experts, n_experts)
    width = cfg.get("intermediate_size") if _is_llama4(cfg) else dense_ff
    expert_ff = as_int("moe_intermediate_size", _or(cfg, "moe_intermediate_size", width))
    n_shared, shared_ff, gate = _shared(cfg, expert_ff)
    return MoE(
        n_experts,
        top_k,
        expert_ff,
        n_shared,
        shared_ff=shared_ff,
        shared_gate=gate,
        n_moe_layers=moe_layers(cfg, n_layers),
    )


def _no_expert_count(topk: tuple[str, Any] | None) -> None:
    """ConfigError for a top-k without an expert count: read as dense, a Mixtral missing
    ``num_local_experts`` was a 7 B model (transformers fills in 8 experts, 47 B)."""
    if topk is not None:
        raise ConfigError(
            f"config.json has {topk[0]} = {topk[1]!r:.20} but no expert count; looked for "
            f"{', '.join(EXPERT_KEYS)}; add the routed experts per layer as the model's published "
            f'config.json has them, e.g. "num_local_experts": 8 (a dense model: delete {topk[0]})'
        )


def moe_notes(cfg: dict[str, Any]) -> tuple[str, ...]:
    """What the kit read differently from what the config says about experts: an expert count
    of 0 beside a top-k (the model is read as dense, the top-k not used)."""
    experts = _first(cfg, EXPERT_KEYS)
    topk = _first(cfg, TOPK_KEYS)
    if experts is None or topk is None or experts[1] != 0:
        return ()
    return (f"{experts[0]} 0: read as a dense model ({topk[0]} {topk[1]!r:.20} not used)",)


def _too_many(topk: tuple[str, Any], experts: tuple[str, Any], n_experts: int) -> ConfigError:
    """A top-k above the expert count: no router picks more experts than there are."""
    return ConfigError(
        f"config.json {topk[0]} = {topk[1]!r:.20} exceeds {experts[0]} = "
        f"{n_experts}: a token cannot be routed to more experts than the layer "
        f"has; write both as the model's published config.json has them (a dense "
        f"model: leave both out)"
    )


def _is_llama4(cfg: dict[str, Any]) -> bool:
    return cfg.get("model_type") == "llama4_text"


def _shared(cfg: dict[str, Any], expert_ff: int) -> tuple[int, int, bool]:
    if _is_llama4(cfg):
        return 1, expert_ff, False
    shared_ff = cfg.get("shared_expert_intermediate_size")  # 0 or null: no shared expert
    if shared_ff is not None and as_int("shared_expert_intermediate_size", shared_ff, lo=0):
        return 1, int(shared_ff), True
    n_shared = cfg.get("n_shared_experts")
    if n_shared is not None and as_int("n_shared_experts", n_shared, lo=0):
        return int(n_shared), expert_ff, False
    return 0, 0, False


def moe_layers(cfg: dict[str, Any], n_layers: int) -> int:
    """How many of the ``n_layers`` layers are MoE (see the module docstring)."""
    layers = range(n_layers)
    if cfg.get("first_k_dense_replace") is not None or cfg.get("moe_layer_freq") is not None:
        k = as_int("first_k_dense_replace", _or(cfg, "first_k_dense_replace", 0), lo=0)
        f = as_int("moe_layer_freq", _or(cfg, "moe_layer_freq", 1))
        count = sum(1 for i in layers if i >= k and i % f == 0)
    elif cfg.get("decoder_sparse_step") is not None or cfg.get("mlp_only_layers"):
        s = as_int("decoder_sparse_step", _or(cfg, "decoder_sparse_step", 1))
        dense = set(_layer_list(cfg, "mlp_only_layers", n_layers))
        count = sum(1 for i in layers if (i + 1) % s == 0 and i not in dense)
    elif cfg.get("interleave_moe_layer_step") is not None:
        s = as_int("interleave_moe_layer_step", cfg["interleave_moe_layer_step"])
        count = sum(1 for i in layers if (i + 1) % s == 0)
    else:
        count = n_layers
    if count == 0:
        raise ConfigError("config.json declares experts but its layer pattern leaves no MoE layer")
    return count


def _or(cfg: dict[str, Any], key: str, default: int) -> Any:
    """``cfg[key]`` unless absent or null (then ``default``); 0 or false stays as written."""
    return default if cfg.get(key) is None else cfg[key]


def _layer_list(cfg: dict[str, Any], key: str, n_layers: int) -> tuple[int, ...]:
    """A list of layer indices (0 … n_layers − 1); absent or null is the empty list."""
    value = cfg.get(key)
    if value is None:
        return ()
    fix = f"write {key} as a list of layer indices from 0 to {n_layers - 1}, e.g. [0, 1], or []"
    return check_counts(
        key, value, 0, n_layers - 1, error=ConfigError, fix=fix, label=f"config.json field {key!r}"
    )


def read_mla(cfg: dict[str, Any]) -> MLA | None:
    """DeepSeek-style latent attention (``kv_lora_rank`` set), or None for ordinary attention."""
    if cfg.get("kv_lora_rank") is None:
        return None
    q_rank = cfg.get("q_lora_rank")
    return MLA(
        q_lora_rank=0 if q_rank is None else as_int("q_lora_rank", q_rank),
        kv_lora_rank=as_int("kv_lora_rank", cfg["kv_lora_rank"]),
        qk_nope_head_dim=as_int("qk_nope_head_dim", cfg.get("qk_nope_head_dim")),
        qk_rope_head_dim=as_int("qk_rope_head_dim", cfg.get("qk_rope_head_dim")),
        v_head_dim=as_int("v_head_dim", cfg.get("v_head_dim")),
    )
