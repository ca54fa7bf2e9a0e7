"""WattGPU.predict against physics: weights beyond the memory or an ITL below the weights' bytes
over the bandwidth are refused, a power outside [idle, TDP] is a note, and no measured (LLM, GPU,
scenario) comes near either."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.errors import CapacityError, InvalidInputError, UnsupportedModelError
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


def test_predict_frame_marks_each_refused_row_and_answers_the_rest():
    """One rule for one answer and a frame: the row below the floor and the row whose weights
    exceed the memory get their own status and message, NaN numbers; the L4 row its number."""
    frame = feature_frame([LLAMA], ["L4", SLOW, "T4"], ["server_low"])
    out = wl.WattGPU.pretrained().predict_frame(frame).set_index("gpu")
    assert list(out["status"]) == ["ok", "below the physical floor", "does not fit in memory"]
    assert (
        out.loc["L4", "power_w"]
        == wl.WattGPU.pretrained().predict(LLAMA, "L4", "server_low")["power_w"]
    )
    refused = out.drop(index="L4")
    assert refused[["power_w", "itl_s", "energy_per_token_j"]].isna().all().all()
    assert "below the physical floor 0.75" in out.loc[SLOW.name, "message"]
    assert "(16.1 GB) exceed its 16 GB" in out.loc["T4", "message"]
    assert out.loc["L4", "message"] == ""


def test_predict_frame_names_the_columns_the_limits_read():
    frame = feature_frame([LLAMA], ["L4"], ["offline"]).drop(columns="params_always_b")
    with pytest.raises(InvalidInputError, match=r"lacks \['params_always_b'\].*feature_frame"):
        wl.WattGPU.pretrained().predict_frame(frame)


@pytest.mark.parametrize("source", ["paper", "logo"])
def test_rank_says_why_a_gpu_below_the_floor_is_out(source):
    """gemma-7b on L4 at server_low: the trees (and the LOGO table) answer an ITL below the 17 GB
    of weights over 300 GB/s; the ranking leaves L4 unranked and says why, not 'no data'."""
    table = wl.rank_gpus("google/gemma-7b", scenario="server_low", itl_sla_ms=200, source=source)
    row = pd.DataFrame(table).set_index("gpu").loc["L4"]
    assert pd.isna(row["rank"]) and np.isnan(row["itl_s"]) and not row["meets_sla"]
    assert (
        row["why_not"].startswith("WattGPU's trees answer ITL")
        and "floor 0.0569 s" in row["why_not"]
    )


@pytest.mark.parametrize("bandwidth_gbs", [np.nan, -300.0, "fast"])
def test_a_row_whose_spec_is_no_positive_number_is_invalid(bandwidth_gbs):
    """The trees impute a NaN and answer any sign; the row says what is wrong instead."""
    frame = feature_frame([LLAMA], ["L4", "A30"], ["offline"])
    frame["bandwidth_gbs"] = frame["bandwidth_gbs"].astype(object)
    frame.loc[0, "bandwidth_gbs"] = bandwidth_gbs
    out = wl.WattGPU.pretrained().predict_frame(frame)
    assert list(out["status"]) == ["invalid input", "ok"]
    assert np.isnan(out.loc[0, "power_w"]) and out.loc[1, "power_w"] > 0
    assert out.loc[0, "message"].startswith(f"bandwidth_gbs {bandwidth_gbs!r} of")


@pytest.mark.parametrize(("column", "value"), [("n_layers", "many"), ("release_year", np.inf)])
def test_text_or_inf_in_a_models_input_makes_the_row_invalid(column, value):
    """Text crashed the preprocessing (ValueError: could not convert string to float)."""
    frame = feature_frame([LLAMA], ["L4", "A30"], ["offline"]).astype({column: object})
    frame.loc[1, column] = value
    out = wl.WattGPU.pretrained().predict_frame(frame)
    assert list(out["status"]) == ["ok", "invalid input"] and np.isnan(out.loc[1, "itl_s"])
    assert (
        out.loc[1, "message"].startswith(f"{column} {value!r} of")
        and "no finite" in out.loc[1, "message"]
    )


def test_a_model_wattgpu_does_not_cover_is_an_invalid_row():
    """WattGPU.predict refuses a mixture-of-experts or sub-16-bit model (dense_only); its row in
    a frame was answered with a number (Mixtral on an H200 NVL: 668 W)."""
    llms = ["mistralai/Mixtral-8x7B-v0.1", "Qwen/Qwen3-30B-A3B-FP8", LLAMA]
    out = wl.WattGPU.pretrained().predict_frame(feature_frame(llms, ["H200 NVL"], ["offline"]))
    assert list(out["status"]) == ["invalid input", "invalid input", "ok"]
    assert out["power_w"].isna().tolist() == [True, True, False]
    with pytest.raises(UnsupportedModelError) as err:
        wl.WattGPU.pretrained().predict(llms[0], "H200 NVL", "offline")
    assert out.loc[0, "message"] == str(err.value)
