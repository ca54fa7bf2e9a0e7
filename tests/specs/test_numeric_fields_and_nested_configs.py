"""Numbers are numbers, configs as the Hub has them.

Every numeric field of a config.json, a GPU spec and an argument goes through the one strict
conversion (:mod:`wattgpu_lite.checks`): a bool, a string, a list, NaN/inf, an integer too large
for a float (401 digits), zero or a negative where a positive is required is the kit's error class
with a message naming the field — never a TypeError, ZeroDivisionError or OverflowError. Nested
language-model sections are found, quantisation bits are read as written, and what a default
filled in is said.

Each probe asserts the error class and that the message names the field (and, where there is
one, the fix); never just that something raised.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from pathlib import Path

import pytest
from config_fixtures import config

import wattgpu_lite as wl
from wattgpu_lite import checks
from wattgpu_lite.errors import ConfigError, InvalidInputError, SpecError, WattGPUError
from wattgpu_lite.specs.llm import LLM

CONFIGS = Path(__file__).parents[1] / "fixtures" / "configs"
HUGE = 10**400  # a 401-digit integer: float() of it is an OverflowError
LLAMA_ID = "meta-llama/Llama-3.1-8B-Instruct"


LLAMA = config("meta-llama__Llama-3.1-8B")
DEEPSEEK = config("deepseek-ai__DeepSeek-V3")
QWEN_MOE = config("MaziyarPanahi__Qwen1.5-MoE-A2.7B-Wikihow")


def _refused(cfg: dict, error: type[WattGPUError] = ConfigError) -> str:
    """The message of the error ``LLM.from_hf_config(cfg)`` raises, of exactly class ``error``."""
    with pytest.raises(WattGPUError) as caught:
        LLM.from_hf_config(cfg)
    assert type(caught.value) is error, (type(caught.value).__name__, str(caught.value))
    return str(caught.value)


def _with(base: dict, **fields) -> dict:
    return {**copy.deepcopy(base), **fields}


# ---- 1. dense config fields: every bad kind of value, named -----------------------------------
BAD = {"bool": True, "text": "4096", "list": [4096], "nan": math.nan, "inf": math.inf,
       "huge": HUGE, "negative": -1, "fraction": 2.5}  # fmt: skip
DENSE_FIELDS = ["num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size",
                "vocab_size", "max_position_embeddings", "num_key_value_heads", "head_dim"]  # fmt: skip


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("field", DENSE_FIELDS)
def test_a_bad_dense_config_number_is_a_config_error_naming_it(field, kind):
    message = _refused(_with(LLAMA, **{field: BAD[kind]}))
    assert f"{field}" in message and "config.json field" in message, message
    assert "write " in message and "as a whole number" in message, message  # the fix


@pytest.mark.parametrize("field", [f for f in DENSE_FIELDS if f != "num_attention_heads"])
def test_zero_where_a_size_is_required_is_a_config_error_naming_it(field):
    message = _refused(_with(LLAMA, **{field: 0}))
    assert field in message and "got 0" in message, message


def test_a_huge_integer_says_how_many_digits():
    message = _refused(_with(LLAMA, hidden_size=HUGE))
    assert "'hidden_size'" in message and "401 digits" in message, message


# ---- 2. quantisation fields ---------------------------------------------------------------------
def _q(**q) -> dict:
    return _with(LLAMA, quantization_config=q)


QUANT_BAD = [
    ({"quant_method": "gptq", "bits": True, "group_size": 128}, "'bits'"),
    ({"quant_method": "gptq", "bits": "4", "group_size": 128}, "'bits'"),
    ({"quant_method": "gptq", "bits": 4.5, "group_size": 128}, "'bits'"),
    ({"quant_method": "gptq", "bits": 1, "group_size": 128}, "'bits'"),
    ({"quant_method": "gptq", "bits": 9, "group_size": 128}, "'bits'"),
    ({"quant_method": "gptq", "bits": math.nan, "group_size": 128}, "'bits'"),
    ({"quant_method": "gptq", "bits": HUGE, "group_size": 128}, "'bits'"),
    ({"quant_method": "gptq", "bits": [4], "group_size": 128}, "'bits'"),
    ({"quant_method": "gptq", "group_size": 128}, "lacks 'bits'"),
    ({"quant_method": "gptq", "bits": 4, "group_size": True}, "'group_size'"),
    ({"quant_method": "gptq", "bits": 4, "group_size": "128"}, "'group_size'"),
    ({"quant_method": "gptq", "bits": 4, "group_size": 0}, "'group_size'"),
    ({"quant_method": "gptq", "bits": 4, "group_size": -5}, "'group_size'"),
    ({"quant_method": "gptq", "bits": 4, "group_size": math.inf}, "'group_size'"),
    ({"quant_method": "gptq", "bits": 4, "group_size": HUGE}, "'group_size'"),
    ({"quant_method": "awq", "w_bit": "4", "q_group_size": 128}, "'w_bit'"),
    ({"quant_method": "awq", "bits": 4, "q_group_size": [128]}, "'q_group_size'"),
    ({"quant_method": "fp8", "weight_block_size": [128, 0]}, "'weight_block_size'"),
    ({"quant_method": "fp8", "weight_block_size": [0, 128]}, "'weight_block_size'"),
    ({"quant_method": "fp8", "weight_block_size": [128]}, "'weight_block_size' has 1 entries"),
    ({"quant_method": "fp8", "weight_block_size": [128, 128, 128]}, "'weight_block_size' has 3"),
    ({"quant_method": "fp8", "weight_block_size": "128"}, "'weight_block_size'"),
    ({"quant_method": "fp8", "weight_block_size": 128}, "'weight_block_size'"),
    ({"quant_method": "fp8", "weight_block_size": [128, True]}, "'weight_block_size'"),
    ({"quant_method": "fp8", "weight_block_size": [128, 2.5]}, "'weight_block_size'"),
    ({"quant_method": "fp8", "weight_block_size": [128, HUGE]}, "'weight_block_size'"),
    ({"quant_method": "fbgemm_fp8", "weight_block_size": [-128, 128]}, "'weight_block_size'"),
    ({"quant_method": "compressed-tensors", "config_groups": [1]}, "'config_groups'"),
    ({"quant_method": "compressed-tensors", "config_groups": "group_0"}, "'config_groups'"),
    ({"quant_method": "compressed-tensors", "config_groups": 5}, "'config_groups'"),
    ({"quant_method": "compressed-tensors",
      "config_groups": {"g": {"weights": {"num_bits": True}}}}, "'num_bits'"),
    ({"quant_method": "compressed-tensors",
      "config_groups": {"g": {"weights": {"num_bits": "8"}}}}, "'num_bits'"),
    ({"quant_method": "compressed-tensors",
      "config_groups": {"g": {"weights": {"num_bits": 16}}}}, "'num_bits'"),
    ({"quant_method": "compressed-tensors",
      "config_groups": {"g": {"weights": {"num_bits": 6, "type": "float"}}}}, "'num_bits' = 6"),
    ({"quant_method": "compressed-tensors",
      "config_groups": {"g": {"weights": {"num_bits": 4, "group_size": 0}}}}, "'group_size'"),
]  # fmt: skip


@pytest.mark.parametrize(("q", "fragment"), QUANT_BAD, ids=[str(i) for i in range(len(QUANT_BAD))])
def test_a_bad_quantisation_field_is_a_config_error_naming_it(q, fragment):
    message = _refused(_q(**q))
    assert fragment in message and "quantization_config" in message, message


@pytest.mark.parametrize(
    ("mlx", "field"),
    [({"bits": "4", "group_size": 64}, "'bits'"), ({"bits": 4, "group_size": 0}, "'group_size'"),
     ({"bits": 4, "group_size": HUGE}, "'group_size'"), ({"bits": 3.5}, "'bits'")],
)  # fmt: skip
def test_a_bad_mlx_quantisation_field_is_a_config_error_naming_it(mlx, field):
    message = _refused(_with(LLAMA, quantization=mlx))
    assert field in message and "(mlx)" in message, message


# ---- 3. mixture-of-experts and latent-attention fields ------------------------------------------
MOE_BAD = [
    (DEEPSEEK, "first_k_dense_replace", "abc"), (DEEPSEEK, "first_k_dense_replace", True),
    (DEEPSEEK, "first_k_dense_replace", -1), (DEEPSEEK, "first_k_dense_replace", 2.5),
    (DEEPSEEK, "first_k_dense_replace", HUGE), (DEEPSEEK, "moe_layer_freq", 0),
    (DEEPSEEK, "moe_layer_freq", "2"), (DEEPSEEK, "moe_layer_freq", math.nan),
    (DEEPSEEK, "n_routed_experts", True), (DEEPSEEK, "n_routed_experts", "256"),
    (DEEPSEEK, "n_routed_experts", 2.5), (DEEPSEEK, "n_routed_experts", HUGE),
    (DEEPSEEK, "n_routed_experts", -3), (DEEPSEEK, "num_experts_per_tok", 0),
    (DEEPSEEK, "num_experts_per_tok", True), (DEEPSEEK, "num_experts_per_tok", "8"),
    (DEEPSEEK, "num_experts_per_tok", HUGE), (DEEPSEEK, "moe_intermediate_size", 0),
    (DEEPSEEK, "moe_intermediate_size", "2048"), (DEEPSEEK, "n_shared_experts", "1"),
    (DEEPSEEK, "n_shared_experts", 2.5), (DEEPSEEK, "kv_lora_rank", "512"),
    (DEEPSEEK, "kv_lora_rank", 0), (DEEPSEEK, "kv_lora_rank", HUGE),
    (DEEPSEEK, "q_lora_rank", math.inf), (DEEPSEEK, "qk_rope_head_dim", [64]),
    (QWEN_MOE, "mlp_only_layers", 5), (QWEN_MOE, "mlp_only_layers", "0,1"),
    (QWEN_MOE, "mlp_only_layers", [0.5]), (QWEN_MOE, "mlp_only_layers", [-1]),
    (QWEN_MOE, "mlp_only_layers", [100]), (QWEN_MOE, "mlp_only_layers", [True]),
    (QWEN_MOE, "mlp_only_layers", [HUGE]), (QWEN_MOE, "decoder_sparse_step", 0),
    (QWEN_MOE, "decoder_sparse_step", "1"), (QWEN_MOE, "num_experts", [60]),
    (QWEN_MOE, "shared_expert_intermediate_size", "5632"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("base", "field", "value"), MOE_BAD, ids=[f"{f}={v!r:.12}" for _, f, v in MOE_BAD]
)
def test_a_bad_moe_or_mla_field_is_a_config_error_naming_it(base, field, value):
    message = _refused(_with(base, **{field: value}))
    assert f"'{field}'" in message and "config.json" in message, message


def test_a_bad_moe_layer_field_names_the_field_and_the_fix():
    assert "write first_k_dense_replace as a whole number" in _refused(
        _with(DEEPSEEK, first_k_dense_replace="abc")
    )
    assert "list of layer indices from 0 to 23" in _refused(_with(QWEN_MOE, mlp_only_layers=5))


def test_a_zero_expert_count_is_a_dense_model_not_an_error():
    dense = LLM.from_hf_config(_with(QWEN_MOE, num_experts=0))
    assert not dense.is_moe and dense.n_experts == 0


# ---- 4. GPU spec fields ----------------------------------------------------------------------
L4 = {f.name: getattr(wl.gpu("L4"), f.name) for f in dataclasses.fields(wl.gpu("L4"))}
GPU_BAD = {"bool": True, "text": "700", "list": [700], "inf": math.inf, "huge": HUGE, "zero": 0,
           "negative": -1}  # fmt: skip
GPU_FIELDS = ["tdp_w", "memory_gb", "bandwidth_gbs", "fp16_tflops", "release_year", "sm_count",
              "idle_power_w"]  # fmt: skip


@pytest.mark.parametrize("kind", sorted(GPU_BAD))
@pytest.mark.parametrize("field", GPU_FIELDS)
def test_a_bad_gpu_spec_number_is_a_spec_error_naming_it(field, kind):
    with pytest.raises(WattGPUError) as caught:
        wl.GPU.from_spec({**L4, field: GPU_BAD[kind]})
    assert type(caught.value) is SpecError, caught.value
    assert f"GPU spec field {field!r}" in str(caught.value) and "fix " in str(caught.value)


def test_a_huge_integer_in_a_gpu_spec_is_not_an_overflow_error():
    with pytest.raises(SpecError, match=r"'tdp_w'.*401 digits"):
        wl.GPU.from_spec({**L4, "tdp_w": HUGE})


# ---- 5. arguments --------------------------------------------------------------------------
ARG_BAD = {"huge": HUGE, "nan": math.nan, "bool": True, "text": "5", "zero": 0, "negative": -5,
           "fraction": 2.5, "list": [5]}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(ARG_BAD))
@pytest.mark.parametrize("field", ["t_in", "t_out", "batch"])
def test_a_bad_token_or_batch_argument_is_an_invalid_input_error_naming_it(field, kind):
    args = {"t_in": 500, "t_out": 100, "batch": 1, field: ARG_BAD[kind]}
    with pytest.raises(WattGPUError) as caught:
        wl.estimate_energy(LLAMA_ID, gpu="L4", **args)
    assert type(caught.value) is InvalidInputError, caught.value
    message = str(caught.value)
    assert message.startswith((f"{field} must be ", f"{field} is too large")), message
    assert f"pass {field} as a whole number" in message and len(message) < 200, message
    assert f"e.g. {field}={8 if field == 'batch' else 500}" in message, message


@pytest.mark.parametrize(
    ("check", "field"),
    [(checks.check_rate_qps, "rate_qps"), (checks.check_level, "level"),
     (checks.check_batch, "batch"), (checks.check_itl_sla_ms, "itl_sla_ms")],
)  # fmt: skip
@pytest.mark.parametrize("value", [HUGE, -HUGE], ids=["huge", "minus_huge"])
def test_the_argument_checks_refuse_a_huge_integer_naming_the_field(check, field, value):
    with pytest.raises(InvalidInputError, match=rf"^{field} is too large to be a number"):
        check(value)


def test_check_tokens_refuses_a_huge_t_in_naming_it():
    with pytest.raises(InvalidInputError, match=r"^t_in is too large .*401 digits.*pass t_in"):
        checks.check_tokens(HUGE, 10)


@pytest.mark.parametrize(
    ("value", "fragment"),
    [(5, "must be a list"), ([0, "1"], "must be a number"), ([0, -1], "must be from 0"),
     ([HUGE], "is too large")],
)  # fmt: skip
def test_check_counts_names_the_field(value, fragment):
    with pytest.raises(InvalidInputError, match=rf"^layers {fragment}"):
        checks.check_counts("layers", value, 0, 9)


@pytest.mark.parametrize(
    ("field", "value"),
    [("params_b", HUGE), ("params_b", "8"), ("n_layers", 2.5), ("n_layers", HUGE),
     ("weight_bits", math.inf), ("context_length", -1)],
)  # fmt: skip
def test_a_bad_llm_record_number_is_a_config_error_naming_it(field, value):
    record = dataclasses.asdict(wl.llm(LLAMA_ID)) | {field: value}
    record.pop("architecture", None)
    with pytest.raises(ConfigError, match=rf"LLM field '{field}'"):
        LLM.from_record(record)


# ---- 6. configs as the Hub has them -----------------------------------------------------------
PLAIN = LLM.from_hf_config(LLAMA)


@pytest.mark.parametrize("section", ["text_config", "llm_config", "language_config"])
def test_a_nested_language_model_section_is_found(section):
    wrapped = {"model_type": "wrapper", "architectures": ["WrapperForConditionalGeneration"],
               section: copy.deepcopy(LLAMA)}  # fmt: skip
    model = LLM.from_hf_config(wrapped)
    assert (model.params_b, model.n_layers, model.context_length) == (
        PLAIN.params_b, PLAIN.n_layers, PLAIN.context_length)  # fmt: skip


def test_qwen_omni_s_thinker_config_text_config_is_followed_down():
    omni = {"model_type": "qwen2_5_omni",
            "thinker_config": {"model_type": "qwen2_5_omni_thinker",
                               "text_config": copy.deepcopy(LLAMA)}}  # fmt: skip
    assert LLM.from_hf_config(omni).params_b == PLAIN.params_b


@pytest.mark.parametrize("section", ["llm_config", "language_config", "thinker_config"])
def test_a_nested_section_that_is_not_an_object_is_named(section):
    message = _refused({"model_type": "wrapper", section: [1, 2]})
    assert f"config.json '{section}' must be an object" in message, message


@pytest.mark.parametrize("bits", [2, 3, 4, 8])  # the widths GPTQConfig accepts; 5-7 refused
def test_gptq_bits_are_read_as_written(bits):
    model = LLM.from_hf_config(_q(quant_method="gptq", bits=bits, group_size=128))
    assert model.weight_format == f"int{bits}"
    quantised = 6_979_321_856  # attention + MLP of Llama-3.1-8B (see test_mutation_oracles)
    expected = quantised * (bits + (16 + bits) / 128) + (8_030_261_248 - quantised) * 16
    assert model.weight_bits == pytest.approx(expected / 8_030_261_248, abs=1e-4)


@pytest.mark.parametrize("weights", ["int5", "int6", "int7"])
def test_the_new_int_formats_are_served_with_their_group_scales(weights):
    bits = int(weights[3:])
    result = wl.estimate_energy(LLAMA_ID, gpu="L4", weights=weights)
    assert math.isfinite(result.total_j) and result.total_j > 0
    from wattgpu_lite.energy.precision import format_bits

    assert format_bits(weights) == bits + (16 + bits) / 128


def test_awq_without_bits_or_group_size_takes_transformers_defaults_and_says_so():
    model = LLM.from_hf_config(_q(quant_method="awq"))
    assert model.weight_format == "int4" and "AwqConfig default" in model.source
    assert "no group_size: 128" in model.source


def test_falcon_s_missing_context_is_transformers_default_said_in_the_source():
    falcon = config("BramVanroy__falcon-40b-ft-alpaca-dolly-dutch")
    model = LLM.from_hf_config(falcon)
    assert model.context_length == 2048 and "FalconConfig max_position_embeddings=2048" in (
        model.source
    )


def test_a_declared_context_gets_no_note():
    assert PLAIN.source == "config dict"
