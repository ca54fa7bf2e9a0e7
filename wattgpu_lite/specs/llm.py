"""The LLM architecture as a frozen dataclass (re-exported by catalog), built from a config.json."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from wattgpu_lite.errors import ConfigError
from wattgpu_lite.specs.hf_config import load_config, parse_fields
from wattgpu_lite.specs.params import Family, count_params, family

BYTES_FP16 = 2  # bytes per stored value (weights and KV cache in FP16/BF16)
POSITIVE_INTS = ("n_layers", "hidden_size", "intermediate_size", "n_heads", "n_kv_heads",
                 "head_dim", "vocab_size", "context_length")  # fmt: skip


def params_b_of(
    *, model_type: str, n_layers: int, hidden_size: int, intermediate_size: int, n_heads: int,
    n_kv_heads: int, head_dim: int, vocab_size: int, context_length: int, tie_embeddings: bool,
    mlp_type: str, fam: Family | None = None,
) -> float:  # fmt: skip
    """Parameters in billions from the architecture (see :mod:`wattgpu_lite.specs.params`)."""
    n = count_params(
        n_layers=n_layers, hidden_size=hidden_size, intermediate_size=intermediate_size,
        n_heads=n_heads, n_kv_heads=n_kv_heads, head_dim=head_dim, vocab_size=vocab_size,
        context_length=context_length, tie_embeddings=tie_embeddings, mlp_type=mlp_type,
        fam=fam or family(model_type),
    )  # fmt: skip
    return round(n / 1e9, 6)


@dataclass(frozen=True)
class LLM:
    """A dense decoder-only LLM: the architecture fields of its config.json and its size.

    ``params_b`` is computed from the architecture (billions; the physics uses it);
    ``params_nominal_b`` is the published figure (for the WattGPU models exactly WattGPU's
    ``total_b_params``, which the paper's features use).
    """

    name: str
    model_type: str
    n_layers: int
    hidden_size: int
    intermediate_size: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    vocab_size: int
    context_length: int
    tie_embeddings: bool
    mlp_type: str
    params_b: float
    params_nominal_b: float
    in_wattgpu: bool
    source: str

    def __post_init__(self) -> None:
        for f in POSITIVE_INTS:
            if int(getattr(self, f)) <= 0:
                raise ConfigError(f"LLM {self.name!r}: {f} must be > 0, got {getattr(self, f)!r}")
        if self.mlp_type not in ("gated", "plain"):
            raise ConfigError(f"LLM {self.name!r}: mlp_type must be 'gated' or 'plain'")
        if self.n_heads % self.n_kv_heads:
            raise ConfigError(f"LLM {self.name!r}: {self.n_heads} heads not a multiple of KV heads")
        if not (self.params_b > 0 and self.params_nominal_b > 0):
            raise ConfigError(f"LLM {self.name!r}: parameter counts must be > 0")

    def __repr__(self) -> str:
        return (
            f"LLM({self.name!r}, {self.model_type}, {self.params_b:.2f} B params, "
            f"{self.n_layers} layers, d={self.hidden_size}, heads {self.n_heads}/{self.n_kv_heads} KV)"
        )

    @property
    def kv_bytes_per_token(self) -> int:
        """KV-cache bytes per token: 2 (K and V) · n_layers · n_kv_heads · head_dim · 2 B (FP16)."""
        return 2 * self.n_layers * self.n_kv_heads * self.head_dim * BYTES_FP16

    @classmethod
    def from_hf_config(
        cls, path_or_dict: str | Path | dict[str, Any], name: str | None = None
    ) -> LLM:
        """An LLM from any Hugging Face config.json (a path or the parsed dict).

        Understands GPT-2/GPT-J/GPT-NeoX/Falcon/GLM key spellings, nested ``text_config``, explicit
        ``head_dim`` and a missing ``num_key_value_heads`` (= heads). Raises UnsupportedModelError
        for MoE, quantised and attention-free configs, ConfigError for a missing field.
        """
        cfg, where = load_config(path_or_dict)
        fields, fam = parse_fields(cfg)
        params_b = params_b_of(**fields, fam=fam)
        label = name or cfg.get("_name_or_path") or cfg.get("name_or_path") or "custom model"
        return cls(
            name=str(label), **fields, params_b=params_b, params_nominal_b=params_b,
            in_wattgpu=False, source=where,
        )  # fmt: skip

    @classmethod
    def from_record(cls, row: dict[str, Any]) -> LLM:
        """An LLM from a catalog row; ConfigError (with ``.field``) for an empty or mistyped cell."""
        for f in fields(cls):
            value = row.get(f.name)
            if value is None or value != value:
                raise _field_error(f.name, "is empty")
            if f.type == "bool" and not isinstance(value, bool):
                raise _field_error(f.name, f"must be True/False, got {value!r}")
        ints = {f.name: int(row[f.name]) for f in fields(cls) if f.type == "int"}
        return cls(**({f.name: row[f.name] for f in fields(cls)} | ints))


def _field_error(field: str, problem: str) -> ConfigError:
    err = ConfigError(f"LLM field {field!r} {problem}")
    err.field = field
    return err
