"""Real Hub config.json files (tests/fixtures/configs, sources in index.csv): parsing, published
parameter counts, refusals with reasons, quantisation bits, and malformed configs."""

import csv
import json
import math
import re
from pathlib import Path

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import ConfigError, UnsupportedModelError
from wattgpu_lite.specs.count import kept_16bit

CONFIGS = Path(__file__).parents[1] / "fixtures" / "configs"
INDEX = list(csv.DictReader((CONFIGS / "index.csv").open()))
DECODERS = [r for r in INDEX if r["arch_class"] in ("dense_decoder", "moe_decoder")]
REFUSED = [r for r in INDEX if r not in DECODERS]
WHY = {"encoder": "encoder-only", "encoder_decoder": "encoder-decoder",
       "recurrent": "recurrent / state-space", "hybrid_recurrent": "hybrid recurrent"}  # fmt: skip


OUTSIDE = "REFERENCE OUTSIDE 3 %"  # a card's rounded size name; the kit's own sum is in the note
DEVIATING = [r for r in DECODERS if OUTSIDE in r["notes"]]


def _cfg(name: str) -> dict:
    return json.loads((CONFIGS / name).read_text())


def test_corpus_has_40_model_types_and_every_file_is_indexed():
    types = {_cfg(r["file"]).get("model_type") for r in INDEX}
    assert len(types) >= 40 and len(INDEX) >= 50
    assert {p.name for p in CONFIGS.glob("*.json")} == {r["file"] for r in INDEX}
    assert all(r["config_source"].startswith(("http", "PyPI", "published")) for r in INDEX)


def test_configs_from_a_published_table_are_marked_and_say_the_file_was_not_found():
    """Where no exact config.json was reachable, the authors' architecture table is transcribed
    (config_kind published_table); the row says so and names the table, and it has counts."""
    kinds = {r["config_kind"] for r in INDEX}
    assert kinds == {"exact_file", "published_table"}
    tables = [r for r in INDEX if r["config_kind"] == "published_table"]
    assert {r["hf_id"] for r in tables} >= {"zai-org/GLM-4.5-Air", "microsoft/Phi-3.5-MoE-instruct"}
    for r in tables:
        assert r["config_source"].startswith("published architecture")
        assert "config.json was not found" in r["config_source"]
        assert r["file"].endswith(".table.json") and r["params_total_b_ref"]
        assert r["params_active_b_ref"]
    exact = [r for r in INDEX if r["config_kind"] == "exact_file"]
    assert all(r["config_source"].startswith(("http", "PyPI")) for r in exact)


@pytest.mark.parametrize("row", DECODERS, ids=[r["file"] for r in DECODERS])
def test_decoder_parses_and_matches_its_published_count_within_3_percent(row):
    m = wl.LLM.from_hf_config(CONFIGS / row["file"])
    assert m.is_moe == (row["arch_class"] == "moe_decoder")
    if row["params_total_b_ref"] and OUTSIDE not in row["notes"]:
        assert m.params_b / float(row["params_total_b_ref"]) - 1 == pytest.approx(0, abs=0.03)
    if row["params_active_b_ref"]:
        assert _as_published(m, row["active_ref_excludes_embedding"]) / float(
            row["params_active_b_ref"]) - 1 == pytest.approx(0, abs=0.03)  # fmt: skip


def _as_published(m, excludes: str) -> float:
    """The kit's active count (the gathered input tables excluded) in the publisher's convention:
    "yes" (OpenAI) counts no input table either; "embedding_and_head" (GLM-4.5) no output layer
    as well; a blank convention counts the input table as active (Qwen, Mistral, Meta...)."""
    if excludes == "yes":
        return m.params_active_b
    if excludes == "embedding_and_head":
        return m.params_active_b - m.vocab_size * m.hidden_size / 1e9
    return m.params_active_b + m.params_gathered_b


@pytest.mark.parametrize("row", DEVIATING, ids=[r["file"] for r in DEVIATING])
def test_counts_beyond_3_percent_of_a_rounded_size_name_are_the_documented_architecture_sums(row):
    """Where a card gives only a rounded size name ('40B', '1.3 billion') the kit's count stays the
    architecture sum written out in the note (e.g. falcon-40b 41.303 B), and the gap stays > 3 %."""
    stated = re.search(r"\(kit ([0-9.]+) B, \+([0-9.]+) %\)", row["notes"])
    m = wl.LLM.from_hf_config(CONFIGS / row["file"])
    assert m.params_b == pytest.approx(float(stated[1]), abs=0.0005)
    assert (m.params_b / float(row["params_total_b_ref"]) - 1) * 100 == pytest.approx(
        float(stated[2]), abs=0.05
    )


def test_at_least_a_dozen_corpus_counts_are_checked_against_a_source():
    assert sum(bool(r["params_total_b_ref"]) for r in DECODERS) >= 12


@pytest.mark.parametrize("row", REFUSED, ids=[r["file"] for r in REFUSED])
def test_non_decoders_are_refused_saying_why(row):
    with pytest.raises(UnsupportedModelError, match=WHY[row["arch_class"]]) as err:
        wl.LLM.from_hf_config(CONFIGS / row["file"])
    assert "model_type" in str(err.value) or "is_encoder_decoder" in str(err.value)


def test_moe_fields_of_deepseek_v3_mla_and_first_dense_layers():
    m = wl.LLM.from_hf_config(CONFIGS / "deepseek-ai__DeepSeek-V3.json")
    assert (m.n_experts, m.n_experts_active, m.n_shared_experts, m.n_moe_layers) == (256, 8, 1, 58)
    assert m.mla_kv_width == 512 + 64 and m.kv_width == 576 and m.n_kv_heads == m.n_heads
    assert m.params_expert_b == pytest.approx(3 * 7168 * 2048 / 1e9)


def test_qwen_moe_shared_expert_dbrx_ffn_config_and_olmoe():
    qwen = wl.LLM.from_hf_config(CONFIGS / "MaziyarPanahi__Qwen1.5-MoE-A2.7B-Wikihow.json")
    assert (qwen.n_experts, qwen.n_experts_active, qwen.n_shared_experts) == (60, 4, 1)
    dbrx = wl.LLM.from_hf_config(CONFIGS / "amd__dbrx-instruct-FP8-KV.json")
    assert (dbrx.n_experts, dbrx.n_experts_active, dbrx.n_kv_heads) == (16, 4, 8)
    assert dbrx.params_expert_b == pytest.approx(3 * 6144 * 10752 / 1e9)
    olmoe = wl.LLM.from_hf_config(CONFIGS / "interview-eval__olmoe-math-train-gsm8k-2.json")
    assert (olmoe.n_experts, olmoe.n_experts_active, olmoe.n_moe_layers) == (64, 8, 16)


def test_implicit_ffn_widths_wrappers_and_context_rules():
    mpt = wl.LLM.from_hf_config(CONFIGS / "htriedman__mpt-7b-instruct-wiki-sparql.json")
    assert (mpt.intermediate_size, mpt.context_length, mpt.mlp_type) == (4 * 4096, 2048, "plain")
    gpt2 = wl.LLM.from_hf_config(CONFIGS / "ML-ass__english_decoder.json")
    assert gpt2.intermediate_size == 4 * 768  # n_inner: null
    bloom = wl.LLM.from_hf_config(CONFIGS / "bigscience__bloom-560m.json")
    assert bloom.context_length == 2048  # ALiBi, no max positions: published training length
    gemma = wl.LLM.from_hf_config(CONFIGS / "mlx-community__gemma-3-4b-pt-4bit.json")
    assert (gemma.n_heads, gemma.n_kv_heads, gemma.head_dim, gemma.vocab_size) == (
        8,
        4,
        256,
        262208,
    )
    kimi = wl.LLM.from_hf_config(CONFIGS / "moonshotai__Kimi-K2.5.json")
    assert kimi.n_experts == 384 and kimi.model_type == "kimi_k25"


@pytest.mark.parametrize(
    ("file", "fmt", "linear_bits"),
    [("openai__gpt-oss-20b.json", "mxfp4", 4.25),
     ("deepseek-ai__DeepSeek-V3.json", "fp8", 8 + 32 / 128**2),
     ("LDCC__Qwen2.5-72B-Instruct-ko-AWQ.json", "int4", 4 + 20 / 128),
     ("kaitchup__Mistral-7B-v0.1-gptq-2bit.json", "int2", 2 + 18 / 128),
     ("RichardErkhov__Qwen_-_Qwen1.5-MoE-A2.7B-Chat-4bits.json", "fp4", 4.5),
     ("Sandiago21__falcon-40b-prompt-answering.json", "nf4", 4 + 8 / 64 + 32 / 16384),
     ("moonshotai__Kimi-K2.5.json", "int4", 4 + 16 / 32),
     ("mlx-community__gemma-3-4b-pt-4bit.json", "int4", 4 + 32 / 64)],
)  # fmt: skip
def test_quantised_configs_give_format_and_bits(file, fmt, linear_bits):
    m = wl.LLM.from_hf_config(CONFIGS / file)
    assert m.weight_format == fmt
    assert linear_bits - 1e-3 <= m.weight_bits < 16  # 16-bit embeddings raise the mean


def test_mlx_quantises_everything_and_gpt_oss_keeps_attention_in_16_bits():
    mlx = wl.LLM.from_hf_config(CONFIGS / "mlx-community__gemma-3-4b-pt-4bit.json")
    assert mlx.weight_bits == pytest.approx(4.5, abs=0.01)
    oss = wl.LLM.from_hf_config(CONFIGS / "openai__gpt-oss-120b.json")
    assert 4.25 < oss.weight_bits < 4.6
    assert kept_16bit("model.layers.1.self_attn.q_proj", ("model.layers.*.self_attn",))
    assert kept_16bit("model.layers.1.mlp.gate", ("mlp.gate",))
    assert not kept_16bit("model.layers.1.mlp.gate_proj", ("mlp.gate",))
    assert kept_16bit("model.layers.1.self_attn.o_proj", ("re:.*self_attn.*",))


def test_fbgemm_fp8_is_read_as_8_bit_fp8_with_per_channel_scales_neglected():
    """Llama-3.1-*-FP8 releases say ``quant_method: fbgemm_fp8`` (FP8 E4M3 weights, one scale per
    output row, ``activation_scale_ub``); per-channel scales add < 0.01 bit and are neglected, so
    the 405B architecture weighs as plain per-tensor FP8, 16-bit embeddings raising the mean."""
    arch = _cfg("meta-llama__Llama-3.1-405B.json")
    fb = {
        "quant_method": "fbgemm_fp8",
        "activation_scale_ub": 1200.0,
        "modules_to_not_convert": None,
    }
    m = wl.LLM.from_hf_config(arch | {"quantization_config": fb})
    plain = wl.LLM.from_hf_config(arch | {"quantization_config": {"quant_method": "fp8"}})
    assert m.weight_format == "fp8" and m.weight_bits == plain.weight_bits
    assert 8 < m.weight_bits < 8.2 and m.params_b == plain.params_b
    kept = fb | {"modules_to_not_convert": ["lm_head", "mlp"]}
    assert wl.LLM.from_hf_config(arch | {"quantization_config": kept}).weight_bits > 14


def test_llama4_has_a_shared_expert_and_wide_dense_layers_between_its_moe_layers():
    """Llama 4 names neither: every MoE layer adds one always-on expert of intermediate_size to the
    routed ones, and Maverick's dense layers are intermediate_size_mlp wide (Llama4TextMoe).
    Oracle by hand (counts are rounded to 10³): untied 202,048-token tables, GQA 40/8 heads of
    128, two RMSNorms a layer."""
    d, ff, ff_dense, v = 5120, 8192, 16384, 202048
    attn_norms = 48 * (2 * d * d + 2 * d * 1024 + 2 * d) + 2 * v * d + d
    mav = wl.LLM.from_hf_config(CONFIGS / "meta-llama__Llama-4-Maverick-17B-128E-Instruct.json")
    assert (mav.n_moe_layers, mav.n_shared_experts, mav.intermediate_size) == (24, 1, 16384)
    moe = 24 * (128 * d + 129 * 3 * d * ff)  # router, 128 routed + 1 shared expert
    assert mav.params_b * 1e9 == pytest.approx(attn_norms + moe + 24 * 3 * d * ff_dense, abs=1e3)
    assert mav.params_active_b * 1e9 == pytest.approx(
        mav.params_b * 1e9 - 24 * 127 * 3 * d * ff - v * d, abs=2e3
    )  # the untied input table is gathered, not multiplied
    scout = wl.LLM.from_hf_config(CONFIGS / "meta-llama__Llama-4-Scout-17B-16E-Instruct.json")
    moe = 48 * (16 * d + 17 * 3 * d * ff)
    assert scout.params_b * 1e9 == pytest.approx(attn_norms + moe, abs=1e3)


LLAMA = _cfg("meta-llama__Llama-3.1-8B.json")


@pytest.mark.parametrize(
    ("change", "words"),
    [({"num_key_value_heads": 0}, "'num_key_value_heads'"),
     ({"num_key_value_heads": 5}, "does not divide"),
     ({"attention_bias": 1000000}, "'attention_bias' must be true or false"),
     ({"attention_bias": [True]}, "'attention_bias'"),
     ({"mlp_bias": "no"}, "'mlp_bias'"),
     ({"tie_word_embeddings": "false"}, "'tie_word_embeddings'"),
     ({"hidden_size": 1e308}, "'hidden_size'"),
     ({"hidden_size": 10_000_000}, "'hidden_size'"),
     ({"vocab_size": math.inf}, "'vocab_size'"),
     ({"num_hidden_layers": math.nan}, "'n_layers'"),
     ({"num_hidden_layers": True}, "'n_layers'"),
     ({"quantization_config": {"quant_method": "mystery"}}, "'mystery'")],
)  # fmt: skip
def test_malformed_fields_raise_config_error_naming_the_field(change, words):
    with pytest.raises(ConfigError, match=words):
        wl.LLM.from_hf_config(LLAMA | change)


@pytest.mark.parametrize("content", ["[1, 2]", "3", "null", '"config"'])
def test_a_config_that_is_not_an_object_is_a_config_error(tmp_path, content):
    path = tmp_path / "config.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match="not an object"):
        wl.LLM.from_hf_config(path)


def test_watt_counts_moe_names_resolve_and_say_they_are_moe():
    olmoe = wl.llm("allenai/OLMoE-1B-7B-0924")
    assert olmoe.is_moe and not olmoe.in_wattgpu and olmoe.params_nominal_b == 6.9
    table = wl.llms()
    assert int(table.in_wattgpu.sum()) == 42 and not table.loc[table.in_wattgpu, "n_experts"].any()
    for name in ["openai/gpt-oss-120b", "Qwen/Qwen3-235B-A22B-FP8", "deepseek-ai/DeepSeek-R1"]:
        m = wl.llm(name)
        assert m.is_moe and m.params_active_b < m.params_b
