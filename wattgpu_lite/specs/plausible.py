"""How large a config.json's shape may be: ranges no published LLM leaves, with the reason.

A size inside the kit's hard limit (a whole number below 10⁷) can still be no model anyone
trains: ``head_dim`` 1, or a 10⁶-wide head, would be answered as thousands of J per token. Each
range below spans every published decoder LLM with a margin of about 4 to 8 times on each
side, so a typo, a unit slip or a tampered file is refused and a real config never is
(the fixtures of tests/fixtures/configs lie well inside):

=====================  ===============  ======================================================
field                  range            published extremes
=====================  ===============  ======================================================
n_layers               1 – 1,024        126 (Llama-3.1-405B)
hidden_size            64 – 131,072     128 (Pythia-14M) … 18,432 (PaLM-540B, Nemotron-4-340B)
n_heads                1 – 1,024        128 (Llama-3.1-405B, DeepSeek-V3)
head_dim, kv_channels  16 – 1,024       32 (Pythia-14M) … 256 (Gemma)
intermediate_size      64 – 1,048,576   512 (Pythia-14M) … 73,728 (PaLM-540B, Nemotron-4-340B)
vocab_size             16 – 4,194,304   256-byte vocabularies … 262,208 (Gemma 3)
=====================  ===============  ======================================================

The whole model must also hold at most :data:`PARAMS_MAX_B` billion parameters (the largest
published, Kimi K2 and Switch-C, hold about 1,000 to 1,600 B).
"""

from __future__ import annotations

HEAD = (
    16,
    1024,
    "no published LLM has heads narrower than 32 (Pythia-14M) or wider than 256 (Gemma)",
)
FFN = (64, 1_048_576, "published MLP widths run from 512 (Pythia-14M) to 73,728 (PaLM-540B)")
# field (as hf_config names it) -> (lowest, highest, why)
PLAUSIBLE: dict[str, tuple[int, int, str]] = {
    "n_layers": (1, 1024, "the deepest published LLM has 126 layers (Llama-3.1-405B)"),
    "hidden_size": (
        64,
        131_072,
        "published hidden sizes run from 128 (Pythia-14M) to 18,432 (PaLM-540B, Nemotron-4-340B)",
    ),
    "n_heads": (1, 1024, "the most attention heads published is 128 (Llama-3.1-405B, DeepSeek-V3)"),
    "head_dim": HEAD,
    "kv_channels": HEAD,
    "intermediate_size": FFN,
    "intermediate_size_mlp": FFN,
    "ffn_config.ffn_hidden_size": FFN,
    "vocab_size": (
        16,
        4_194_304,
        "published vocabularies run from 256 bytes to 262,208 tokens (Gemma 3)",
    ),
}
PARAMS_MAX_B = 100_000  # billions: ~60 times the largest published model (Switch-C, 1,571 B)


def plausible_range(field: str, lo: int, limit: int) -> tuple[int, int, str]:
    """(lowest, highest, why) a config.json's ``field`` may take: its :data:`PLAUSIBLE` range
    inside the caller's [lo, limit − 1], else [lo, limit − 1] with no reason."""
    if field not in PLAUSIBLE:
        return lo, limit - 1, ""
    low, high, why = PLAUSIBLE[field]
    return max(lo, low), min(limit - 1, high), why


def check_params_b(params_b: float, name: str) -> str | None:
    """The problem with a model of ``params_b`` billion parameters, or None if plausible."""
    if params_b <= PARAMS_MAX_B:
        return None
    return (
        f"{name}: the config describes {params_b:,.0f} B parameters, more than the "
        f"{PARAMS_MAX_B:,} B no model comes near (the largest published hold ~1,600 B); check "
        "its sizes (hidden_size, intermediate_size, head_dim, the expert counts and widths)"
    )
