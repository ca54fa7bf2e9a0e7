"""Nothing silently wrong: each bad input is refused with
the kit's error class and a message naming the field (and the value, and what to pass instead),
or answered correctly. Valid inputs next to each bad one are answered as before.

Classes: a config.json's shape (implausible sizes, two spellings that disagree, names of the
wrong type or case, encoder classes), quantisation configs (case, exclusive flags, strings for
lists), Falcon-7B's RefinedWebModel config, GPU spec sheets (peak order, memory type, direction,
architecture spelling), bare numbers of ``estimate_energy``, ``expert_parallel``, duplicate JSON
keys, and ``predict_many``'s column names. Deterministic: no random draws.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pandas as pd
import pytest
from config_fixtures import config, refused

import wattgpu_lite as wl
from wattgpu_lite.errors import (
    ConfigError,
    DataFileError,
    InvalidInputError,
    SpecError,
    UnsupportedModelError,
)
from wattgpu_lite.jsonfiles import DuplicateKeyError, parse_json, unique_keys
from wattgpu_lite.specs.gpu_fields import ARCHITECTURES, MEMORY_TYPES
from wattgpu_lite.specs.plausible import PARAMS_MAX_B, PLAUSIBLE, plausible_range
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm

FIXTURES = Path(__file__).parents[1] / "fixtures"
CONFIGS = FIXTURES / "configs"
LLAMA_ID = "meta-llama/Llama-3.1-8B-Instruct"


LLAMA = config("meta-llama__Llama-3.1-8B")
QWEN3 = config("Qwen__Qwen3-8B")
MIXTRAL = config("mistralai__Mixtral-8x7B-v0.1")
DEEPSEEK = config("deepseek-ai__DeepSeek-V3")
GPT_OSS = config("openai__gpt-oss-120b")
AWQ = config("LDCC__Qwen2.5-72B-Instruct-ko-AWQ")
SPEC = json.loads((FIXTURES / "gpu_rtx5090_spec.json").read_text())
FALCON = json.loads((FIXTURES / "falcon.json").read_text())


def _with(cfg: dict, **change) -> dict:
    out = copy.deepcopy(cfg)
    out.update(change)
    return out


def _refused(error: type, words: list[str], call) -> str:
    """The message of ``call``'s ``error`` (config_fixtures.refused)."""
    return refused(error, words, call)


# --- config.json: sizes outside what any published LLM has --------------------------------
IMPLAUSIBLE = [
    ("head_dim", 1), ("head_dim", 8), ("head_dim", 15), ("head_dim", 1025), ("head_dim", 10**6),
    ("kv_channels", 1), ("kv_channels", 4096),
    ("hidden_size", 9_999_999), ("hidden_size", 131_073), ("hidden_size", 63),
    ("hidden_size", 16),
    ("intermediate_size", 10), ("intermediate_size", 2_000_000),
    ("num_hidden_layers", 1025), ("num_hidden_layers", 5000),
    ("num_attention_heads", 2048),
    ("vocab_size", 8), ("vocab_size", 9_000_000),
]  # fmt: skip


@pytest.mark.parametrize(("key", "value"), IMPLAUSIBLE)
def test_an_implausible_shape_is_refused_with_its_range_and_why(key, value):
    cfg = _with(LLAMA, **{key: value})
    if key == "hidden_size":  # keep the heads dividing it, so the range is what refuses it
        cfg["head_dim"] = 128
    field = {"num_hidden_layers": "n_layers", "num_attention_heads": "n_heads"}.get(key, key)
    lo, hi, why = PLAUSIBLE[field]
    message = _refused(ConfigError, [repr(field), str(value), f"{hi:,}"],
                       lambda: wl.LLM.from_hf_config(cfg))  # fmt: skip
    assert why in message


@pytest.mark.parametrize(
    ("key", "value"),
    [("head_dim", 16), ("head_dim", 1024), ("head_dim", 256), ("hidden_size", 64),
     ("num_hidden_layers", 1), ("num_hidden_layers", 1024), ("vocab_size", 16)],
)  # fmt: skip
def test_the_ends_of_each_plausible_range_are_accepted(key, value):
    cfg = _with(LLAMA, **{key: value})
    if key == "hidden_size":
        cfg |= {"num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 16}
    model = wl.LLM.from_hf_config(cfg)
    assert model.params_b > 0


def test_a_model_beyond_the_parameter_ceiling_is_refused():
    cfg = _with(DEEPSEEK, moe_intermediate_size=1_000_000)
    _refused(ConfigError, ["B parameters", f"{PARAMS_MAX_B:,}"], lambda: wl.LLM.from_hf_config(cfg))


def test_plausible_range_keeps_the_callers_limits():
    assert plausible_range("head_dim", 1, 10**7) == (16, 1024, PLAUSIBLE["head_dim"][2])
    assert plausible_range("sliding_window", 0, 10**7) == (0, 10**7 - 1, "")


def test_every_fixture_config_lies_inside_the_plausible_ranges():
    read = 0
    for path in sorted(CONFIGS.glob("*.json")):
        try:
            wl.LLM.from_hf_config(path)
        except UnsupportedModelError:
            continue
        except ConfigError as err:  # the fixtures refused on purpose say so, never by a range
            assert "must be from" not in str(err), (path.name, err)
            continue
        read += 1
    assert read >= 40


# --- config.json: two spellings of one field -----------------------------------------------
DISAGREE = [
    (LLAMA, {"n_layer": 12}, "n_layers", "'num_hidden_layers' = 32", "'n_layer' = 12"),
    (LLAMA, {"num_layers": 16}, "n_layers", "'num_hidden_layers' = 32", "'num_layers' = 16"),
    (LLAMA, {"n_embd": 2048}, "hidden_size", "'hidden_size' = 4096", "'n_embd' = 2048"),
    (LLAMA, {"d_model": 8192}, "hidden_size", "'hidden_size' = 4096", "'d_model' = 8192"),
    (LLAMA, {"n_head": 16}, "n_heads", "'num_attention_heads' = 32", "'n_head' = 16"),
    (LLAMA, {"ffn_dim": 1000}, "intermediate_size", "'intermediate_size' = 14336", "'ffn_dim' = 1000"),
    (LLAMA, {"n_vocab": 50000}, "vocab_size", "'vocab_size' = 128256", "'n_vocab' = 50000"),
    (LLAMA, {"num_kv_heads": 4}, "n_kv_heads", "'num_key_value_heads' = 8", "'num_kv_heads' = 4"),
    (LLAMA, {"n_head_kv": 1}, "n_kv_heads", "'num_key_value_heads' = 8", "'n_head_kv' = 1"),
    (QWEN3, {"kv_channels": 64}, "head_dim", "'head_dim' = 128", "'kv_channels' = 64"),
    (MIXTRAL, {"num_experts": 16}, "num_local_experts", "'num_local_experts' = 8", "'num_experts' = 16"),
    (MIXTRAL, {"moe_top_k": 1}, "num_experts_per_tok", "'num_experts_per_tok' = 2", "'moe_top_k' = 1"),
    (LLAMA, {"n_layer": True}, "n_layers", "'num_hidden_layers' = 32", "'n_layer' = True"),
]  # fmt: skip


@pytest.mark.parametrize(("base", "extra", "field", "first", "second"), DISAGREE)
def test_two_spellings_that_disagree_are_refused_naming_both(base, extra, field, first, second):
    cfg = _with(base, **extra)
    _refused(ConfigError, [repr(field), first, second], lambda: wl.LLM.from_hf_config(cfg))


@pytest.mark.parametrize(
    "extra",
    [{"n_layer": 32}, {"n_layer": 32.0}, {"n_embd": 4096}, {"n_head": 32}, {"num_kv_heads": 8},
     {"n_vocab": 128256}, {"d_model": None}, {"padded_vocab_size": 128512},
     {"n_positions": 4096}, {"seq_length": 8192}],
)  # fmt: skip
def test_spellings_that_agree_or_mean_something_else_read_as_before(extra):
    assert wl.LLM.from_hf_config(_with(LLAMA, **extra)) == wl.LLM.from_hf_config(LLAMA)


# --- config.json: names of the wrong type or case ------------------------------------------
@pytest.mark.parametrize(
    ("change", "field"),
    [({"model_type": 5}, "'model_type'"), ({"model_type": 3.5}, "'model_type'"),
     ({"model_type": True}, "'model_type'"), ({"model_type": ["llama"]}, "'model_type'"),
     ({"model_type": {"a": 1}}, "'model_type'"),
     ({"architectures": "LlamaForCausalLM"}, "'architectures'"),
     ({"architectures": [5]}, "'architectures'"), ({"architectures": 5}, "'architectures'"),
     ({"architectures": [None]}, "'architectures'"),
     ({"_name_or_path": 5}, "'_name_or_path'"), ({"_name_or_path": ["x"]}, "'_name_or_path'"),
     ({"_name_or_path": True}, "'_name_or_path'"),
     ({"model_type": "LLAMA"}, "'llama'"), ({"model_type": "Qwen3"}, "'qwen3'"),
     ({"model_type": "GEMMA2"}, "'gemma2'"), ({"model_type": "Falcon"}, "'falcon'"),
     ({"model_type": "GPT2"}, "'gpt2'")],
)  # fmt: skip
def test_a_name_of_the_wrong_type_or_case_is_refused(change, field):
    cfg = _with(LLAMA, **change)
    _refused(ConfigError, [field], lambda: wl.LLM.from_hf_config(cfg))


def test_a_model_type_in_another_case_names_the_spelling_meant():
    message = _refused(ConfigError, ["'GEMMA2'", "'gemma2'"],
                       lambda: wl.LLM.from_hf_config(_with(LLAMA, model_type="GEMMA2")))  # fmt: skip
    assert 'write "model_type": "gemma2"' in message


# --- config.json: encoder and encoder-decoder classes --------------------------------------
@pytest.mark.parametrize(
    ("model_type", "archs", "kind"),
    [("llama", ["BertForMaskedLM"], "encoder-only"), ("llama", ["BertModel"], "encoder-only"),
     ("llama", ["BertLMHeadModel"], "encoder-only"), ("llama", ["RobertaForCausalLM"], "encoder-only"),
     (None, ["XLMRobertaModel"], "encoder-only"), ("llama", ["DebertaV2ForMaskedLM"], "encoder-only"),
     ("llama", ["ModernBertModel"], "encoder-only"), ("llama", ["DistilBertModel"], "encoder-only"),
     ("llama", ["LlamaForCausalLM", "BertModel"], "encoder-only"),
     ("BERT", ["LlamaForCausalLM"], "encoder-only"), ("Roberta", None, "encoder-only"),
     ("llama", ["T5ForConditionalGeneration"], "encoder-decoder"),
     ("llama", ["BartForConditionalGeneration"], "encoder-decoder"),
     ("llama", ["MarianMTModel"], "encoder-decoder"), ("T5", None, "encoder-decoder"),
     ("MAMBA", None, "recurrent"), ("Jamba", None, "hybrid recurrent")],
)  # fmt: skip
def test_a_config_naming_an_encoder_class_is_refused_and_says_why(model_type, archs, kind):
    cfg = _with(LLAMA, model_type=model_type, architectures=archs)
    message = _refused(UnsupportedModelError, [kind, "decoder"], lambda: wl.LLM.from_hf_config(cfg))
    assert any(a in message for a in [*(archs or []), model_type] if a)


@pytest.mark.parametrize(
    "arch", ["LlamaForCausalLM", "Ernie4_5ForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM"]
)
def test_decoder_classes_are_still_read(arch):
    assert wl.LLM.from_hf_config(_with(LLAMA, architectures=[arch])).n_layers == 32


# --- quantization_config -------------------------------------------------------------------
def _q(**fields) -> dict:
    return _with(LLAMA, quantization_config=fields)


def _bits(cfg: dict) -> float:
    return wl.LLM.from_hf_config(cfg).weight_bits


@pytest.mark.parametrize(
    ("upper", "lower"),
    [({"quant_method": "FP8"}, {"quant_method": "fp8"}),
     ({"quant_method": "Fp8"}, {"quant_method": "fp8"}),
     ({"quant_method": " fp8 "}, {"quant_method": "fp8"}),
     ({"quant_method": "AWQ", "bits": 4, "group_size": 128}, {"quant_method": "awq", "bits": 4, "group_size": 128}),
     ({"quant_method": "GPTQ", "bits": 4, "group_size": 128}, {"quant_method": "gptq", "bits": 4, "group_size": 128}),
     ({"quant_method": "BitsAndBytes", "load_in_4bit": True}, {"quant_method": "bitsandbytes", "load_in_4bit": True}),
     ({"quant_method": "MXFP4"}, {"quant_method": "mxfp4"}),
     ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "NF4"},
      {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"})],
)  # fmt: skip
def test_quant_method_and_4bit_type_are_read_case_insensitively(upper, lower):
    a, b = wl.LLM.from_hf_config(_q(**upper)), wl.LLM.from_hf_config(_q(**lower))
    assert (a.weight_format, a.weight_bits) == (b.weight_format, b.weight_bits)


@pytest.mark.parametrize(
    ("fields", "words"),
    [({"quant_method": "bitsandbytes", "load_in_4bit": True, "load_in_8bit": True},
      ["load_in_4bit", "load_in_8bit", "both"]),
     ({"load_in_4bit": True, "load_in_8bit": True}, ["load_in_4bit", "load_in_8bit"]),
     ({"quant_method": "bitsandbytes", "_load_in_4bit": True, "load_in_8bit": True}, ["both"]),
     ({"quant_method": "bitsandbytes", "load_in_4bit": "true"}, ["'load_in_4bit'", "'true'"]),
     ({"quant_method": "bitsandbytes", "load_in_8bit": 1}, ["'load_in_8bit'", "boolean"]),
     ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_use_double_quant": "yes"},
      ["'bnb_4bit_use_double_quant'", "'yes'"]),
     ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf5"},
      ["'bnb_4bit_quant_type'", "'nf5'", "'nf4'"]),
     ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": 4},
      ["'bnb_4bit_quant_type'", "4"]),
     ({"quant_method": 8}, ["'quant_method'", "8", "text"]),
     ({"quant_method": ["fp8"]}, ["'quant_method'"]),
     ({"quant_method": "fp9"}, ["'fp9'", "'fp8'"]),
     ({"quant_method": "awq", "bits": 4, "modules_to_not_convert": 5}, ["'modules_to_not_convert'", "5"]),
     ({"quant_method": "awq", "bits": 4, "modules_to_not_convert": [1, 2]}, ["'modules_to_not_convert'"]),
     ({"quant_method": "awq", "bits": 4, "modules_to_not_convert": {"lm_head": True}},
      ["'modules_to_not_convert'"]),
     ({"quant_method": "fp8", "ignored_layers": 3}, ["'ignored_layers'"]),
     ({"quant_method": "mxfp4", "modules_to_not_convert": True}, ["'modules_to_not_convert'"]),
     ({"quant_method": "bitsandbytes", "load_in_8bit": True, "llm_int8_skip_modules": 0},
      ["'llm_int8_skip_modules'"]),
     ({"quant_method": "modelopt", "quant_algo": "FP8", "exclude_modules": 7}, ["'exclude_modules'"]),
     ({"quant_method": "awq", "bits": 4, "group_size": 2.5}, ["'group_size'", "2.5", "whole"]),
     ({"quant_method": "gptq", "bits": 4, "group_size": 0}, ["'group_size'"]),
     ({"quant_method": "gptq", "bits": 4, "group_size": True}, ["'group_size'"]),
     ({"quant_method": "gptq", "bits": 4, "group_size": "128"}, ["'group_size'", "'128'"])],
)  # fmt: skip
def test_a_bad_quantization_config_is_refused_naming_the_field(fields, words):
    _refused(ConfigError, words, lambda: wl.LLM.from_hf_config(_q(**fields)))


@pytest.mark.parametrize(
    ("method", "key"),
    [("awq", "modules_to_not_convert"), ("gptq", "modules_to_not_convert"),
     ("fp8", "ignored_layers"), ("fp8", "modules_to_not_convert"), ("mxfp4", "modules_to_not_convert")],
)  # fmt: skip
def test_a_single_module_name_is_a_one_element_list(method, key):
    q = {"quant_method": method, "bits": 4, "group_size": 128}
    module = "model.layers.0"
    one, listed = _q(**q, **{key: module}), _q(**q, **{key: [module]})
    assert _bits(one) == _bits(listed) > _bits(_q(**q))  # the layer stays in 16 bits


def test_mlx_quantisation_needs_whole_group_sizes():
    for bad in (2.5, -1, None, "64"):
        cfg = _with(LLAMA, quantization={"bits": 4, "group_size": bad})
        _refused(ConfigError, ["'group_size'"], lambda cfg=cfg: wl.LLM.from_hf_config(cfg))
    assert _bits(_with(LLAMA, quantization={"bits": 4, "group_size": 64.0})) == _bits(
        _with(LLAMA, quantization={"bits": 4, "group_size": 64})
    )


def test_compressed_tensors_symmetric_must_be_a_boolean():
    q = {"quant_method": "compressed-tensors", "format": "pack-quantized",
         "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int",
                                                    "group_size": 128, "symmetric": "false"}}}}  # fmt: skip
    _refused(ConfigError, ["'symmetric'", "'false'"], lambda: wl.LLM.from_hf_config(_q(**q)))


def test_bnb_flags_written_as_false_or_null_are_off():
    base = {"quant_method": "bitsandbytes", "load_in_4bit": True}
    assert _bits(_q(**base, load_in_8bit=False)) == _bits(_q(**base, load_in_8bit=None))
    assert _bits(_q(**base, load_in_8bit=False)) == _bits(_q(**base))


# --- config.json: fields read as the Hub writes them ---------------------------------------
def test_falcon_7b_refinedwebmodel_takes_transformers_default_context():
    rw = {k: v for k, v in FALCON.items() if k != "max_position_embeddings"}
    rw |= {"model_type": "RefinedWebModel", "architectures": ["RWForCausalLM"]}
    model = wl.LLM.from_hf_config(rw)
    assert model.context_length == 2048
    assert "FalconConfig default max_position_embeddings=2048" in model.source
    modern = wl.LLM.from_hf_config(FALCON)
    assert model.params_b == modern.params_b == pytest.approx(6.921721)  # Falcon-7B: 6.92 B
    assert model.n_kv_heads == 1


@pytest.mark.parametrize(
    ("base", "change", "field"),
    [(GPT_OSS, {"layer_types": "sliding_attention"}, "'layer_types'"),
     (GPT_OSS, {"layer_types": 5}, "'layer_types'"),
     (GPT_OSS, {"layer_types": [None] * 36}, "'layer_types'"),
     (GPT_OSS, {"layer_types": [1.5] * 36}, "'layer_types'"),
     (QWEN3, {"use_sliding_window": "false", "sliding_window": 4096}, "'use_sliding_window'"),
     (QWEN3, {"use_sliding_window": 1, "sliding_window": 4096}, "'use_sliding_window'"),
     (DEEPSEEK, {"n_shared_experts": False}, "'n_shared_experts'"),
     (DEEPSEEK, {"n_shared_experts": ""}, "'n_shared_experts'"),
     (DEEPSEEK, {"n_shared_experts": 1.5}, "'n_shared_experts'"),
     (config("MaziyarPanahi__Qwen1.5-MoE-A2.7B-Wikihow"), {"shared_expert_intermediate_size": False},
      "'shared_expert_intermediate_size'")],
)  # fmt: skip
def test_a_list_or_flag_of_the_wrong_type_is_refused(base, change, field):
    cfg = _with(base, **change)
    _refused(ConfigError, [field], lambda: wl.LLM.from_hf_config(cfg))


def test_zero_shared_experts_is_none_as_before():
    none = wl.LLM.from_hf_config(_with(DEEPSEEK, n_shared_experts=0))
    assert none.n_shared_experts == 0
    assert none == wl.LLM.from_hf_config(_with(DEEPSEEK, n_shared_experts=None))


# --- JSON files: a key written twice -------------------------------------------------------
def _dup(text: str, key: str, value: str) -> str:
    head, sep, tail = text.partition(f'"{key}":')
    assert sep, key
    return f'{head}"{key}": {value}, {sep}{tail}'


@pytest.mark.parametrize(
    ("key", "other"),
    [("tdp_w", "450"), ("name", '"RTX 5090"'), ("memory_gb", "32"), ("fp16_tflops", "100")],
)
def test_a_gpu_spec_file_with_a_key_twice_is_refused(tmp_path, key, other):
    path = tmp_path / "spec.json"
    path.write_text(_dup((FIXTURES / "gpu_rtx5090_spec.json").read_text(), key, other))
    _refused(SpecError, [repr(key), "twice", "spec.json"], lambda: resolve_gpu(path))


@pytest.mark.parametrize(
    ("key", "other"),
    [("num_hidden_layers", "16"), ("hidden_size", "4096"), ("model_type", '"llama"'),
     ("vocab_size", "32000")],
)  # fmt: skip
def test_a_config_json_with_a_key_twice_is_refused_both_ways(tmp_path, key, other):
    path = tmp_path / "config.json"
    path.write_text(_dup(json.dumps(LLAMA, indent=1), key, other))
    _refused(ConfigError, [repr(key), "twice"], lambda: wl.LLM.from_hf_config(path))
    _refused(ConfigError, [repr(key), "twice"], lambda: resolve_llm(path))


def test_a_key_twice_in_a_nested_object_is_refused(tmp_path):
    cfg = _with(LLAMA, quantization_config={"quant_method": "fp8"})
    text = json.dumps(cfg).replace(
        '"quant_method": "fp8"', '"quant_method": "fp8", "quant_method": "awq"'
    )
    path = tmp_path / "config.json"
    path.write_text(text)
    _refused(ConfigError, ["'quant_method'", "'fp8'", "'awq'"], lambda: wl.LLM.from_hf_config(path))


def test_unique_keys_and_parse_json():
    assert unique_keys([("a", 1), ("b", 2)]) == {"a": 1, "b": 2}
    with pytest.raises(DuplicateKeyError, match="'a' appears twice"):
        unique_keys([("a", 1), ("a", 1)])
    with pytest.raises(DataFileError, match="'x' appears twice"):
        parse_json(b'{"x": 1, "x": 2}', "f.json")
    assert parse_json(b'{"x": {"y": 1}, "y": 2}', "f.json") == {"x": {"y": 1}, "y": 2}


# --- GPU spec sheets -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "field", "words"),
    [({"fp8_tflops": 100}, "fp8_tflops", ["100", "fp16_tflops 209.5"]),
     ({"fp8_tflops": 209.4}, "fp8_tflops", ["209.4"]),
     ({"fp8_tflops": 1}, "fp8_tflops", ["FP8"]),
     ({"fp8_tflops": 419, "fp4_tflops": 300}, "fp4_tflops", ["fp8_tflops 419"]),
     ({"fp4_tflops": 100}, "fp4_tflops", ["fp16_tflops 209.5"]),
     ({"memory_type": "banana"}, "memory_type", ["'banana'", "HBM3"]),
     ({"memory_type": "GDDR8"}, "memory_type", ["'GDDR8'", "'GDDR6'"]),
     ({"memory_type": "HMB3"}, "memory_type", ["'HMB3'", "'HBM3'"]),
     ({"memory_type": "DRAM"}, "memory_type", ["'DRAM'"]),
     ({"memory_type": 7}, "memory_type", ["7"]),
     ({"interconnect_direction": "banana"}, "interconnect_direction", ["'banana'", "bidirectional"]),
     ({"interconnect_direction": "bi"}, "interconnect_direction", ["'bi'"]),
     ({"interconnect_direction": "both"}, "interconnect_direction", ["'both'"])],
)  # fmt: skip
def test_a_bad_gpu_spec_is_refused_naming_the_field(change, field, words):
    _refused(SpecError, [repr(field), *words], lambda: wl.GPU.from_spec(SPEC | change))


def test_a_bad_gpu_spec_file_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(SPEC | {"fp8_tflops": 50}))
    _refused(SpecError, ["mine.json", "'fp8_tflops'"], lambda: resolve_gpu(path))


@pytest.mark.parametrize(
    ("given", "stored"),
    [("hbm3", "HBM3"), ("HBM3E", "HBM3e"), ("gddr7", "GDDR7"), ("Gddr6x", "GDDR6X"),
     (" HBM2e ", "HBM2e"), ("HBM 3", "HBM3"), ("lpddr5x", "LPDDR5X")],
)  # fmt: skip
def test_memory_type_is_matched_case_insensitively_and_stored_in_its_spelling(given, stored):
    assert wl.GPU.from_spec(SPEC | {"memory_type": given}).memory_type == stored


@pytest.mark.parametrize(
    ("given", "stored"),
    [("hopper", "Hopper"), ("BLACKWELL", "Blackwell"), ("CDNA3", "CDNA 3"),
     ("cdna-3", "CDNA 3"), ("ada lovelace", "Ada Lovelace"), ("Rubin", "Rubin"),
     ("Some Future Arch", "Some Future Arch")],
)  # fmt: skip
def test_architecture_is_stored_in_the_spelling_the_physics_reads(given, stored):
    assert wl.GPU.from_spec(SPEC | {"architecture": given}).architecture == stored


def test_architecture_case_does_not_change_the_estimate():
    h100 = wl.gpu("H100 SXM")
    spec = {f: getattr(h100, f) for f in ("release_year", "memory_gb", "memory_type",
                                          "bandwidth_gbs", "tdp_w", "fp16_tflops", "process_nm")}  # fmt: skip
    ours = wl.GPU.from_spec(spec | {"name": "my hopper", "architecture": "Hopper"})
    lower = wl.GPU.from_spec(spec | {"name": "my hopper", "architecture": "HOPPER"})
    a = wl.estimate_energy(LLAMA_ID, ours).to_dict()
    b = wl.estimate_energy(LLAMA_ID, lower).to_dict()
    assert a["total_j"] == b["total_j"]


@pytest.mark.parametrize(
    "change",
    [{"fp8_tflops": 419}, {"fp8_tflops": 209.5}, {"fp8_tflops": 419, "fp4_tflops": 838},
     {"interconnect_direction": "unidirectional"}, {"interconnect_direction": "Bidirectional"}],
)  # fmt: skip
def test_valid_peaks_and_directions_are_accepted(change):
    gpu = wl.GPU.from_spec(SPEC | change)
    assert gpu.interconnect_direction in ("bidirectional", "unidirectional")


def test_every_catalog_gpu_is_within_the_new_checks():
    table = wl.gpus()
    assert set(table.memory_type) <= set(MEMORY_TYPES)
    assert set(table.architecture) <= set(ARCHITECTURES)
    for name in table.name:
        gpu = wl.gpu(name)
        assert not gpu.fp8_tflops < gpu.fp16_tflops, name


# --- estimate_energy: bare numbers and flags -----------------------------------------------
@pytest.mark.parametrize(
    "size", [float("nan"), float("inf"), -float("inf"), 1e308, 1e-300, 1e6, 100_001, 0.009, 0, -8]
)
def test_a_bare_model_size_outside_its_range_is_refused_in_paper_mode(size):
    _refused(InvalidInputError, ["llm", "billion", "100,000"],
             lambda: wl.estimate_energy(size, "H100 SXM", mode="paper"))  # fmt: skip


@pytest.mark.parametrize("size", [float("nan"), float("inf"), 1e308, 8])
def test_a_bare_model_size_is_refused_in_physical_mode(size):
    _refused(InvalidInputError, ["paper mode"], lambda: wl.estimate_energy(size, "H100 SXM"))


@pytest.mark.parametrize("size", [0.01, 8, 70.0, 100_000])
def test_a_bare_model_size_inside_its_range_answers_in_strict_json(size):
    with pytest.warns(UserWarning):
        est = wl.estimate_energy(size, "H100 SXM", mode="paper")
    json.dumps(est.to_dict(), allow_nan=False)
    assert est.to_dict()["total_j"] > 0


@pytest.mark.parametrize("flag", ["yes", "true", 1, 0, None, 1.0, [True]])
def test_expert_parallel_must_be_a_boolean(flag):
    _refused(InvalidInputError, ["expert_parallel", "boolean", repr(flag)],
             lambda: wl.estimate_energy(LLAMA_ID, "H100 SXM", expert_parallel=flag))  # fmt: skip


def test_expert_parallel_false_answers_as_before():
    assert wl.estimate_energy(LLAMA_ID, "H100 SXM", expert_parallel=False).to_dict() == (
        wl.estimate_energy(LLAMA_ID, "H100 SXM").to_dict()
    )


# --- predict_many: column names ------------------------------------------------------------
@pytest.mark.parametrize(
    ("column", "meant"),
    [("rat_qps", "rate_qps"), ("Rate_QPS", "rate_qps"), ("T_in", "t_in"), ("t-out", "t_out"),
     ("num_gpu", "num_gpus"), ("weight", "weights"), ("t out", "t_out"), ("BATCH", "batch")],
)  # fmt: skip
def test_a_misspelt_input_column_is_refused_with_the_name_meant(column, meant):
    frame = pd.DataFrame({"llm": [LLAMA_ID], "gpu": ["L4"], "rate_qps": [0.1], column: [3]})
    _refused(InvalidInputError, [repr(column), repr(meant)], lambda: wl.predict_many(frame))


def test_a_column_given_twice_is_refused():
    frame = pd.DataFrame(
        [[LLAMA_ID, "L4", 0.1, 0.2]], columns=["llm", "gpu", "rate_qps", "rate_qps"]
    )
    _refused(InvalidInputError, ["'rate_qps'", "more than once"], lambda: wl.predict_many(frame))


@pytest.mark.parametrize("column", ["id", "label", "gpus_note", "note", "t_ins"])
def test_other_extra_columns_are_carried_through(column):
    frame = pd.DataFrame({"llm": [LLAMA_ID], "gpu": ["L4"], "rate_qps": [0.1], column: ["x"]})
    out = wl.predict_many(frame)
    assert out.loc[0, column] == "x" and out.loc[0, "status"] == "ok"


def test_expert_parallel_on_a_dense_model_is_refused_on_one_gpu_too():
    _refused(InvalidInputError, ["expert_parallel=True", "dense"],
             lambda: wl.estimate_energy(LLAMA_ID, "H100 SXM", expert_parallel=True))  # fmt: skip


def test_falcon_7b_refinedwebmodel_config_is_the_catalog_entry():
    rw = {k: v for k, v in FALCON.items() if k != "max_position_embeddings"}
    rw |= {"model_type": "RefinedWebModel", "architectures": ["RWForCausalLM"]}
    assert resolve_llm(rw) == wl.llm("tiiuae/falcon-7b")
