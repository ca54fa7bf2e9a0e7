"""LLM.from_hf_config counts the model its config states, or says what it cannot count: a top-k
without an expert count (a Mixtral config missing num_local_experts was read as a dense 7 B
model; transformers fills in 8 experts, 47 B), and compressed-tensors groups that store weights
differently (the first group's bits were counted for every layer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import ConfigError

CONFIGS = Path(__file__).resolve().parents[1] / "fixtures" / "configs"
MIXTRAL = json.loads((CONFIGS / "mistralai__Mixtral-8x7B-v0.1.json").read_text())
LLAMA = json.loads((CONFIGS / "meta-llama__Llama-3.1-8B.json").read_text())


def _int(bits: int) -> dict:
    return {"weights": {"num_bits": bits, "type": "int", "group_size": 128, "symmetric": True}}


def test_a_top_k_without_an_expert_count_is_refused():
    for missing in ({}, {"num_local_experts": None}):
        cfg = {k: v for k, v in MIXTRAL.items() if k != "num_local_experts"} | missing
        said = r"= 2 but no expert count.*num_local_experts.*a dense model: delete num_experts"
        with pytest.raises(ConfigError, match=said):
            wl.LLM.from_hf_config(cfg)
    assert wl.LLM.from_hf_config(MIXTRAL).n_experts == 8  # stated: read as before


def test_groups_storing_weights_differently_are_refused():
    q = {"quant_method": "compressed-tensors", "config_groups": {"g0": _int(4), "g1": _int(8)}}
    with pytest.raises(ConfigError, match=r"store weights differently .*'g1': \(8, 'int'"):
        wl.LLM.from_hf_config(LLAMA | {"quantization_config": q})
    same = q | {"config_groups": {"attention": _int(4), "mlp": _int(4)}}  # one scheme, two groups
    assert wl.LLM.from_hf_config(LLAMA | {"quantization_config": same}).weight_format == "int4"
