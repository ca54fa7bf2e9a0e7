"""WattGPU.predict against physics: weights beyond the memory or an ITL below the weights' bytes
over the bandwidth are refused, a power outside [idle, TDP] is a note, and no measured (LLM, GPU,
scenario) comes near either."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.errors import CapacityError, UnsupportedModelError
from wattgpu_lite.hybrid.predict.bounds import floor_step_s
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT, OFFLINE_PROMPTS
from wattgpu_lite.wattgpu.features import feature_frame
from wattgpu_lite.wattgpu.physical_limits import itl_floor_s

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
SCENARIOS = ["offline", "server_low", "server_high"]
SLOW = dataclasses.replace(resolve_gpu("L4"), name="L4 at 20 GB/s", bandwidth_gbs=20.0)


@pytest.mark.parametrize("scenario", ["server_low", "server_high"])
def test_an_itl_below_the_bandwidth_floor_is_refused(scenario):
    with pytest.raises(UnsupportedModelError, match=r"below the physical floor 0\.75.*wl\.predict"):
        wl.WattGPU.pretrained().predict(LLAMA, SLOW, scenario)


def test_the_server_floor_is_the_weights_a_step_reads_over_the_bandwidth():
    llm = resolve_llm(LLAMA)
    weights_s = 2 * llm.params_b * 1e9 / 20e9  # all 16-bit weights over 20 GB/s: 0.803 s
    # but the input embedding's table, of which a token gathers one row (0.525 of 8.03 B: 0.751 s)
    assert itl_floor_s(llm, SLOW, "server_low") == pytest.approx(
        weights_s * (1 - 0.525 / 8.03), rel=1e-3
    )


@pytest.mark.parametrize(
    ("llm", "gpu", "words"),
    [
        ("meta-llama/Llama-3.1-405B", "T4", "(812 GB) exceed its 16 GB"),  # below the floor too
        ("meta-llama/Llama-3.1-70B-Instruct", "H100 NVL", "(141 GB) exceed its 94 GB"),  # not
    ],
)
def test_a_model_whose_weights_exceed_the_memory_is_refused(llm, gpu, words):
    with pytest.raises(CapacityError, match=re.escape(words) + ".*wl.predict with num_gpus="):
        wl.WattGPU.pretrained().predict(llm, gpu, "server_low")


def test_power_above_the_tdp_is_a_note():
    p = wl.WattGPU.pretrained().predict("EleutherAI/pythia-1b", "L4", "offline")
    assert p["power_w"] == pytest.approx(74.81, rel=1e-3)  # the paper's model, unchanged
    assert len(p["notes"]) == 1 and "above the TDP 72 W" in p["notes"][0]


def test_power_below_the_spec_idle_is_a_note():
    idle = dataclasses.replace(resolve_gpu("A30"), name="A30 idle 30 W", idle_power_w=30.0)
    p = wl.WattGPU.pretrained().predict("HuggingFaceTB/SmolLM2-1.7B", idle, "server_low")
    assert p["power_w"] < 30 and "below the idle 30 W" in p["notes"][0]


def test_an_answer_inside_the_bounds_has_no_note():
    assert wl.WattGPU.pretrained().predict(LLAMA, "L4", "server_low")["notes"] == []


def test_the_floor_never_exceeds_the_kits_step_floor():
    """The bound is looser than hybrid.predict.bounds' (weights only, 16 bits): it never refuses
    what the physics allows. Every catalog GPU, a few dense LLMs, every scenario."""
    gpus = [resolve_gpu(n) for n in wl.gpus()["name"]] + [SLOW]
    llms = [resolve_llm(n) for n in (LLAMA, "openai-community/gpt2", "google/gemma-3-27b-it")]
    cells = [(m, g, s) for m in llms for g in gpus for s in SCENARIOS]
    rows, _ = row_arrays.build(
        [c[0] for c in cells], [c[1] for c in cells], DEFAULT_T_IN, DEFAULT_T_OUT
    )
    batch = np.array([OFFLINE_PROMPTS if s == "offline" else 1.0 for *_, s in cells])
    kit_s = floor_step_s(rows, batch) / batch
    ours_s = np.array([itl_floor_s(*c) for c in cells])
    assert (ours_s <= kit_s).all() and (ours_s > 0.9 * kit_s).mean() > 0.5


def test_no_measured_query_comes_near_its_floor():
    """Every (LLM, GPU, scenario) of the training runs predicts at least 1.1x its ITL floor: the
    refusal never touches the paper's own answers."""
    runs = wl.measurements()
    triples = runs.loc[runs["dense"], ["llm", "gpu", "scenario"]].drop_duplicates()
    llms = {n: resolve_llm(n) for n in triples["llm"].unique()}
    gpus = {n: resolve_gpu(n) for n in triples["gpu"].unique()}
    frame = feature_frame(list(llms.values()), list(gpus.values()), SCENARIOS)
    out = wl.WattGPU.pretrained().predict_frame(frame).merge(triples)
    assert len(out) == len(triples)
    assert all(
        2 * llms[m].params_b <= 0.9 * gpus[g].memory_gb
        for m, g in zip(out["llm"], out["gpu"], strict=True)
    )
    floors = [
        itl_floor_s(llms[m], gpus[g], s)
        for m, g, s in zip(out["llm"], out["gpu"], out["scenario"], strict=True)
    ]
    assert (out["itl_s"] > 1.1 * np.array(floors)).all()
