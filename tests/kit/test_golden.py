"""Golden predictions: a few shipped-model and energy-model numbers pinned to 4 significant figures.

A change to a shipped model, a data file, a dependency (xgboost 2.0.3-3.0.5 predict 316.7 W for
116.7 W from the same trees) or the equations moves one of these; the fix is a deliberate update
of the pin with the reason in the commit (``git log -p tests/kit/test_golden.py`` lists every
move and why), never a silent drift.
"""

from __future__ import annotations

import pytest

import wattgpu_lite as wl

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
        {"compute": 20.58, "parameter_reads": 103.4, "attention_reads": 24.54, "static": 83.44, "total": 232.0},
    ("meta-llama/Llama-2-7b-hf", "H100 NVL", "paper", 1):
        {"compute": 21.17, "parameter_reads": 0.05881, "attention_reads": 35.00, "total": 56.26},
    ("Qwen/Qwen3-8B", "H100 NVL", "physical", 1):
        {"compute": 8.804, "parameter_reads": 843.9, "static": 280.0, "total": 1139.0},
}  # fmt: skip


@pytest.mark.parametrize(("key", "pinned"), WATTGPU.items(), ids=[" ".join(k) for k in WATTGPU])
def test_wattgpu_pretrained_predictions_are_pinned(key, pinned):
    result = wl.WattGPU.pretrained().predict(*key)
    got = (result["power_w"], result["itl_s"], result["energy_per_token_j"])
    assert [float(f"{v:.4g}") for v in got] == list(pinned)


@pytest.mark.parametrize(("key", "pinned"), ENERGY.items(), ids=[f"{k[0]} {k[2]}" for k in ENERGY])
def test_energy_estimates_are_pinned(key, pinned):
    llm, gpu, mode, batch = key
    est = wl.estimate_energy(llm, gpu, t_in=500, t_out=500, mode=mode, batch=batch)
    comps = est.components_j | {"total": est.total_j}
    assert {k: float(f"{comps[k]:.4g}") for k in pinned} == pinned


# wl.predict(llm, gpu, **load) -> (power_w, itl_s, energy_per_token_j, power lo, power hi), basis
HYBRID = {
    ("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", (("rate_qps", 0.1),)):
        ((113.3, 0.005591, 6.292, 93.81, 136.7), "cv"),
    ("meta-llama/Llama-3.1-8B-Instruct", "L40S", (("batch", 32), ("t_in", 500), ("t_out", 300))):
        ((302.0, 0.03452, 0.3258, 163.3, 350.0), "cv"),
    ("Qwen/Qwen2.5-7B-Instruct", "B200", (("rate_qps", 2.0), ("t_in", 1000), ("t_out", 500))):
        ((639.1, 0.003798, 0.6391, 161.7, 1000.0), "physics"),  # B200 beyond the training GPUs: backbone
    ("openai/gpt-oss-120b", "H100 SXM", (("rate_qps", 1.0), ("num_gpus", 2))):
        ((349.1, 0.01276, 1.939, 175.0, 1056.0), "physics"),  # a MoE: expert groups
}  # fmt: skip


@pytest.mark.parametrize(("key", "pinned"), HYBRID.items(), ids=[f"{k[0]} {k[1]}" for k in HYBRID])
def test_hybrid_predictions_are_pinned(key, pinned):
    llm, gpu, load = key
    p = wl.predict(llm, gpu, **dict(load))
    got = (p.power_w, p.itl_s, p.energy_per_token_j, p.power_w_interval.lo, p.power_w_interval.hi)
    assert ([float(f"{v:.4g}") for v in got], p.power_w_interval.basis) == (
        list(pinned[0]),
        pinned[1],
    )
