"""Build data/llms.csv from the shared reference tables (not run by the tests).

    .venv/bin/python data/scripts/build_llms.py [REFERENCE_DIR]

1. Every dense LLM of the Watt Counts runs (wattcounts/watt_counts_runs.csv, `model` column): its
   config fields from wattgpu/model_features.csv (WattGPU @ 4e010359, ';'-separated) are turned back
   into a config dict and parsed by LLM.from_hf_config, the kit's own parser. MoE (total != active
   parameters, or expert keys) and attention-free models are left out, as WattGPU does.
   params_nominal_b = WattGPU's total_b_params.
2. More dense decoders from specs/llms.csv (HF config.json values), except the families whose
   blocks our recipe table does not describe exactly (see SKIP). params_nominal_b = the reported
   count when there is one, else our computed count.
3. MoE and large models from the real config.json corpus in tests/fixtures/configs/ (CORPUS:
   Hub id, corpus file, published total in billions and where it is published). Each row is the
   corpus file parsed by LLM.from_hf_config; params_nominal_b = the published total. A model whose
   exact config was not found is left out (see data/SOURCES.md), unless the authors published an
   architecture table, transcribed as ``<org>__<model>.table.json`` (config_kind published_table in
   the corpus index.csv): GLM-4.5-Air (report Table 1) and Phi-3.5-MoE (Microsoft's PhiMoEConfig).
4. Checkpoints whose exact config.json was not found but whose architecture is a corpus file with
   a stated change (DERIVED: Hub id, corpus file, the keys changed, published total, source), e.g.
   Meta's FP8 release of Llama-3.1-405B: the base config with its quantisation method set.
params_b is always our own count from the architecture. Checkpoint ids that share one of these
architectures (Instruct, 2507 and FP8 releases, renamed versions) are rows of data/llm_aliases.csv,
not of llms.csv (written by hand, one source per row; see wattgpu_lite/specs/aliases.py).
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd

from wattgpu_lite.errors import UnsupportedModelError
from wattgpu_lite.specs.llm import ECHO_FIELDS, LLM, params_b_of
from wattgpu_lite.specs.window import read_window

OUT = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parents[1] / "llms.csv"
REF = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/reference")
WG_SOURCE = "WattGPU model_features.csv @4e010359 (HF config.json of {name})"
# specs/llms.csv rows left out, and why
SKIP = {
    "facebook/opt-350m": "project_in/out (word_embed_proj_dim 512) and post-LN are not modelled",
    "microsoft/Phi-3-small-8k-instruct": "custom phi3small blocks (trust_remote_code)",
    "stabilityai/stablelm-2-1_6b": "qkv bias not confirmed from a config text",
}
CORPUS_DIR = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "configs"
# (Hub id, corpus file, published total B, source of that figure, 16-bit weights instead of the file's)
CORPUS = [
    ("openai/gpt-oss-20b", "openai__gpt-oss-20b.json", 21.0, "NVIDIA NeMo docs, GPT-OSS 20B: 21B (3.6B active)", False),
    ("openai/gpt-oss-120b", "openai__gpt-oss-120b.json", 117.0, "NVIDIA NeMo docs, GPT-OSS 120B: 117B (5.1B active)", False),
    ("unsloth/gpt-oss-20b-BF16", "openai__gpt-oss-20b.json", 21.0, "gpt-oss-20b architecture with BF16 weights (the repo's dequantised checkpoint)", True),
    ("Qwen/Qwen3-30B-A3B", "Qwen__Qwen3-30B-A3B.json", 30.0, "NVIDIA NeMo docs, Qwen3 MoE: 30B total, 3B activated", False),
    ("Qwen/Qwen3-30B-A3B-FP8", "Qwen__Qwen3-30B-A3B-FP8.json", 30.0, "NVIDIA NeMo docs, Qwen3 MoE: 30B total, 3B activated", False),
    ("Qwen/Qwen3-235B-A22B", "Qwen__Qwen3-235B-A22B.json", 235.0, "NVIDIA NeMo docs, Qwen3 MoE: 235B total, 22B activated", False),
    ("Qwen/Qwen3-235B-A22B-FP8", "Qwen__Qwen3-235B-A22B-FP8.json", 235.0, "NVIDIA NeMo docs, Qwen3 MoE: 235B total, 22B activated", False),
    ("deepseek-ai/DeepSeek-V3", "deepseek-ai__DeepSeek-V3.json", 671.0, "DeepSeek-V3 model card: 671B total, 37B activated", False),
    ("deepseek-ai/DeepSeek-R1", "deepseek-ai__DeepSeek-R1.json", 671.0, "DeepSeek-V3 model card (R1 shares the V3 architecture): 671B, 37B activated", False),
    ("mistralai/Mixtral-8x7B-v0.1", "mistralai__Mixtral-8x7B-v0.1.json", 46.7, "Mistral AI, Mixtral of experts announcement: 46.7B total, 12.9B per token (not re-opened in this session)", False),
    ("mistralai/Mixtral-8x22B-v0.1", "mistralai__Mixtral-8x22B-v0.1.json", 141.0, "Mistral AI, Mixtral 8x22B announcement: 141B, 39B active (not re-opened in this session)", False),
    ("allenai/OLMoE-1B-7B-0924", "interview-eval__olmoe-math-train-gsm8k-2.json", 6.9, "OLMoE paper/card 6.9B total, 1.3B active (not re-opened in this session); config of a fine-tune of OLMoE-1B-7B-0924-Instruct, same architecture", False),
    ("Qwen/Qwen1.5-MoE-A2.7B-Chat", "MaziyarPanahi__Qwen1.5-MoE-A2.7B-Wikihow.json", 14.3, "Qwen1.5-MoE-A2.7B card: 14.3B total, 2.7B activated (not re-opened in this session); config of a fine-tune of Qwen1.5-MoE-A2.7B, same architecture", False),
    ("databricks/dbrx-instruct", "amd__dbrx-instruct-FP8-KV.json", 132.0, "transformers DBRX docs: 132B total, 36B active; architecture of the AMD FP8 re-quantisation, BF16 weights", True),
    ("meta-llama/Llama-3.1-405B", "meta-llama__Llama-3.1-405B.json", 405.0, "Llama 3.1 model card, Params 405B (not re-opened in this session)", False),
    ("zai-org/GLM-4.5-Air", "zai-org__GLM-4.5-Air.table.json", 106.0, "GLM-4.5 technical report (arXiv:2508.06471) Table 1: 106B total, 12B activated (MTP layer counted, word embeddings and output layer not)", False),
    ("microsoft/Phi-3.5-MoE-instruct", "microsoft__Phi-3.5-MoE-instruct.table.json", 42.0, "42B total (third-party page, see index.csv), 6.6B active (model card)", False),
    ("moonshotai/Kimi-K2-Instruct", "moonshotai__Kimi-K2-Instruct.json", 1026.408, "our count (no published total re-checked)", False),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "meta-llama__Llama-4-Scout-17B-16E-Instruct.json", 109.0, "transformers Llama4 docs: ~109B total with the vision encoder, 17B active; our count is the language model (trimmed vendored config)", False),
    ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "meta-llama__Llama-4-Maverick-17B-128E-Instruct.json", 400.0, "transformers Llama4 docs: ~400B total with the vision encoder, 17B active; our count is the language model (trimmed vendored config)", False),
]  # fmt: skip
# (Hub id, corpus file of the architecture, config keys set, published total B, source)
DERIVED = [
    ("meta-llama/Llama-3.1-405B-FP8", "meta-llama__Llama-3.1-405B.json",
     {"quantization_config": {"quant_method": "fbgemm_fp8"}}, 405.0,
     "Meta's FP8 release of Llama-3.1-405B (listed in Meta's Llama 3.1 collection, "
     "https://huggingface.co/collections/meta-llama/metas-llama-31-models-and-evals-675bfd70e574a62dd0e40565, "
     "opened in this session); its config.json was not found: architecture = the corpus Llama-3.1-405B "
     "config, weights fbgemm_fp8 with the kit's rule (every linear layer in FP8, embeddings and LM head "
     "16-bit); the Llama 3 paper's FP8 scope (attention and the first and last layers kept in 16 bits; "
     "not re-opened in this session) would give more bits per weight, so weight_bits is a lower bound; "
     "published total: Llama 3.1 model card, Params 405B (not re-opened in this session)"),
]  # fmt: skip
WG_DERIVED = {"model_name", "model_upload_date", "total_b_params", "active_b_params"}


def config_of(row: pd.Series) -> dict:
    """The config dict a model_features row was flattened from (text_config parsed back)."""
    cfg = {
        k: (v.item() if hasattr(v, "item") else v)
        for k, v in row.items()
        if k not in WG_DERIVED and not _blank(v)
    }  # numpy scalars -> Python
    if "text_config" in cfg:
        cfg["text_config"] = ast.literal_eval(cfg["text_config"])
    return cfg


def _blank(value) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def wattgpu_llms(ref: Path) -> list[dict]:
    feats = pd.read_csv(ref / "wattgpu/model_features.csv", sep=";").set_index("model_name")
    measured = pd.read_csv(ref / "wattcounts/watt_counts_runs.csv")["model"].unique()
    rows = []
    for name in sorted(measured):
        row = feats.loc[name]
        if row.total_b_params != row.active_b_params:
            continue
        try:
            llm = LLM.from_hf_config(config_of(row), name=name)
        except UnsupportedModelError:
            continue
        rows.append(_row(llm, float(row.total_b_params), True, WG_SOURCE.format(name=name)))
    return rows


def spec_llms(ref: Path, taken: set[str]) -> list[dict]:
    specs = pd.read_csv(ref / "specs/llms.csv")
    rows = []
    for s in specs.itertuples():
        if s.hf_id in taken or s.hf_id in SKIP or _blank(s.max_position_embeddings):
            continue  # BLOOM (ALiBi) has no context length in its config
        fields = {
            "model_type": s.model_type.split(" ")[0], "n_layers": s.num_hidden_layers,
            "hidden_size": s.hidden_size, "intermediate_size": s.intermediate_size,
            "n_heads": s.num_attention_heads, "n_kv_heads": s.num_key_value_heads,
            "head_dim": int(s.head_dim) if not _blank(s.head_dim)
            else s.hidden_size // s.num_attention_heads,
            "vocab_size": s.vocab_size, "context_length": int(s.max_position_embeddings),
            "tie_embeddings": str(s.tie_word_embeddings) == "True",
            "mlp_type": "gated" if s.mlp_type.startswith("gated") else "plain",
        }  # fmt: skip
        params_b = params_b_of(**fields)
        window = str(s.sliding_window)  # a number, empty, or "(use_sliding_window=false)"
        cfg = {"sliding_window": int(window) if window.isdigit() else None}
        width, layers = read_window(cfg, fields["model_type"], fields["n_layers"],
                                    fields["context_length"])  # fmt: skip
        fields |= {"sliding_window": width, "n_sliding_layers": layers}
        nominal = params_b if _blank(s.params_reported_b) else float(s.params_reported_b)
        llm = LLM(name=s.hf_id, **fields, params_b=params_b, params_nominal_b=nominal,
                  in_wattgpu=False, source="specs/llms.csv: " + s.source)  # fmt: skip
        rows.append(_row(llm, nominal, False, llm.source, check=s.params_computed_b))
    return rows


def corpus_llms(taken: set[str]) -> list[dict]:
    """MoE and large models parsed from the real config.json corpus (see CORPUS)."""
    rows = []
    for hub_id, file, nominal, where, bf16 in CORPUS:
        if hub_id in taken:
            continue
        llm = LLM.from_hf_config(CORPUS_DIR / file, name=hub_id)
        if bf16:
            llm = replace(
                llm,
                weight_format="bf16",
                weight_bits=16.0,
                weight_bits_always=16.0,
                weight_bits_expert=16.0,
            )
        kind = (
            "published architecture table" if file.endswith(".table.json") else "config.json corpus"
        )
        source = f"{kind} {file}; published total: {where}"
        rows.append(_row(llm, nominal, False, source))
    return rows


def derived_llms(taken: set[str]) -> list[dict]:
    """Checkpoints built from a corpus architecture with the keys DERIVED states (see DERIVED)."""
    rows = []
    for hub_id, file, keys, nominal, where in DERIVED:
        if hub_id in taken:
            continue
        cfg = json.loads((CORPUS_DIR / file).read_text()) | keys
        llm = LLM.from_hf_config(cfg, name=hub_id)
        rows.append(_row(llm, nominal, False, f"config.json corpus {file} + {keys}; {where}"))
    return rows


def _row(llm: LLM, nominal: float, in_wg: bool, source: str, check: float | None = None) -> dict:
    """One CSV row; warns when our count and the reference's computed count differ by > 0.5 %."""
    if check is not None and abs(llm.params_b / check - 1) > 0.005:
        print(f"note: {llm.name}: ours {llm.params_b:.3f} B vs reference computed {check} B")
    fields = {k: v for k, v in llm.__dict__.items() if k not in ECHO_FIELDS}
    return fields | {"params_nominal_b": nominal, "in_wattgpu": in_wg, "source": source}


if __name__ == "__main__":
    wg = wattgpu_llms(REF)
    rows = wg + spec_llms(REF, {r["name"] for r in wg})
    rows += corpus_llms({r["name"] for r in rows})
    table = pd.DataFrame(rows + derived_llms({r["name"] for r in rows}))
    assert table.name.is_unique
    table.to_csv(OUT, index=False)
    print(f"{len(table)} LLMs ({int(table.in_wattgpu.sum())} from WattGPU) -> {OUT}")
