"""Notebook 01's glossary covers every symbol of every equation; bytes before joules by hand."""

import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import codegen as CG
from wattgpu_lite.energy import glossary as G
from wattgpu_lite.energy import symbolic as S
from wattgpu_lite.energy.traffic import bytes_table


def test_every_symbol_of_every_equation_has_a_unit_and_a_meaning():
    exprs = [S.flops_prefill, S.flops_decode, S.energy_request, S.energy_request_simple,
             S.flops_per_token_layer, S.prefill_attention_exact, *CG.generated_expressions()]  # fmt: skip
    symbols = set().union(*(e.free_symbols for e in exprs)) | set(CG.ARGS) | {S.j, S.i}
    missing = symbols - set(G.GLOSSARY)
    assert not missing, f"symbols without a glossary entry: {sorted(map(str, missing))}"
    table = G.glossary_markdown()
    assert table.count("\n") == len(G.GLOSSARY) + len(G.DERIVED) + 1
    assert all(G.GLOSSARY[s][1] for s in symbols)


def test_bytes_per_token_by_hand():
    m = wl.llm("meta-llama/Llama-3.1-8B-Instruct")
    t = bytes_table(m, 500, 500, 1).set_index(["phase", "component"])["bytes_per_output_token"]
    # every streamed weight (the untied input table is not: one row of d values a token is)
    streamed = m.params_b * 1e9 - m.vocab_size * m.hidden_size
    assert t["decode", "parameter_reads"] == pytest.approx(2 * (streamed + m.hidden_size))
    assert t["decode", "kv_writes"] == m.kv_bytes_per_token == 32 * 2 * 8 * 128 * 2
    assert t["decode", "attention_reads"] == pytest.approx(m.kv_bytes_per_token * (500 + 499 / 2))
    assert bytes_table(m, 500, 500, 8, "fp8").set_index(["phase", "component"]).loc[
        ("decode", "parameter_reads"), "bytes_per_output_token"] == pytest.approx(
        (streamed + 8 * m.hidden_size) / 8)  # fmt: skip
