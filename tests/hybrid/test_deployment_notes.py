"""wl.predict, wl.explain and wl.estimate_energy tell the reader the same things about how a
deployment runs (energy.notes.layout_notes): a format without its own tensor cores, KV heads a
tensor-parallel group replicates. Before, only the estimate said so."""

from __future__ import annotations

import pytest

import wattgpu_lite as wl

CASES = [
    # (llm, gpu, num_gpus, weights, the note's words)
    ("meta-llama/Llama-3.1-8B-Instruct", "A30", 1, "fp8", "A30 has no FP8 tensor cores"),
    ("Qwen/Qwen3-30B-A3B", "H100 SXM", 8, None, "tp=8 > 4 KV heads: vLLM replicates KV heads"),
]


@pytest.mark.parametrize(("llm", "gpu", "num_gpus", "weights", "words"), CASES)
def test_every_answer_carries_the_deployment_note(llm, gpu, num_gpus, weights, words):
    kw = {"num_gpus": num_gpus, "weights": weights}
    predicted = wl.predict(llm, gpu, rate_qps=0.5, **kw).notes
    explained = wl.explain(llm, gpu, rate_qps=0.5, **kw).prediction.notes
    estimated = wl.estimate_energy(llm, gpu, **kw).notes
    for notes in (predicted, explained, estimated):
        assert sum(words in note for note in notes) == 1, notes
    (said,) = (note for note in predicted if words in note)
    assert f"{said}." in estimated  # the same sentence; the estimate's end with a full stop
    assert explained == predicted


def test_no_note_where_the_format_has_its_tensor_cores():
    notes = wl.predict(
        "meta-llama/Llama-3.1-8B-Instruct", "H100 SXM", rate_qps=0.5, weights="fp8"
    ).notes
    assert not any("tensor cores" in note for note in notes)
