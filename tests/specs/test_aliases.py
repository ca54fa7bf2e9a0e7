"""Checkpoint ids resolve to the architecture rows they share (data/llm_aliases.csv): every alias
answers through wl.llm, predict, predict_many, rank_gpus and the CLI, results echo both names, the
architectures' counts match the published totals and active counts, and bad rows or unknown ids
fail saying what to do."""

import json
from pathlib import Path

import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.__main__ import main
from wattgpu_lite.errors import ConfigError, DataFileError, UnknownLLMError
from wattgpu_lite.specs import catalog
from wattgpu_lite.specs.resolve import resolve_llm

CONFIGS = Path(__file__).parents[1] / "fixtures" / "configs"

ALIASES = wl.llm_aliases()
IDS = list(ALIASES["alias"])
# checkpoints of families in the catalog: each must be answered
NAMED = ["Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen/Qwen3-235B-A22B-Thinking-2507",
         "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "Qwen/Qwen3-30B-A3B-Instruct-2507",
         "Qwen/Qwen3-30B-A3B-Thinking-2507", "deepseek-ai/DeepSeek-V3.1",
         "deepseek-ai/DeepSeek-R1-0528", "meta-llama/Llama-3.1-70B-Instruct",
         "meta-llama/Llama-3.1-405B-Instruct", "meta-llama/Llama-3.1-405B-Instruct-FP8"]  # fmt: skip
# (alias, published total B, published active B or None, where) — each within 3 % of our count
PUBLISHED = [
    ("Qwen/Qwen3-30B-A3B-Instruct-2507", 30.5, 3.3, "its model card: '30.5B in total and 3.3B activated'"),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507", 235, 22, "NVIDIA NeMo docs, Qwen3 MoE: 235B total, 22B activated"),
    ("deepseek-ai/DeepSeek-V3.1", 671, 37, "DeepSeek-V3 card: 671B total, 37B activated; OpenRouter: 671B, 37B active"),
    ("deepseek-ai/DeepSeek-R1-0528", 671, 37, "DeepSeek-V3 card (R1 shares the V3 architecture)"),
    ("meta-llama/Llama-3.1-70B-Instruct", 70, None, "Llama 3.1 model card, 70B"),
    ("meta-llama/Llama-3.1-405B-Instruct", 405, None, "Llama 3.1 model card, 405B"),
    ("meta-llama/Llama-3.1-405B-Instruct-FP8", 405, None, "Llama 3.1 model card, 405B"),
    ("Qwen/Qwen2.5-72B-Instruct", 72.7, None, "Qwen2.5 blog specification table, 72.7B"),
    ("Qwen/Qwen2.5-32B-Instruct", 32.5, None, "Qwen2.5 blog specification table, 32.5B"),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", 46.7, 12.9, "Mixtral announcement: 46.7B, 12.9B per token"),
    ("mistralai/Mixtral-8x22B-Instruct-v0.1", 141, 39, "Mixtral 8x22B announcement: 141B, 39B active"),
]  # fmt: skip
ARCH_FIELDS = ["model_type", "n_layers", "hidden_size", "intermediate_size", "n_heads",
               "n_kv_heads", "head_dim", "vocab_size", "tie_embeddings", "mlp_type", "n_experts",
               "n_experts_active", "params_b", "params_active_b", "weight_bits"]  # fmt: skip


def test_the_named_checkpoints_are_aliases_with_a_source_each():
    assert set(NAMED) <= set(IDS) and len(IDS) >= 15
    assert ALIASES["source"].str.len().min() > 80  # a quoted, located source, not a bare name
    assert not set(IDS) & set(wl.llms()["name"])  # an alias is never also a catalog row


@pytest.mark.parametrize("row", ALIASES.to_dict(orient="records"), ids=IDS)
def test_every_alias_resolves_to_its_architecture_and_echoes_both(row):
    m, arch = wl.llm(row["alias"]), wl.llm(row["architecture"])
    assert (m.name, m.architecture, m.architecture_name) == (row["alias"], arch.name, arch.name)
    assert all(getattr(m, f) == getattr(arch, f) for f in ARCH_FIELDS)
    assert m.weight_format == row["weight_format"] == arch.weight_format
    ctx = row["context_length"]
    assert m.context_length == (arch.context_length if pd.isna(ctx) else int(ctx))
    assert not m.in_wattgpu and row["source"] in m.source
    assert wl.llm(row["alias"].split("/")[-1].lower()) == m  # the part after "/" works too


def test_fp8_names_resolve_to_fp8_architectures():
    fp8 = ALIASES[ALIASES["alias"].str.endswith("-FP8")]
    assert len(fp8) >= 4 and (fp8["weight_format"] == "fp8").all()
    assert all(wl.llm(a).weight_bits < 9 for a in fp8["alias"])


@pytest.mark.parametrize("alias, total, active, where", PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_total_and_active_counts_within_3_percent(alias, total, active, where):
    m = wl.llm(alias)
    assert m.params_b / total - 1 == pytest.approx(0, abs=0.03), where
    if active is not None:  # these publishers count the input embedding as active: so do we here
        with_table = m.params_active_b + m.params_gathered_b
        assert with_table / active - 1 == pytest.approx(0, abs=0.03), where


def test_instruct_releases_share_the_base_architecture_where_both_are_rows():
    """The oracle behind the Instruct aliases: where llms.csv holds a base model and its Instruct
    release from their own configs, the architecture fields are equal (context may differ)."""
    pairs = [("meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-8B-Instruct"),
             ("Qwen/Qwen2.5-7B", "Qwen/Qwen2.5-7B-Instruct"),
             ("Qwen/Qwen2.5-3B", "Qwen/Qwen2.5-3B-Instruct"),
             ("meta-llama/Llama-3.1-70B", "meta-llama/Llama-3.3-70B-Instruct")]  # fmt: skip
    for base, instruct in pairs:
        a, b = wl.llm(base), wl.llm(instruct)
        assert [getattr(a, f) for f in ARCH_FIELDS] == [getattr(b, f) for f in ARCH_FIELDS]


def test_predict_answers_an_alias_with_its_architectures_numbers_and_names_both():
    p = wl.predict("Qwen/Qwen3-235B-A22B-Instruct-2507", "H200 NVL", rate_qps=0.1, num_gpus=4)
    q = wl.predict("Qwen/Qwen3-235B-A22B", "H200 NVL", rate_qps=0.1, num_gpus=4)
    assert p.inputs.llm == "Qwen/Qwen3-235B-A22B-Instruct-2507"
    assert p.inputs.llm_architecture == "Qwen/Qwen3-235B-A22B" == q.inputs.llm_architecture
    assert (p.power_w, p.itl_s, p.energy_per_token_j) == (q.power_w, q.itl_s, q.energy_per_token_j)
    d = json.loads(p.to_json())["inputs"]
    assert (d["llm"], d["llm_architecture"]) == (p.inputs.llm, p.inputs.llm_architecture)


def test_predict_many_answers_every_alias_and_echoes_both():
    frame = pd.DataFrame({"llm": IDS, "gpu": "H200 SXM", "rate_qps": 0.05, "num_gpus": 8})
    out = wl.predict_many(frame)
    assert list(out["llm"]) == IDS
    assert list(out["llm_architecture"]) == list(ALIASES["architecture"])
    assert (out["status"] == "ok").all(), out.loc[out["status"] != "ok", ["llm", "status"]]
    assert (out["energy_per_token_j"] > 0).all()


def test_estimate_energy_echoes_both_in_its_header_and_dict():
    e = wl.estimate_energy("meta-llama/Llama-3.1-70B-Instruct", gpu="H100 NVL", num_gpus=2)
    assert e.llm_architecture == "meta-llama/Llama-3.1-70B" == e.to_dict()["llm_architecture"]
    assert "(architecture meta-llama/Llama-3.1-70B)" in e.header()
    plain = wl.estimate_energy("meta-llama/Llama-3.1-70B", gpu="H100 NVL", num_gpus=2)
    assert plain.llm_architecture == plain.llm and e.total_j == plain.total_j


@pytest.mark.parametrize("alias", ["deepseek-ai/DeepSeek-V3.1", "Qwen/Qwen3-30B-A3B-Thinking-2507"])
def test_rank_gpus_accepts_an_alias_and_its_table_names_both(alias):
    t = wl.rank_gpus(alias, rate_qps=0.1, itl_sla_ms=100, source="hybrid", gpu_counts=(8,))
    assert (t["llm"] == alias).all()
    assert (t["llm_architecture"] == wl.llm(alias).architecture).all()


def test_cli_takes_an_alias(capsys):
    argv = ["predict", "--llm", "Qwen3-30B-A3B-Instruct-2507", "--gpu", "H100 NVL",
            "--rate-qps", "0.1", "--json"]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Qwen/Qwen3-30B-A3B-Instruct-2507" in text and '"Qwen/Qwen3-30B-A3B"' in text


def test_unknown_id_lists_close_aliases_and_says_how_to_pass_a_config():
    with pytest.raises(UnknownLLMError) as err:
        wl.llm("Qwen/Qwen3-235B-A22B-Instruct-2508")
    msg = str(err.value)
    assert "'Qwen/Qwen3-235B-A22B-Instruct-2507'" in msg
    assert "wl.LLM.from_hf_config(" in msg and "--llm path/to/config.json" in msg


@pytest.fixture
def alias_copy(tmp_path, monkeypatch):
    """A writable copy of the catalog CSVs (checksums skipped) that the loaders read instead."""
    for name in ("gpus.csv", "llms.csv", "llm_aliases.csv"):
        (tmp_path / name).write_text((catalog.data_dir() / name).read_text())
    monkeypatch.setattr(catalog, "data_dir", lambda: tmp_path)
    monkeypatch.setattr("wattgpu_lite.specs.aliases.read_csv", _unchecked_read_csv)
    monkeypatch.setattr(catalog, "read_csv", _unchecked_read_csv)
    caches = (catalog._llm_entries, catalog._alias_entries, catalog._llm_index)
    for f in caches:
        f.cache_clear()
    yield tmp_path / "llm_aliases.csv"
    monkeypatch.undo()
    for f in caches:
        f.cache_clear()


def _unchecked_read_csv(path, **options):
    return pd.read_csv(path, **options)


@pytest.mark.parametrize(
    "edit, match",
    [(lambda t: t.replace("Qwen/Qwen3-30B-A3B-FP8,", "Qwen/Qwen3-30B-A3B-FP9,", 1), "names no row"),
     (lambda t: t.replace("Qwen/Qwen3-30B-A3B-FP8,fp8", "Qwen/Qwen3-30B-A3B,fp8", 1), "weight_format"),
     (lambda t: t.replace("Qwen/Qwen3-30B-A3B-Instruct-2507,", "Qwen/Qwen3-30B-A3B,", 1), "itself a row"),
     (lambda t: t + t.splitlines()[1] + "\n", "duplicates"),
     (lambda t: t.replace(",262144,", ",-5,", 1), "context_length")],
    ids=["unknown architecture", "format mismatch", "alias is a row", "duplicate", "bad context"],
)  # fmt: skip
def test_a_bad_alias_row_is_a_data_file_error_naming_the_column(alias_copy, edit, match):
    alias_copy.write_text(edit(alias_copy.read_text()))
    with pytest.raises(DataFileError, match=match):
        wl.llm("Qwen/Qwen3-30B-A3B-Instruct-2507-FP8")


# checkpoints without an exact config.json in the catalog, and what answers them
ANSWERED_BY = {
    "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8": "Qwen/Qwen3-235B-A22B-FP8",  # alias
    "Qwen/Qwen3-30B-A3B-Instruct-2507": "Qwen/Qwen3-30B-A3B",  # alias
    "deepseek-ai/DeepSeek-V3.1": "deepseek-ai/DeepSeek-V3",  # alias
    "meta-llama/Llama-3.1-405B-Instruct-FP8": "meta-llama/Llama-3.1-405B-FP8",  # derived row
    "microsoft/Phi-3.5-MoE-instruct": "microsoft/Phi-3.5-MoE-instruct",  # published table
    "zai-org/GLM-4.5-Air": "zai-org/GLM-4.5-Air",  # published table
}


@pytest.mark.parametrize("name, architecture", ANSWERED_BY.items(), ids=list(ANSWERED_BY))
def test_a_checkpoint_without_its_own_config_is_answered_by_its_family(name, architecture):
    m = wl.llm(name)
    assert m.architecture_name == architecture and m.is_moe == ("Llama" not in name)
    p = wl.predict(name, "H200 SXM", batch=8, num_gpus=8)
    assert p.inputs.llm_architecture == architecture and p.energy_per_token_j > 0


def test_published_table_rows_say_so_in_their_source():
    for name in ("zai-org/GLM-4.5-Air", "microsoft/Phi-3.5-MoE-instruct"):
        assert wl.llm(name).source.startswith("published architecture table")
    assert "weight_bits is a lower bound" in wl.llm("meta-llama/Llama-3.1-405B-FP8").source


def test_cli_llms_aliases_lists_the_table_with_sources_in_json(capsys):
    assert main(["llms", "--aliases", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["alias"] for r in rows] == IDS and all(r["source"] for r in rows)
    ctx = {r["alias"]: r["context_length"] for r in rows}
    assert (
        ctx["Qwen/Qwen3-30B-A3B-Instruct-2507"] == 262144
        and ctx["deepseek-ai/DeepSeek-V3.1"] is None
    )


def test_a_config_naming_an_alias_is_that_alias_only_if_its_numbers_agree(tmp_path):
    """A config.json whose _name_or_path is a checkpoint alias resolves to the alias entry when its
    architecture is the alias's (Qwen3-30B-A3B's config with the 2507 context), and is refused
    when it would borrow the alias's name with other numbers."""
    base = json.loads((CONFIGS / "Qwen__Qwen3-30B-A3B.json").read_text())
    same = base | {"_name_or_path": "Qwen/Qwen3-30B-A3B-Instruct-2507",
                   "max_position_embeddings": 262144}  # fmt: skip
    assert resolve_llm(same) == wl.llm("Qwen/Qwen3-30B-A3B-Instruct-2507")
    with pytest.raises(ConfigError, match="other values"):
        resolve_llm(same | {"num_hidden_layers": 47})
