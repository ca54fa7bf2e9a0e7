"""The GPU and LLM catalogs: published values, parameter counts, lookups and every error."""

import json
import math
from dataclasses import fields
from pathlib import Path

import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import (
    ConfigError,
    DataFileError,
    SpecError,
    UnknownGPUError,
    UnknownLLMError,
    UnsupportedModelError,
)
from wattgpu_lite.specs import catalog
from wattgpu_lite.specs.llm import ECHO_FIELDS, params_b_of
from wattgpu_lite.specs.params import count_params, family
from wattgpu_lite.wattgpu.features import paper_gpu

FIXTURES = Path(__file__).parents[1] / "fixtures"
RUNS = Path(__file__).parents[2] / "data" / "watt_counts_runs.csv"

# (HF id, published parameters in billions, where the figure is published)
PUBLISHED_B = [
    ("openai-community/gpt2", 0.124, "GPT-2 model card"),
    ("openai-community/gpt2-xl", 1.558, "GPT-2 model card"),
    ("EleutherAI/gpt-j-6b", 6.05, "WattGPU total_b_params / model card"),
    ("EleutherAI/pythia-1.4b", 1.415, "Pythia paper"),
    ("EleutherAI/pythia-12b", 11.847, "Pythia paper"),
    ("tiiuae/falcon-7b", 7.0, "model card"),
    ("microsoft/phi-1_5", 1.42, "EcoLogits models.json"),
    ("microsoft/Phi-3-mini-4k-instruct", 3.82, "EcoLogits models.json"),
    ("microsoft/Phi-3-medium-4k-instruct", 13.96, "EcoLogits models.json"),
    ("meta-llama/Llama-2-7b-hf", 6.74, "EcoLogits models.json"),
    ("meta-llama/Llama-2-13b-hf", 13.02, "EcoLogits models.json"),
    ("meta-llama/Llama-2-70b-hf", 68.98, "EcoLogits models.json"),
    ("meta-llama/Meta-Llama-3-70B", 70.55, "EcoLogits models.json"),
    ("meta-llama/Llama-3.1-8B-Instruct", 8.03, "WattGPU total_b_params"),
    ("meta-llama/Llama-3.2-3B-Instruct", 3.21, "WattGPU total_b_params"),
    ("mistralai/Mistral-7B-v0.1", 7.24, "EcoLogits models.json"),
    ("mistralai/Mistral-7B-Instruct-v0.3", 7.25, "WattGPU total_b_params"),
    ("mistralai/Mistral-Nemo-Base-2407", 12.25, "EcoLogits models.json"),
    ("mistralai/Mistral-Small-24B-Base-2501", 23.6, "EcoLogits models.json"),
    ("google/gemma-2b", 2.51, "EcoLogits models.json"),
    ("google/gemma-7b", 8.54, "EcoLogits models.json"),
    ("google/gemma-2-2b-it", 2.61, "WattGPU total_b_params"),
    ("google/gemma-2-9b", 9.24, "EcoLogits models.json"),
    ("google/gemma-2-27b", 27.23, "EcoLogits models.json"),
    ("google/gemma-3-1b-pt", 1.0, "EcoLogits models.json"),
    ("Qwen/Qwen2.5-7B-Instruct", 7.62, "WattGPU total_b_params"),
    ("Qwen/Qwen3-8B", 8.2, "Qwen3 model card"),
    ("Qwen/Qwen3-32B", 32.8, "Qwen3 model card"),
    ("internlm/internlm2_5-7b", 7.74, "model card"),
    ("allenai/OLMo-2-1124-7B", 7.3, "model card"),
    ("bigcode/starcoder2-15b", 15.96, "model card"),
    ("upstage/solar-pro-preview-instruct", 22.1, "WattGPU total_b_params"),
    ("THUDM/glm-4-9b-chat", 9.4, "model card"),
    ("01-ai/Yi-34B", 34.4, "model card"),
]

# the 42 dense LLMs of the Watt Counts runs (MoE and Mamba excluded, as WattGPU does)
WATTGPU_DENSE = """
01-ai/Yi-1.5-6B-Chat 01-ai/Yi-1.5-9B-Chat EleutherAI/gpt-j-6b EleutherAI/gpt-neox-20b
HuggingFaceTB/SmolLM2-1.7B-Instruct Qwen/Qwen2.5-0.5B-Instruct Qwen/Qwen2.5-1.5B-Instruct
Qwen/Qwen2.5-3B-Instruct Qwen/Qwen2.5-7B-Instruct Qwen/Qwen3-14B allenai/OLMo-2-1124-13B-Instruct
allenai/OLMo-2-1124-7B-Instruct berkeley-nest/Starling-LM-7B-alpha deepseek-ai/deepseek-llm-7b-chat
google/gemma-2-2b-it google/gemma-3-12b-it google/gemma-3-27b-it ibm-granite/granite-3.0-2b-instruct
ibm-granite/granite-3.0-8b-instruct internlm/internlm2-7b internlm/internlm2_5-20b-chat
meta-llama/Llama-2-13b-chat-hf meta-llama/Llama-3.1-8B-Instruct meta-llama/Llama-3.2-3B-Instruct
microsoft/Phi-3-medium-4k-instruct microsoft/Phi-3-mini-4k-instruct microsoft/phi-2 microsoft/phi-4
mistralai/Mistral-7B-Instruct-v0.3 mistralai/Mistral-Small-24B-Instruct-2501
mistralai/Mistral-Small-Instruct-2409 mlabonne/AlphaMonarch-7B mlabonne/NeuralBeagle14-7B
nvidia/AceMath-1.5B-Instruct nvidia/AceMath-7B-Instruct nvidia/Llama-3.1-Minitron-4B-Width-Base
nvidia/Mistral-NeMo-Minitron-8B-Instruct nvidia/Nemotron-Mini-4B-Instruct openai-community/gpt2
tiiuae/Falcon3-3B-Instruct upstage/SOLAR-10.7B-Instruct-v1.0 upstage/solar-pro-preview-instruct
""".split()

# WattGPU gpu_features.csv rows of the 8 measured GPUs (the specs the runs were taken against):
# name: (bandwidth GB/s, dense FP16 TFLOPS, TDP W, base MHz, boost MHz, transistors M, year)
MEASURED = {
    "V100 SXM2 32GB": (898.0, 125, 300, 1290, 1530, 21100, 2018),
    "T4": (320.0, 65, 70, 585, 1590, 13600, 2018),
    "A100 SXM4 40GB": (1560.0, 312, 400, 1095, 1410, 54200, 2020),
    "A30": (933.1, 165, 165, 930, 1440, 54200, 2021),
    "L40S": (864.0, 362, 350, 1110, 2520, 76300, 2022),
    "L4": (300.1, 121, 72, 795, 2040, 35800, 2023),
    "H100 NVL": (3940.0, 835, 400, 1080, 1785, 80000, 2023),
    "H200 NVL": (4890.0, 835, 700, 1365, 1785, 80000, 2024),
}
ARCH_FIELDS = ["model_type", "n_layers", "hidden_size", "intermediate_size", "n_heads",
               "n_kv_heads", "head_dim", "vocab_size", "context_length", "tie_embeddings",
               "mlp_type"]  # fmt: skip


def arch(m):
    return {f: getattr(m, f) for f in ARCH_FIELDS}


# ---------------------------------------------------------------- parameter counts


@pytest.mark.parametrize(("name", "published_b", "where"), PUBLISHED_B)
def test_parameter_count_matches_published_within_2_percent(name, published_b, where):
    ours = params_b_of(**arch(wl.llm(name)))
    assert abs(ours / published_b - 1) < 0.02, f"{name}: {ours:.3f} B vs {published_b} ({where})"


def test_published_counts_are_an_independent_oracle_over_many_families():
    """The table is a second source, not our output copied: >= 20 models of >= 12 architecture
    families, each cited, and its figures are not llms.csv's computed params_b."""
    names = [n for n, _, _ in PUBLISHED_B]
    assert len(set(names)) == len(names) >= 20
    assert len({wl.llm(n).model_type for n in names}) >= 12
    assert all(where.strip() for _, _, where in PUBLISHED_B)
    copies = [n for n, b, _ in PUBLISHED_B if b == round(wl.llm(n).params_b, 6)]
    assert len(copies) <= len(names) // 4, f"published figures equal to our own count: {copies}"


def test_hand_counted_llama2_7b_and_gpt2_exactly():
    """Llama-2-7B: 2·32000·4096 + 32·(4·4096² + 3·4096·11008 + 2·4096) + 4096 = 6,738,415,616."""
    llama = arch(wl.llm("meta-llama/Llama-2-7b-hf"))
    assert count_params(**{k: v for k, v in llama.items() if k != "model_type"},
                        fam=family("llama")) == 6_738_415_616  # fmt: skip
    gpt2 = arch(wl.llm("gpt2"))
    assert count_params(**{k: v for k, v in gpt2.items() if k != "model_type"},
                        fam=family("gpt2")) == 124_439_808  # fmt: skip


def test_csv_params_equal_our_function_for_every_row():
    for m in catalog._llm_entries():
        if m.is_moe:  # total = always-on + routed; active = always-on + top-k of the routed
            assert 0 < m.params_routed_b < m.params_b, m.name
            active = m.params_always_b + m.params_routed_b * m.n_experts_active / m.n_experts
            assert m.params_active_b == pytest.approx(active, abs=2e-5), m.name
        else:
            assert m.params_b == pytest.approx(params_b_of(**arch(m)), abs=1e-6), m.name


# ---------------------------------------------------------------- LLM catalog


def test_llm_catalog_has_all_42_dense_wattgpu_models_and_60_in_all():
    table = wl.llms()
    assert len(WATTGPU_DENSE) == 42 and len(table) >= 60
    assert set(table.loc[table.in_wattgpu, "name"]) == set(WATTGPU_DENSE)
    assert list(table.columns) == [f.name for f in fields(wl.LLM) if f.name not in ECHO_FIELDS]


@pytest.mark.skipif(not RUNS.is_file(), reason="data/watt_counts_runs.csv not built yet")
def test_every_measured_llm_and_gpu_is_in_the_catalogs():
    runs = pd.read_csv(RUNS, usecols=["llm", "gpu", "gpu_smi_name", "dense"])
    assert set(runs.loc[runs.dense, "llm"]) <= set(wl.llms().name)
    for gpu_name, smi in runs[["gpu", "gpu_smi_name"]].drop_duplicates().itertuples(index=False):
        assert wl.gpu(smi).name == gpu_name and wl.gpu(gpu_name).measured


def test_wattgpu_nominal_params_are_wattgpu_total_b_params():
    assert wl.llm("meta-llama/Llama-3.1-8B-Instruct").params_nominal_b == 8.03
    assert wl.llm("EleutherAI/gpt-neox-20b").params_nominal_b == 20.0
    assert wl.llm("nvidia/Llama-3.1-Minitron-4B-Width-Base").params_nominal_b == 5.0
    assert wl.llm("EleutherAI/gpt-neox-20b").params_b == pytest.approx(20.55, abs=0.01)


def test_tokens_to_watt_hours_dense_models_are_in_the_catalog():
    for name in ["Qwen/Qwen3-1.7B", "Qwen/Qwen3-8B", "Qwen/Qwen3-32B", "Qwen/Qwen2.5-72B",
                 "meta-llama/Llama-3.3-70B-Instruct", "ibm-granite/granite-3.3-8b-instruct",
                 "mistralai/Mistral-Small-24B-Base-2501", "meta-llama/Llama-3.1-8B",
                 "meta-llama/Meta-Llama-3-70B"]:  # fmt: skip
        assert wl.llm(name).name == name


def test_llm_lookup_by_short_name_and_case():
    m = wl.llm("llama-3.1-8b-instruct")
    assert m is wl.llm("META-LLAMA/Llama-3.1-8B-Instruct") and m.in_wattgpu
    assert m.kv_bytes_per_token == 2 * 32 * 8 * 128 * 2
    assert "8.03 B params" in repr(m)


def test_unknown_llm_lists_close_matches():
    with pytest.raises(UnknownLLMError, match="Close matches: .*Llama-3.1-8B") as err:
        wl.llm("Llama-3.1-8B-Instruc")
    assert "from_hf_config" in str(err.value)


# ---------------------------------------------------------------- GPU catalog


def test_gpu_catalog_has_20_gpus_including_the_8_measured():
    table = wl.gpus()
    assert len(table) >= 20 and list(table.columns) == [f.name for f in fields(wl.GPU)]
    assert set(table.loc[table.measured, "name"]) == set(MEASURED)


@pytest.mark.parametrize("name", MEASURED)
def test_measured_gpus_use_the_wattgpu_rows(name):
    """WattGPU's reproduction sees exactly the paper's rows (paper_gpu); the catalog too, but for
    the H200 NVL, whose catalog row is NVIDIA's (tests/specs/test_catalog_rows_agree...)."""
    g = paper_gpu(name)
    got = (g.bandwidth_gbs, g.fp16_tflops, g.tdp_w, g.base_clock_mhz, g.boost_clock_mhz,
           g.transistors_m, g.release_year)  # fmt: skip
    assert got == MEASURED[name] and g.measured and g.smi_name


def test_corrected_tdps_and_smi_names():
    # the runs' "NVIDIA H200" keeps its label; the paper corrected its TDP to 700 W, NVIDIA's NVL is 600 W
    assert wl.gpu("NVIDIA H200").name == "H200 NVL" and wl.gpu("NVIDIA H200").tdp_w == 600
    assert paper_gpu("NVIDIA H200").tdp_w == 700
    assert wl.gpu("L40S").tdp_w == 350
    assert wl.gpu("Tesla V100-SXM2-32GB").name == "V100 SXM2 32GB"


@pytest.mark.parametrize(
    ("alias", "name"),
    [("h100nvl", "H100 NVL"), ("A100-SXM4-40GB", "A100 SXM4 40GB"), ("nvidia a30", "A30"),
     ("Tesla T4", "T4"), ("NVIDIA L4", "L4"), ("a100 sxm4 40 gb", "A100 SXM4 40GB")],
)  # fmt: skip
def test_gpu_aliases_ignore_case_spaces_and_hyphens(alias, name):
    assert wl.gpu(alias).name == name


def test_fp16_is_dense_never_sparse():
    assert wl.gpu("H100 SXM").fp16_tflops == 989  # sparse would be 1979
    table = wl.gpus().dropna(subset=["fp8_tflops"])
    assert (table.fp8_tflops >= 1.9 * table.fp16_tflops).all()  # FP8 dense = 2x FP16 dense


def test_every_gpu_row_has_a_source_and_plausible_values():
    table = wl.gpus()
    assert table.source.str.len().gt(10).all()
    assert (table.boost_clock_mhz.dropna() >= table.base_clock_mhz.dropna().min()).all()
    assert table.release_year.between(2017, 2025).all()


def test_unknown_gpu_lists_close_matches():
    with pytest.raises(UnknownGPUError, match="Close matches: 'H100 NVL'") as err:
        wl.gpu("H100 NLV")
    assert "GPU.from_spec" in str(err.value)


# ---------------------------------------------------------------- GPU.from_spec

SPEC = {"name": "My GPU", "release_year": 2024, "boost_clock_mhz": 1800, "memory_gb": 48,
        "memory_type": "HBM3", "bandwidth_gbs": 2000, "tdp_w": 300, "fp16_tflops": 400}  # fmt: skip


def test_from_spec_fills_optional_fields_with_nan_and_defaults():
    g = wl.GPU.from_spec(SPEC)
    assert math.isnan(g.transistors_m) and math.isnan(g.fp8_tflops) and math.isnan(g.base_clock_mhz)
    assert (g.vendor, g.measured, g.smi_name, g.source) == ("unknown", False, "", "user spec")


def test_from_spec_round_trips_a_catalog_gpu():
    g = wl.gpu("H100 NVL")
    assert wl.GPU.from_spec(dict(g.__dict__)) == g


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [({"fp16_tflops": 0}, "fp16_tflops", "from 1 to 100000 TFLOPS"),
     ({"fp8_tflops": -1}, "fp8_tflops", "from 1 to 200000 TFLOPS"),
     ({"bandwidth_gbs": 0}, "bandwidth_gbs", "from 20 to 100000 GB/s"),
     ({"memory_gb": -8}, "memory_gb", "from 1 to 4096 GB"),
     ({"base_clock_mhz": 2000}, "boost_clock_mhz", "< base"),
     ({"release_year": 1980}, "release_year", "from 1995 to 2035"),
     ({"tdp_w": "lots"}, "tdp_w", "must be a number"),
     ({"tdp_w": True}, "tdp_w", "must be a number, got True"),
     ({"tdp_w": float("inf")}, "tdp_w", "must be finite"),
     ({"measured": "false"}, "measured", "must be a boolean"),
     ({"idle_power_w": 350}, "idle_power_w", "not below tdp_w"),
     ({"sm_count": 13.5}, "sm_count", "whole number"),
     ({"tdp": 300}, "tdp", "valid keys")],
)  # fmt: skip
def test_from_spec_names_the_bad_field(change, field, words):
    with pytest.raises(SpecError, match=words) as err:
        wl.GPU.from_spec(SPEC | change)
    assert repr(field) in str(err.value)


@pytest.mark.parametrize("field", ["name", "fp16_tflops", "bandwidth_gbs", "memory_gb", "tdp_w"])
def test_from_spec_missing_required_field(field):
    spec = {k: v for k, v in SPEC.items() if k != field}
    with pytest.raises(SpecError, match=f"'{field}': is required"):
        wl.GPU.from_spec(spec)


# ---------------------------------------------------------------- LLM.from_hf_config


def test_gpt2_spellings_and_learned_positions():
    m = wl.LLM.from_hf_config(FIXTURES / "gpt2.json")
    assert (m.n_layers, m.hidden_size, m.n_heads, m.n_kv_heads) == (12, 768, 12, 12)
    assert (m.intermediate_size, m.context_length, m.tie_embeddings) == (3072, 1024, True)
    assert m.params_b == wl.llm("openai-community/gpt2").params_b


def test_gptj_untied_plain_mlp():
    m = wl.LLM.from_hf_config(FIXTURES / "gptj.json")
    assert (m.intermediate_size, m.tie_embeddings, m.mlp_type, m.head_dim) == (
        16384,
        False,
        "plain",
        256,
    )
    assert m.params_b == pytest.approx(6.05, rel=0.001)


def test_gpt_neox_without_kv_heads_key_uses_heads():
    m = wl.LLM.from_hf_config(FIXTURES / "gpt_neox.json")
    assert m.n_kv_heads == m.n_heads == 16
    assert m.params_b == wl.llm("EleutherAI/pythia-1.4b").params_b


def test_falcon_multi_query_and_new_decoder_architecture():
    m = wl.LLM.from_hf_config(FIXTURES / "falcon.json")
    assert (m.n_heads, m.n_kv_heads, m.head_dim, m.intermediate_size) == (71, 1, 64, 4 * 4544)
    assert m.params_b == wl.llm("tiiuae/falcon-7b").params_b
    cfg = json.loads((FIXTURES / "falcon.json").read_text())
    new = wl.LLM.from_hf_config(cfg | {"new_decoder_architecture": True, "num_kv_heads": 71})
    assert new.n_kv_heads == 71  # new architecture: num_kv_heads, two LayerNorms per block
    extra_kv, extra_norms = 32 * 2 * 4544 * 70 * 64, 32 * 2 * 4544
    assert new.params_b == pytest.approx(m.params_b + (extra_kv + extra_norms) / 1e9, abs=2e-6)


def test_gemma3_nested_text_config_and_explicit_head_dim():
    m = wl.LLM.from_hf_config(FIXTURES / "gemma3.json")
    assert m.model_type == "gemma3" and m.head_dim == 128 != m.hidden_size // m.n_heads
    assert m.params_b == wl.llm("google/gemma-3-27b-it").params_b  # vision tower not counted
    assert m.tie_embeddings and m.name == "google/gemma-3-27b-it"


def test_moe_and_quantised_toy_configs_are_read_not_refused():
    moe = wl.LLM.from_hf_config(FIXTURES / "mixtral_moe.json")
    assert (moe.n_experts, moe.n_experts_active, moe.n_moe_layers, moe.is_moe) == (8, 2, 4, True)
    expert = 3 * 1024 * 3584  # gated expert: gate, up, down
    assert moe.params_expert_b == pytest.approx(expert / 1e9)
    gathered = 32000 * 1024  # the untied input table: a token gathers one row of it
    assert moe.params_b - moe.params_active_b == pytest.approx((4 * 6 * expert + gathered) / 1e9,
                                                               abs=1e-6)  # fmt: skip
    awq = wl.LLM.from_hf_config(FIXTURES / "llama_awq.json")
    assert (awq.weight_format, awq.is_moe) == ("int4", False)
    assert 4 < awq.weight_bits < 16  # 4 + 20/128 for the linear layers, 16 for the embeddings


def test_mamba_toy_config_is_refused_with_the_reason():
    with pytest.raises(UnsupportedModelError, match="recurrent .*state_size.*KV cache"):
        wl.LLM.from_hf_config(FIXTURES / "mamba.json")


def test_moe_keys_inside_text_config_are_read_and_zero_heads_refused():
    cfg = json.loads((FIXTURES / "gemma3.json").read_text())
    cfg["text_config"] |= {"n_routed_experts": 64, "num_experts_per_tok": 4}
    assert wl.LLM.from_hf_config(cfg).n_experts == 64
    dense = json.loads((FIXTURES / "gpt_neox.json").read_text())
    with pytest.raises(UnsupportedModelError, match="0 attention heads"):
        wl.LLM.from_hf_config(dense | {"num_attention_heads": 0})


def test_missing_field_names_the_spellings_looked_for():
    cfg = json.loads((FIXTURES / "gpt_neox.json").read_text())
    del cfg["hidden_size"]
    with pytest.raises(ConfigError, match="'hidden_size'.*n_embd"):
        wl.LLM.from_hf_config(cfg)
    del cfg["intermediate_size"]  # plain MLPs default to 4·d, gated ones must say
    cfg = cfg | {"hidden_size": 2048, "model_type": "llama"}
    with pytest.raises(ConfigError, match="'intermediate_size'.*ffn_hidden_size"):
        wl.LLM.from_hf_config(cfg)


def test_missing_file_and_bad_json_raise_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        wl.LLM.from_hf_config(tmp_path / "nope.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        wl.LLM.from_hf_config(tmp_path / "bad.json")


# ---------------------------------------------------------------- data files


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A writable copy of the catalog CSVs that the loaders read instead of data/."""
    for name in ("gpus.csv", "llms.csv", "llm_aliases.csv"):
        (tmp_path / name).write_text((catalog.data_dir() / name).read_text())
    monkeypatch.setattr(catalog, "data_dir", lambda: tmp_path)
    caches = (catalog._gpu_entries, catalog._llm_entries, catalog._gpu_index, catalog._llm_index,
              catalog._alias_entries)  # fmt: skip
    for f in caches:
        f.cache_clear()
    yield tmp_path
    monkeypatch.undo()
    for f in caches:
        f.cache_clear()


def test_data_dir_is_the_source_tree_data_folder():
    assert (catalog.data_dir() / "gpus.csv").is_file()


@pytest.mark.parametrize(
    ("file", "edit", "words"),
    [("gpus.csv", lambda t: t.drop(columns="tdp_w"), "gpus.csv: column 'tdp_w' is missing"),
     ("gpus.csv", lambda t: t.assign(tdp_w=-1.0), "gpus.csv: row 'V100 SXM2 32GB', column 'tdp_w'"),
     ("gpus.csv", lambda t: t.assign(fp16_tflops=None), "column 'fp16_tflops'.*required"),
     ("gpus.csv", lambda t: t.assign(extra=1), "unexpected column.*extra"),
     ("llms.csv", lambda t: t.assign(n_layers=0), "llms.csv: row .*n_layers must be > 0"),
     ("llms.csv", lambda t: t.assign(head_dim=None), "llms.csv: row .*column 'head_dim'"),
     ("llms.csv", lambda t: t.drop(columns="params_b"), "llms.csv: column 'params_b'")],
)  # fmt: skip
def test_broken_data_files_raise_data_file_error(data_copy, file, edit, words):
    path = data_copy / file
    edit(pd.read_csv(path)).to_csv(path, index=False)
    with pytest.raises(DataFileError, match=words):
        wl.gpus() if file == "gpus.csv" else wl.llms()
