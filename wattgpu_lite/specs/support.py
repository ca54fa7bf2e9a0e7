"""Which Hugging Face configs the kit refuses, and why: MoE, quantised and attention-free models.

The kit's features and energy model assume a dense decoder whose every parameter is read and used
for every token, stored in 16 bits, with attention heads and a KV cache. A config that breaks one
of these assumptions raises :class:`UnsupportedModelError` with the reason.
"""

from __future__ import annotations

from typing import Any

from wattgpu_lite.errors import UnsupportedModelError

MOE_KEYS = (
    "num_local_experts", "num_experts", "n_routed_experts", "num_experts_per_tok",
    "experts_per_token", "n_shared_experts", "moe_layer_freq", "router_aux_loss_coef",
)  # fmt: skip
SSM_KEYS = ("state_size", "ssm_state_size", "mamba_num_heads", "hybrid_override_pattern", "d_state")


def _stated(cfg: dict[str, Any], key: str) -> bool:
    value = cfg.get(key)
    return value not in (None, 0, False, [], {})


def check_supported(cfg: dict[str, Any]) -> None:
    """Raise UnsupportedModelError for MoE, quantised or attention-free (SSM) configs."""
    moe = [k for k in cfg if (k in MOE_KEYS or k.startswith("moe_")) and _stated(cfg, k)]
    if moe:
        raise UnsupportedModelError(
            f"mixture-of-experts config (keys {', '.join(sorted(moe))}): only a few experts are "
            "active per token, but the kit's features and energy model assume every parameter is "
            "used for every token. Use a dense model."
        )
    if _stated(cfg, "quantization_config"):
        quant = cfg["quantization_config"]
        method = quant.get("quant_method", "unknown") if isinstance(quant, dict) else quant
        raise UnsupportedModelError(
            f"quantised config (quantization_config, method {method!r}): weights are not 16-bit, "
            "so bytes per parameter and kernel speed differ from the BF16/FP16 runs the kit models. "
            "Use the unquantised model's config.json."
        )
    ssm = [k for k in cfg if k in SSM_KEYS or k.startswith("mamba")]
    if ssm or "mamba" in str(cfg.get("model_type", "")) or "rwkv" in str(cfg.get("model_type")):
        raise UnsupportedModelError(
            f"state-space / attention-free model (model_type {cfg.get('model_type')!r}, keys "
            f"{', '.join(sorted(ssm)) or 'none'}): it has no attention heads or KV cache, which the "
            "kit's features and energy model need. Use a transformer decoder."
        )
