"""Config.json shapes. A config without
its family (``model_type``), with a family in another spelling, with NaN or Infinity anywhere,
naming a recurrent, hybrid or encoder class, with a contradictory expert count, or with a
section of the wrong JSON type is refused with the kit's error class, naming the field, the
value and the fix; the valid configs next to them are read as before (or with a source line
that says what the kit assumed). Deterministic: no random draws.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from config_fixtures import config, refused

import wattgpu_lite as wl
from wattgpu_lite.errors import ConfigError, UnsupportedModelError, WattGPUError
from wattgpu_lite.specs.resolve import resolve_llm

CONFIGS = Path(__file__).parents[1] / "fixtures" / "configs"


LLAMA = config("meta-llama__Llama-3.1-8B")
MIXTRAL = config("mistralai__Mixtral-8x7B-v0.1")
DEEPSEEK = config("deepseek-ai__DeepSeek-V3")


def _with(base: dict, **change) -> dict:
    out = copy.deepcopy(base)
    out.update(change)
    return out


def _without(base: dict, *keys: str) -> dict:
    return {k: v for k, v in copy.deepcopy(base).items() if k not in keys}


def _refused(error: type[WattGPUError], words: list[str], value) -> str:
    """The message of reading ``value``, exactly of class ``error`` (config_fixtures.refused)."""
    return refused(error, words, lambda: wl.LLM.from_hf_config(value), exact=True)


# --- a config must name its family ----------------------------------------------------------
NO_TYPE = [
    (_without(LLAMA, "model_type"), '"model_type": "llama"'),
    (_with(LLAMA, model_type=None), '"model_type": "llama"'),
    (_with(LLAMA, model_type=""), '"model_type": "llama"'),
    (_without(LLAMA, "model_type", "architectures"), 'e.g. "model_type": "llama"'),
    (_with(_without(LLAMA, "model_type"), architectures=["Qwen2ForCausalLM"]), '"qwen2"'),
    (_with(_without(LLAMA, "model_type"), architectures=["GPTNeoXForCausalLM"]), '"gpt_neox"'),
    (_with(_without(LLAMA, "model_type"), architectures=["GPT2LMHeadModel"]), '"gpt2"'),
    (_with(_without(LLAMA, "model_type"), architectures=["Gemma2ForCausalLM"]), '"gemma2"'),
    (_with(_without(LLAMA, "model_type"), architectures=["MysteryForCausalLM"]),
     'e.g. "model_type": "llama"'),
    ({"architectures": ["LlavaForConditionalGeneration"],
      "text_config": _without(LLAMA, "model_type")}, "'model_type'"),
]  # fmt: skip


@pytest.mark.parametrize(("cfg", "fix"), NO_TYPE, ids=[str(i) for i in range(len(NO_TYPE))])
def test_a_config_without_its_family_is_refused_with_the_family_to_add(cfg, fix):
    message = _refused(ConfigError, ["'model_type'", "add", fix], cfg)
    assert "Llama" in message  # says what it would otherwise have been counted as


def test_a_wrapper_whose_language_model_names_its_family_is_read():
    wrapped = {"architectures": ["LlavaForConditionalGeneration"], "text_config": LLAMA}
    assert wl.LLM.from_hf_config(wrapped).params_b == wl.LLM.from_hf_config(LLAMA).params_b


@pytest.mark.parametrize(
    ("written", "meant"),
    [(" llama", "llama"), ("llama ", "llama"), ("gpt-neox", "gpt_neox"), ("GPT-NeoX", "gpt_neox"),
     ("qwen-2", "qwen2"), ("QWEN_3", "qwen3"), ("gemma-2", "gemma2"), ("Phi3 ", "phi3"),
     ("gpt_2", "gpt2"), ("star coder2", "starcoder2"), ("OLMo-2", "olmo2")],
)  # fmt: skip
def test_a_family_in_another_spelling_names_the_spelling_meant(written, meant):
    message = _refused(ConfigError, [repr(written), repr(meant)], _with(LLAMA, model_type=written))
    assert f'write "model_type": "{meant}"' in message


@pytest.mark.parametrize("model_type", ["foobar", "exaone", "my_llama"])
def test_a_family_the_kit_does_not_know_is_counted_like_llama_and_says_so(model_type):
    model = wl.LLM.from_hf_config(_with(LLAMA, model_type=model_type))
    assert model.params_b == wl.LLM.from_hf_config(LLAMA).params_b
    assert f"model_type {model_type!r} is not a family the kit knows" in model.source
    assert "counted like Llama" in model.source


def test_a_known_family_has_no_such_note():
    assert "not a family the kit knows" not in wl.LLM.from_hf_config(LLAMA).source


# --- no NaN or Infinity anywhere in a config --------------------------------------------------
NON_FINITE = [
    ({"rms_norm_eps": math.nan}, "'rms_norm_eps'", "NaN"),
    ({"rms_norm_eps": -math.inf}, "'rms_norm_eps'", "-Infinity"),
    ({"rope_theta": math.inf}, "'rope_theta'", "Infinity"),
    ({"rope_scaling": {"factor": math.nan, "rope_type": "llama3"}}, "'rope_scaling.factor'", "NaN"),
    ({"initializer_range": math.nan}, "'initializer_range'", "NaN"),
    ({"eos_token_id": [128001, math.inf]}, "'eos_token_id[1]'", "Infinity"),
    ({"extra": {"deep": [{"x": math.nan}]}}, "'extra.deep[0].x'", "NaN"),
    ({"attention_dropout": math.nan}, "'attention_dropout'", "NaN"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "field", "shown"), NON_FINITE)
def test_a_non_finite_number_in_a_config_dict_is_refused_naming_it(change, field, shown):
    _refused(ConfigError, [field, f"is {shown}", "not a JSON number"], _with(LLAMA, **change))


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [('"rms_norm_eps": 1e-05', '"rms_norm_eps": NaN', "'rms_norm_eps'"),
     ('"rms_norm_eps": 1e-05', '"rms_norm_eps": Infinity', "'rms_norm_eps'"),
     ('"rms_norm_eps": 1e-05', '"rms_norm_eps": -Infinity', "'rms_norm_eps'"),
     ('"rms_norm_eps": 1e-05', '"rms_norm_eps": 1e400', "'rms_norm_eps'"),
     ('"rope_theta": 500000.0', '"rope_theta": -1e999', "'rope_theta'"),
     ('"factor": 8.0', '"factor": NaN', "'rope_scaling.factor'")],
)  # fmt: skip
def test_a_non_finite_literal_in_a_config_file_is_refused_naming_it(tmp_path, old, new, field):
    text = json.dumps(LLAMA, indent=1)
    assert old in text
    path = tmp_path / "config.json"
    path.write_text(text.replace(old, new))
    _refused(ConfigError, [field, "not a JSON number"], path)


def test_a_recurrent_config_holding_infinity_is_still_refused_as_recurrent(tmp_path):
    path = tmp_path / "config.json"
    path.write_text((CONFIGS / "nvidia__Nemotron-H-56B-Base-8K.json").read_text())
    assert "Infinity" in path.read_text()
    _refused(UnsupportedModelError, ["hybrid recurrent", "nemotron_h"], path)


# --- the class names a config lists -----------------------------------------------------------
@pytest.mark.parametrize(
    ("arch", "kind"),
    [("MambaForCausalLM", "recurrent"), ("Mamba2ForCausalLM", "recurrent"),
     ("FalconMambaForCausalLM", "recurrent"), ("RwkvForCausalLM", "recurrent"),
     ("RecurrentGemmaForCausalLM", "recurrent"), ("JambaForCausalLM", "hybrid recurrent"),
     ("Zamba2ForCausalLM", "hybrid recurrent"), ("BambaForCausalLM", "hybrid recurrent"),
     ("NemotronHForCausalLM", "hybrid recurrent"), ("FalconH1ForCausalLM", "hybrid recurrent"),
     ("T5EncoderModel", "encoder-only"), ("MT5EncoderModel", "encoder-only"),
     ("UMT5EncoderModel", "encoder-only")],
)  # fmt: skip
def test_a_recurrent_hybrid_or_encoder_class_is_refused_whatever_model_type_says(arch, kind):
    message = _refused(UnsupportedModelError, [kind, arch, "decoder"],
                       _with(LLAMA, architectures=[arch]))  # fmt: skip
    assert "model_type 'llama'" in message


@pytest.mark.parametrize(
    "arch", ["LlamaForCausalLM", "MistralForCausalLM", "GemmaForCausalLM", "Starcoder2ForCausalLM",
             "MiniMaxM2ForCausalLM"],
)  # fmt: skip
def test_decoder_classes_next_to_them_are_read(arch):
    assert wl.LLM.from_hf_config(_with(LLAMA, architectures=[arch])).n_layers == 32


# --- experts ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "words"),
    [({"num_local_experts": 1}, ["num_experts_per_tok = 2", "num_local_experts = 1"]),
     ({"num_local_experts": 1, "num_experts_per_tok": 8}, ["= 8", "num_local_experts = 1"]),
     ({"num_experts_per_tok": 9}, ["num_experts_per_tok = 9", "num_local_experts = 8"])],
)  # fmt: skip
def test_a_top_k_above_the_expert_count_is_refused_with_the_fix(change, words):
    message = _refused(ConfigError, words, _with(MIXTRAL, **change))
    assert "exceeds" in message and "published config.json" in message


def test_a_deepseek_config_routing_to_more_experts_than_it_has_is_refused():
    _refused(ConfigError, ["num_experts_per_tok = 8", "n_routed_experts = 4"],
             _with(DEEPSEEK, n_routed_experts=4))  # fmt: skip


def test_one_expert_routed_to_one_is_a_dense_model():
    model = wl.LLM.from_hf_config(_with(MIXTRAL, num_local_experts=1, num_experts_per_tok=1))
    assert not model.is_moe and model.n_layers == 32


@pytest.mark.parametrize("base", [MIXTRAL, DEEPSEEK], ids=["mixtral", "deepseek"])
def test_zero_experts_is_dense_and_the_source_says_the_top_k_is_not_read(base):
    key = "n_routed_experts" if base is DEEPSEEK else "num_local_experts"
    model = wl.LLM.from_hf_config(_with(base, **{key: 0}))
    assert not model.is_moe
    assert f"{key} 0: read as a dense model (num_experts_per_tok" in model.source


# --- sections and fields of the wrong JSON type -----------------------------------------------
@pytest.mark.parametrize(
    ("change", "field"),
    [({"text_config": [1]}, "'text_config'"), ({"text_config": "llama"}, "'text_config'"),
     ({"text_config": 5}, "'text_config'"), ({"llm_config": ["x"]}, "'llm_config'"),
     ({"quantization_config": ["fp8"]}, "'quantization_config'"),
     ({"quantization_config": "fp8"}, "'quantization_config'"),
     ({"quantization_config": 8}, "'quantization_config'"),
     ({"sliding_window": "4096"}, "'sliding_window'"), ({"sliding_window": 4096.5}, "'sliding_window'"),
     ({"sliding_window": -1}, "'sliding_window'"),
     ({"is_encoder_decoder": "false"}, "'is_encoder_decoder'"),
     ({"multi_query": "yes"}, "'multi_query'"), ({"parallel_attn": 1}, "'parallel_attn'")],
)  # fmt: skip
def test_a_section_or_flag_of_the_wrong_json_type_is_refused_naming_it(change, field):
    message = str(pytest.raises(ConfigError, wl.LLM.from_hf_config, _with(LLAMA, **change)).value)
    assert field in message, message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("inner", "kind"),
    [({"model_type": "bert"}, "encoder-only"), ({"model_type": "mamba"}, "recurrent"),
     ({"model_type": "t5"}, "encoder-decoder")],
)  # fmt: skip
def test_a_language_model_section_of_an_unsupported_kind_is_refused(inner, kind):
    _refused(UnsupportedModelError, [kind], _with(LLAMA, text_config=inner))


def test_zero_attention_heads_names_the_field():
    _refused(UnsupportedModelError, ["'num_attention_heads' = 0", "attention"],
             _with(LLAMA, num_attention_heads=0))  # fmt: skip


# --- a folder where a config.json is meant ----------------------------------------------------
def test_a_model_folder_names_the_config_json_inside(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    for read in (wl.LLM.from_hf_config, resolve_llm):
        with pytest.raises(ConfigError) as caught:
            read(tmp_path)
        assert "is a folder" in str(caught.value)
        assert repr(str(tmp_path / "config.json")) in str(caught.value)


def test_an_empty_folder_asks_for_the_file_itself(tmp_path):
    with pytest.raises(ConfigError, match="is a folder, not a config.json file; pass the path"):
        resolve_llm(str(tmp_path))


# --- vision and audio encoders, and GPTQ widths transformers refuses -------------------------
MEDIA = [
    ("vit", ["ViTForImageClassification"]), ("clip", ["CLIPModel"]),
    ("siglip", ["SiglipModel"]), ("dinov2", ["Dinov2Model"]), ("wav2vec2", ["Wav2Vec2ForCTC"]),
    ("hubert", ["HubertForSequenceClassification"]), ("llama", ["CLIPVisionModelWithProjection"]),
    ("llama", ["BeitForImageClassification"]), ("llama", ["WavLMForXVector"]),
]  # fmt: skip


@pytest.mark.parametrize(("model_type", "archs"), MEDIA, ids=[a[0] for _, a in MEDIA])
def test_a_vision_or_audio_encoder_is_refused_naming_its_evidence(model_type, archs):
    words = ["vision or audio encoder", f"model_type {model_type!r}", "does not generate tokens"]
    _refused(UnsupportedModelError, words, _with(LLAMA, model_type=model_type, architectures=archs))


def test_a_vision_language_decoder_is_read_through_its_language_model():
    llava = {"architectures": ["LlavaForConditionalGeneration"], "model_type": "llava",
             "vision_config": {"model_type": "clip_vision_model"}, "text_config": LLAMA}  # fmt: skip
    assert wl.LLM.from_hf_config(llava).params_b == pytest.approx(
        wl.LLM.from_hf_config(LLAMA).params_b
    )


@pytest.mark.parametrize("bits", [5, 6, 7])
def test_a_gptq_width_transformers_refuses_is_refused(bits):
    q = {"quant_method": "gptq", "bits": bits, "group_size": 128}
    _refused(ConfigError, ["(gptq) field 'bits'", f"= {bits}", "2, 3, 4 or 8"],
             _with(LLAMA, quantization_config=q))  # fmt: skip


@pytest.mark.parametrize("bits", [2, 3, 4, 8])
def test_the_gptq_widths_transformers_accepts_are_read(bits):
    q = {"quant_method": "gptq", "bits": bits, "group_size": 128}
    assert wl.LLM.from_hf_config(_with(LLAMA, quantization_config=q)).weight_format == f"int{bits}"
