"""Golden predictions: a few shipped-model and energy-model numbers pinned to 4 significant figures.

A change to a shipped model, a data file, a dependency (xgboost 2.0.3-3.0.5 predict 316.7 W for
116.7 W from the same trees) or the equations moves one of these; the fix is a deliberate update
of the pin with the reason in the commit, never a silent drift. The hybrid pins follow when its
model is rebuilt (issue 11).
"""

from __future__ import annotations

import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.estimate import components_j

# (llm, gpu, scenario) -> (power_w, itl_s, energy_per_token_j) of wl.WattGPU.pretrained()
WATTGPU = {
    ("meta-llama/Llama-3.1-8B-Instruct", "L4", "server_low"): (40.37, 0.06069, 13.19),
    ("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", "offline"): (380.9, 5.405e-05, 0.02059),
    ("Qwen/Qwen2.5-7B-Instruct", "A30", "server_high"): (129.7, 0.01951, 2.184),
    ("openai-community/gpt2", "T4", "offline"): (67.07, 5.643e-05, 0.003785),
}
# (llm, gpu, mode, batch) at 500 in / 500 out -> J per request by component (and total)
ENERGY = {
    ("meta-llama/Llama-2-7b-hf", "A100 SXM4 40GB", "physical", 8):
        {"compute": 25.36, "parameter_reads": 127.5, "attention_reads": 29.67, "static": 53.64, "total": 236.2},
    ("meta-llama/Llama-2-7b-hf", "H100 NVL", "paper", 1):
        {"compute": 21.17, "parameter_reads": 0.05881, "attention_reads": 35.00, "total": 56.26},
    ("Qwen/Qwen3-8B", "H100 NVL", "physical", 1):
        {"compute": 11.50, "parameter_reads": 1104, "static": 263.5, "total": 1387},
}  # fmt: skip


@pytest.mark.parametrize(("key", "pinned"), WATTGPU.items(), ids=[" ".join(k) for k in WATTGPU])
def test_wattgpu_pretrained_predictions_are_pinned(key, pinned):
    result = wl.WattGPU.pretrained().predict(*key)
    got = (result["power_w"], result["itl_s"], result["energy_per_token_j"])
    assert [float(f"{v:.4g}") for v in got] == list(pinned)


@pytest.mark.parametrize(("key", "pinned"), ENERGY.items(), ids=[f"{k[0]} {k[2]}" for k in ENERGY])
def test_energy_estimates_are_pinned(key, pinned):
    llm, gpu, mode, batch = key
    comps = components_j(wl.estimate_energy(llm, gpu, 500, 500, mode=mode, batch=batch))
    assert {k: float(f"{comps[k]:.4g}") for k in pinned} == pinned
