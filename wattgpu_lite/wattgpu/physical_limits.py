"""Where an answer of WattGPU leaves physics: weights beyond the GPU's memory, an ITL below the
weights' bytes over the bandwidth, a power outside [idle, TDP].

WattGPU's trees (the paper's model, kept as published) answer any spec sheet, also far beyond the
training GPUs, where no split they learned lies and they answer as at the range's edge: a 20 GB/s
board gets about the ITL of the slowest training GPU. No GPU beats the paper's own roofline
features (:func:`~wattgpu_lite.wattgpu.features.bandwidth_latency_s`,
:func:`~wattgpu_lite.wattgpu.features.compute_latency_s`) taken at the parameters every decode
step streams, N_a = ``params_always_b`` (not the input embedding, of which a token gathers one
row), in 16 bits (the narrowest weights WattGPU takes):

    server rate:  ITL ≥ max(2 N_a / BW, 2 N_a / F_16)        (a step reads every weight once)
    offline:      ITL ≥ max(2 N_a / (N · BW), 2 N_a / F_16)  (ITL = 1 / throughput; at most
                                                              N = 1,000 prompts share a step)

A looser bound than the kit's step floor (:func:`wattgpu_lite.hybrid.predict.bounds.floor_step_s`,
which adds the KV cache and each format's peak; tests/wattgpu/test_physical_limits.py checks it
never exceeds it), which wattgpu may not import (energy and wattgpu are peer chapters).

A model whose 16-bit weights alone exceed the GPU's memory is refused first (CapacityError): no
training run held a model larger than 0.9 of its GPU's memory, and WattGPU models one GPU.
An ITL below the floor is refused (UnsupportedModelError, as WattGPU refuses the models it does not
cover, :func:`~wattgpu_lite.wattgpu.predictor.dense_only`): the number is impossible, not merely
uncertain, and ``wl.predict`` answers there from the physics. Every measured (LLM, GPU, scenario)
predicts at least 1.1x its floor, so no answer on the training runs is refused. A power outside
[idle, TDP] (idle: the spec's published idle draw, where it gives one) is a note beside the answer
instead: the published trees predict up to 4.8 % above TDP on measured GPUs
(tests/wattgpu/test_predictors.py), a flaw the course teaches; refusing would refuse the paper's
own answers.
"""

from __future__ import annotations

import math

from wattgpu_lite.errors import CapacityError, UnsupportedModelError
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.llm import LLM
from wattgpu_lite.specs.workload import OFFLINE_PROMPTS
from wattgpu_lite.wattgpu.features import bandwidth_latency_s, compute_latency_s


def itl_floor_s(llm: LLM, gpu: GPU, scenario: str) -> float:
    """The ITL no GPU beats for ``scenario`` (module docstring), s."""
    sharing = OFFLINE_PROMPTS if scenario == "offline" else 1.0
    reads_s = bandwidth_latency_s(llm.params_always_b, gpu.bandwidth_gbs) / sharing
    return max(reads_s, compute_latency_s(llm.params_always_b, gpu.fp16_tflops))


def checked(answer: dict, llm: LLM, gpu: GPU) -> dict:
    """``answer`` (WattGPU.predict's dict) with ``notes``: refused when the weights do not fit
    (CapacityError) or its ITL is below :func:`itl_floor_s` (UnsupportedModelError), a note when
    its power lies outside [idle, TDP]."""
    floor_s = itl_floor_s(llm, gpu, answer["scenario"])
    where = f"{answer['llm']!r} on {answer['gpu']!r} ({answer['scenario']})"
    if 2 * llm.params_b > gpu.memory_gb:  # 16-bit weights alone, GB
        raise CapacityError(
            f"{answer['llm']!r} does not fit on one {answer['gpu']}: its 16-bit weights alone "
            f"({2 * llm.params_b:.3g} GB) exceed its {gpu.memory_gb:g} GB, and WattGPU models one "
            "GPU holding the whole model, as in every training run. Use wl.predict with "
            "num_gpus= (it says how many GPUs hold the model), or pick a GPU with more memory."
        )
    if answer["itl_s"] < floor_s:
        raise UnsupportedModelError(
            f"WattGPU's trees answer ITL {answer['itl_s']:.4g} s for {where}, below the physical "
            f"floor {floor_s:.4g} s (the {2 * llm.params_always_b:.3g} GB of 16-bit weights a "
            f"decode step reads over the peak bandwidth {gpu.bandwidth_gbs:g} GB/s, or its FLOPs "
            "over the peak FP16 FLOP/s): this GPU and model lie beyond the training runs, where "
            "the trees answer as at the range's edge. Use wl.predict (the physics backbone "
            "answers there, never below the floor)."
        )
    notes = []
    idle_w = gpu.idle_power_w if math.isfinite(gpu.idle_power_w) else 0.0
    if not idle_w <= answer["power_w"] <= answer["tdp_w"]:
        above = answer["power_w"] > answer["tdp_w"]
        side = f"above the TDP {answer['tdp_w']:g} W" if above else f"below the idle {idle_w:g} W"
        notes.append(
            f"power_w {answer['power_w']:.4g} W is {side} of the spec: WattGPU's trees add up "
            "beyond the measured range here; wl.predict holds power inside [floor, TDP]"
        )
    return {**answer, "notes": notes}
