"""FP32 weights are served in FP16 (as vLLM serves an FP32 checkpoint): the same numbers as FP16,
and the answer says so in its notes — asked (``weights="fp32"``) or the model's own format."""

from __future__ import annotations

import dataclasses

import pytest

import wattgpu_lite as wl

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
NOTE = "weights fp32 are served as fp16"


def _fp32_llama():
    return dataclasses.replace(wl.llm(LLAMA), weight_format="fp32", weight_bits=32.0)


@pytest.mark.parametrize("weights", ["fp32", "FP32"])
def test_predict_notes_fp32_asked_and_answers_as_fp16(weights):
    p, fp16 = (wl.predict(LLAMA, "A30", rate_qps=0.1, weights=w) for w in (weights, "fp16"))
    assert (p.power_w, p.itl_s, p.inputs.weights) == (fp16.power_w, fp16.itl_s, "fp16")
    assert any(n.startswith(NOTE) for n in p.notes) and not any(NOTE in n for n in fp16.notes)


def test_predict_notes_a_model_stored_in_fp32():
    assert any(n.startswith(NOTE) for n in wl.predict(_fp32_llama(), "A30", rate_qps=0.1).notes)
    assert not wl.predict(_fp32_llama(), "A30", rate_qps=0.1, weights="bf16").notes


def test_estimate_energy_notes_fp32():
    est = wl.estimate_energy(LLAMA, "A30", weights="fp32")
    assert est.weights == "fp16" and est.notes[-1].startswith(NOTE) and est.notes[-1].endswith(".")
    assert not any(NOTE in n for n in wl.estimate_energy(LLAMA, "A30", weights="bf16").notes)


@pytest.mark.parametrize("weights", ["fp32", None])
def test_explain_carries_the_predictions_fp32_note(weights):
    """wl.explain reads the checked request's asked format (Request.weights_asked), as predict."""
    model = _fp32_llama() if weights is None else LLAMA
    x = wl.explain(model, "A30", rate_qps=0.1, weights=weights)
    assert sum(n.startswith(NOTE) for n in x.prediction.notes) == 1
    assert x.prediction.notes == wl.predict(model, "A30", rate_qps=0.1, weights=weights).notes
