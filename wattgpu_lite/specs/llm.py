"""The LLM architecture as a frozen dataclass (re-exported by catalog), built from a config.json."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from wattgpu_lite.checks import check_count, check_number
from wattgpu_lite.errors import ConfigError
from wattgpu_lite.specs.llm_config import llm_fields
from wattgpu_lite.specs.params import Family, count_params, family, gathered_params

BYTES_FP16 = 2  # bytes per stored value (weights and KV cache in FP16/BF16)
# weight storage formats the physics knows (bits per weight are a field of their own)
WEIGHT_FORMATS = frozenset(
    "bf16 fp16 fp32 fp8 int8 int7 int6 int5 int4 int3 int2 mxfp4 nvfp4 nf4 fp4".split()
)
RECORD_MAX = 10**15  # largest count or size a catalog row may hold (params_b is in billions)
# fields that echo how a checkpoint id was resolved, not columns of llms.csv (see specs/aliases.py)
ECHO_FIELDS = ("architecture",)
POSITIVE_INTS = (
    "n_layers",
    "hidden_size",
    "intermediate_size",
    "n_heads",
    "n_kv_heads",
    "head_dim",
    "vocab_size",
    "context_length",
)


def params_b_of(*, model_type: str, fam: Family | None = None, **arch: Any) -> float:
    """Parameters in billions from the architecture fields (n_layers … mlp_type, the keywords of
    :func:`wattgpu_lite.specs.params.count_params`) of a model of the family ``model_type``."""
    return round(count_params(**arch, fam=fam or family(model_type)) / 1e9, 6)


@dataclass(frozen=True)
class LLM:
    """A decoder-only LLM: the architecture fields of its config.json, its size and its weights.

    ``params_b`` is the total parameter count computed from the architecture (billions; the
    physics uses it); ``params_nominal_b`` the published figure (for the WattGPU models exactly
    WattGPU's ``total_b_params``, which the paper's features use); ``params_active_b`` the
    parameters a token multiplies (``params_b`` less the gathered input tables, and for a MoE the
    routed experts it skips; see :mod:`wattgpu_lite.specs.params`).

    Mixture-of-experts (``n_experts`` > 0): each of the ``n_moe_layers`` MoE layers holds
    ``n_experts`` routed experts of ``params_expert_b`` parameters each, of which
    ``n_experts_active`` (top-k) serve a token, beside ``n_shared_experts`` always-on experts
    (counted in the dense part). ``weight_format`` / ``weight_bits``: how the weights are stored
    (bf16 = 16 bits; fp8 = 8; int4 with group scales and mxfp4 ≈ 4.25), the mean over every stored
    weight; ``weight_bits_always`` / ``weight_bits_expert`` the widths a decode step streams, the
    mean over the always-read weights (16-bit LM head, norms, and attention where kept) and the
    routed experts' (:func:`~wattgpu_lite.specs.count.streamed_bits`). ``mla_kv_width``: the
    cached elements per token and layer of multi-head latent attention (DeepSeek-V3); 0 otherwise.
    ``sliding_window`` / ``n_sliding_layers``: the window (tokens) and how many layers attend
    through it (:mod:`wattgpu_lite.specs.window`); 0 / 0 without sliding-window attention.
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
    params_active_b: float = 0.0  # 0 = dense: params_b − the gathered tables (__post_init__)
    n_experts: int = 0
    n_experts_active: int = 0
    n_shared_experts: int = 0
    n_moe_layers: int = 0
    params_expert_b: float = 0.0
    weight_format: str = "bf16"
    weight_bits: float = 16.0
    mla_kv_width: int = 0  # cached elements per token and layer of multi-head latent attention
    weight_bits_always: float = 0.0  # 0 = weight_bits (set in __post_init__)
    weight_bits_expert: float = 0.0  # 0 = weight_bits_always
    sliding_window: int = 0  # tokens a sliding-window layer attends to (0 = none)
    n_sliding_layers: int = 0
    architecture: str = ""  # the catalog row this checkpoint id resolved to ("" = itself)

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
        if self.params_active_b == 0:
            active_b = round(self.params_b - self.params_gathered_b, 6)
            object.__setattr__(self, "params_active_b", active_b)
        if self.weight_bits_always == 0:
            object.__setattr__(self, "weight_bits_always", self.weight_bits)
        if self.weight_bits_expert == 0:
            object.__setattr__(self, "weight_bits_expert", self.weight_bits_always)
        self._check_moe()
        self._check_window()
        if self.weight_format not in WEIGHT_FORMATS or not 1 <= self.weight_bits <= 32:
            raise ConfigError(
                f"LLM {self.name!r}: weight_format {self.weight_format!r} / weight_bits "
                f"{self.weight_bits!r}; expected one of {sorted(WEIGHT_FORMATS)} and 1-32 bits"
            )

    def _check_moe(self) -> None:
        """Expert fields all zero (dense) or all consistent (MoE)."""
        moe = (self.n_experts, self.n_experts_active, self.n_moe_layers, self.params_expert_b)
        if not any(moe):
            return
        top_k = 0 < self.n_experts_active <= self.n_experts
        if not (top_k and 0 < self.n_moe_layers <= self.n_layers and self.params_expert_b > 0):
            raise ConfigError(
                f"LLM {self.name!r}: inconsistent experts (n_experts {self.n_experts}, active "
                f"{self.n_experts_active}, MoE layers {self.n_moe_layers}, expert size "
                f"{self.params_expert_b} B); every expert field must be > 0, top-k <= experts"
            )
        if not 0 < self.params_active_b < self.params_b:
            raise ConfigError(f"LLM {self.name!r}: active parameters must be < total for MoE")

    def _check_window(self) -> None:
        """No sliding layers without a window, never more than n_layers, widths in 1-32 bits."""
        window, sliding = self.sliding_window, self.n_sliding_layers
        if not (0 <= sliding <= self.n_layers and window >= 0 and (window > 0) == (sliding > 0)):
            raise ConfigError(
                f"LLM {self.name!r}: sliding_window {self.sliding_window!r} with "
                f"n_sliding_layers {self.n_sliding_layers!r}; give both (window > 0 and 1 to "
                "n_layers layers) or neither (0 and 0)"
            )
        for f in ("weight_bits_always", "weight_bits_expert"):
            if not 1 <= getattr(self, f) <= 32:
                raise ConfigError(f"LLM {self.name!r}: {f} {getattr(self, f)!r} must be 1-32 bits")

    def __repr__(self) -> str:
        size = f"{self.params_b:.2f} B params, {self.n_layers} layers, d={self.hidden_size}"
        heads = f"heads {self.n_heads}/{self.n_kv_heads} KV"
        return f"LLM({self.name!r}, {self.model_type}, {size}, {heads})"

    @property
    def architecture_name(self) -> str:
        """The catalog architecture the numbers come from: ``architecture``, or ``name``."""
        return self.architecture or self.name

    @property
    def kv_width(self) -> int:
        """Cached K and V elements per token and layer: 2 · n_kv_heads · head_dim, or the latent
        width of multi-head latent attention."""
        return self.mla_kv_width or 2 * self.n_kv_heads * self.head_dim

    @property
    def kv_bytes_per_token(self) -> int:
        """KV-cache bytes per token: n_layers · kv_width · 2 B (the cache is kept in 16 bits)."""
        return self.n_layers * self.kv_width * BYTES_FP16

    @property
    def is_moe(self) -> bool:
        """A mixture-of-experts model (routed experts in some layers)."""
        return self.n_experts > 0

    @property
    def params_routed_b(self) -> float:
        """Parameters of the routed experts (billions): n_moe_layers · n_experts · expert size."""
        return self.n_moe_layers * self.n_experts * self.params_expert_b

    @property
    def params_gathered_b(self) -> float:
        """Parameters a token gathers one row of, billions: an untied input embedding and learned
        positions (:func:`~wattgpu_lite.specs.params.gathered_params`)."""
        vocab, d, tied, context = (
            self.vocab_size,
            self.hidden_size,
            self.tie_embeddings,
            self.context_length,
        )
        return gathered_params(vocab, d, tied, context, fam=family(self.model_type)) / 1e9

    @property
    def params_always_b(self) -> float:
        """Parameters streamed at every decode step whatever the routing (attention, LM head,
        dense MLPs, shared experts, norms, a tied embedding), billions:
        params_b − params_routed_b − params_gathered_b."""
        return self.params_b - self.params_routed_b - self.params_gathered_b

    @classmethod
    def from_hf_config(
        cls, path_or_dict: str | Path | dict[str, Any], name: str | None = None
    ) -> LLM:
        """An LLM from any Hugging Face config.json (a path or the parsed dict).

        Reads dense, mixture-of-experts (routed, shared, top-k, MoE layer pattern), DeepSeek MLA
        and quantised configs (fp8, mxfp4, awq, gptq, bitsandbytes, compressed-tensors, MLX):
        see :mod:`~wattgpu_lite.specs.llm_config`. Raises UnsupportedModelError for encoder,
        encoder-decoder and (hybrid) recurrent models, ConfigError for a missing or malformed field.
        """
        return cls(**llm_fields(path_or_dict, name))

    @classmethod
    def from_record(cls, row: dict[str, Any]) -> LLM:
        """An LLM from a catalog row; ConfigError (``.field``) for an empty or mistyped cell."""
        for f in fields(cls):
            if f.name in ECHO_FIELDS:
                continue
            value = row.get(f.name)
            if value is None or value != value:
                raise _field_error(f.name, "is empty")
            if f.type == "bool" and not isinstance(value, bool):
                raise _field_error(f.name, f"must be True/False, got {value!r}")
        numeric = [f for t in ("int", "float") for f in fields(cls) if f.type == t]  # ints first
        numbers = {
            f.name: _record_number(f.name, row[f.name], whole=f.type == "int") for f in numeric
        }
        given = {f.name: row[f.name] for f in fields(cls) if f.name not in ECHO_FIELDS}
        return cls(**(given | numbers))


def _record_number(field: str, value: Any, *, whole: bool) -> int | float:
    """A count or size of an LLM record, >= 0 (the kit's one strict conversion)."""
    check = check_count if whole else check_number
    fix = f"write {field} as a {'whole ' if whole else ''}number from 0 to {RECORD_MAX:.0e}"
    label = f"LLM field {field!r}"
    return check(field, value, 0, RECORD_MAX, error=ConfigError, label=label, fix=fix)


def _field_error(field: str, problem: str) -> ConfigError:
    err = ConfigError(f"LLM field {field!r} {problem}")
    err.field = field
    return err
