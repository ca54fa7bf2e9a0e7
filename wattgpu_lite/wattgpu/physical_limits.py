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

One rule for one answer and for a frame (:func:`row_limits`, on a feature frame's columns: the GPU
as WattGPU saw it). A model whose 16-bit weights alone exceed the GPU's memory is refused first
(``WattGPU.predict``: CapacityError; ``predict_frame``: the row's status ``NO_FIT`` and NaN): no
training run held a model larger than 0.9 of its GPU's memory, and WattGPU models one GPU.
An ITL below the floor is refused (UnsupportedModelError, or the status ``BELOW_FLOOR``; as WattGPU
refuses the models it does not cover, :func:`~wattgpu_lite.wattgpu.predictor.dense_only`): the number is impossible, not merely
uncertain, and ``wl.predict`` answers there from the physics. Every measured (LLM, GPU, scenario)
predicts at least 1.1x its floor, so no answer on the training runs is refused; refitted without
their GPU (LOGO), 27 measured rows (21 L4, 6 L40S) lie below it, and the LOGO source's answers
refuse them too (:func:`wattgpu_lite.selection.sources.logo_rows`). The evaluation of the published
model (:mod:`~wattgpu_lite.wattgpu.evaluation`, ``wl.evaluate``, notebooks 04 and A3) scores its raw
out-of-fold predictions instead, as the paper did: it measures the model, it answers no user. A power outside
[idle, TDP] (idle: the spec's published idle draw, where it gives one) is a note beside the answer
instead: the published trees predict up to 4.8 % above TDP on measured GPUs
(tests/wattgpu/test_predictors.py), a flaw the course teaches; refusing would refuse the paper's
own answers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from wattgpu_lite.errors import CapacityError, InvalidInputError, UnsupportedModelError
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.llm import LLM
from wattgpu_lite.specs.workload import OFFLINE_PROMPTS
from wattgpu_lite.wattgpu.features import bandwidth_latency_s, compute_latency_s

OK = "ok"  # a row's status, in wl.predict_many's words
NO_FIT = "does not fit in memory"
INVALID = "invalid input"
BELOW_FLOOR = "below the physical floor"
LIMIT_COLUMNS = ("params_b", "params_always_b", "memory_gb", "bandwidth_gbs", "fp16_tflops")


def floor_s(params_always_b, bandwidth_gbs, fp16_tflops, offline):
    """ITL ≥ max(2 N_a / (N · BW), 2 N_a / F_16), N = OFFLINE_PROMPTS offline else 1 (module
    docstring), s; element-wise."""
    sharing = np.where(offline, OFFLINE_PROMPTS, 1.0)
    reads_s = bandwidth_latency_s(params_always_b, bandwidth_gbs) / sharing
    return np.maximum(reads_s, compute_latency_s(params_always_b, fp16_tflops))


def itl_floor_s(llm: LLM, gpu: GPU, scenario: str) -> float:
    """The ITL no GPU beats for ``scenario`` (:func:`floor_s`), s."""
    args = (llm.params_always_b, gpu.bandwidth_gbs, gpu.fp16_tflops, scenario == "offline")
    return float(floor_s(*args))


def row_limits(
    frame: pd.DataFrame, itl_s: np.ndarray, numeric: Sequence[str] = ()
) -> tuple[np.ndarray, list[str]]:
    """Each row's status (INVALID: a model WattGPU does not cover (:func:`~wattgpu_lite.wattgpu.features.unsupported`), a
    column read here that is no positive number, or a model's
    ``numeric`` input holds text or ±inf; NO_FIT: 16-bit weights 2 N > memory; BELOW_FLOOR:
    ``itl_s`` < :func:`floor_s`; else OK) and message ("" for OK), for a feature frame and its
    predicted ITLs."""
    missing = [
        c for c in (*LIMIT_COLUMNS, "unsupported", "scenario", "llm", "gpu") if c not in frame
    ]
    if missing:
        raise InvalidInputError(
            f"WattGPU.predict_frame: the frame lacks {missing}, which the physical limits read; "
            "build it with wattgpu_lite.wattgpu.features.feature_frame(llms, gpus, scenarios)"
        )
    cols = {c: _numbers(frame[c]) for c in LIMIT_COLUMNS}
    bad = {c: ~(np.isfinite(v) & (v > 0)) for c, v in cols.items()}
    for c in dict.fromkeys(c for c in numeric if c not in bad):
        values = _numbers(frame[c])  # text is NaN here, and a value in the frame
        bad[c] = np.isinf(values) | (np.isnan(values) & frame[c].notna().to_numpy())
    said = frame["unsupported"].fillna("").to_numpy(dtype=object)  # llm_columns: dense_only's
    bad = {"unsupported": said != "", **bad}
    invalid = np.logical_or.reduce(list(bad.values()))
    offline = (frame["scenario"] == "offline").to_numpy()
    floors_s = floor_s(cols["params_always_b"], cols["bandwidth_gbs"], cols["fp16_tflops"], offline)
    no_fit = ~invalid & (2 * cols["params_b"] > cols["memory_gb"])  # 16-bit weights alone, GB
    below = ~invalid & ~no_fit & (itl_s < floors_s)
    status = np.select([invalid, no_fit, below], [INVALID, NO_FIT, BELOW_FLOOR], OK).astype(object)
    messages = [""] * len(frame)
    names = [frame[c].to_numpy(dtype=object) for c in ("llm", "gpu", "scenario")]
    for i in np.flatnonzero(invalid | no_fit | below):
        row = {c: v[i] for c, v in cols.items()}
        where = (names[0][i], names[1][i], names[2][i])
        if bad["unsupported"][i]:
            messages[i] = said[i]
        elif invalid[i]:
            col = next(c for c, rows in bad.items() if rows[i])
            what = "positive number" if col in LIMIT_COLUMNS else "finite number"
            messages[i] = (
                f"{col} {frame[col].iat[i]!r} of {where[0]!r} on {where[1]!r} is no {what}: "
                "the row is not answered; build the frame with feature_frame"
            )
        elif no_fit[i]:
            messages[i] = _no_fit(where[0], where[1], row)
        else:
            messages[i] = _below(where, row, itl_s[i], floors_s[i])
    return status, messages


def _numbers(column: pd.Series) -> np.ndarray:
    """``column`` as floats (text: NaN); a numeric column as it is, without pd.to_numeric."""
    if pd.api.types.is_numeric_dtype(column.dtype):
        return column.to_numpy(dtype=float)
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def limited(
    frame: pd.DataFrame, power_w, itl_s, numeric: Sequence[str] = ()
) -> dict[str, np.ndarray | list[str]]:
    """power_w, itl_s (NaN where refused), status and message of predictions for the rows of a
    feature frame (:func:`row_limits`): WattGPU.predict_frame's, and the precomputed LOGO rows'."""
    itl_s = np.asarray(itl_s, dtype=float)
    status, messages = row_limits(frame, itl_s, numeric)
    refused = status != OK
    power_w = np.where(refused, np.nan, np.asarray(power_w, dtype=float))
    itl_s = np.where(refused, np.nan, itl_s)
    return {"power_w": power_w, "itl_s": itl_s, "status": status, "message": messages}


def _no_fit(llm: str, gpu: str, row: dict) -> str:
    return (
        f"{llm!r} does not fit on one {gpu}: its 16-bit weights alone "
        f"({2 * row['params_b']:.3g} GB) exceed its {row['memory_gb']:g} GB, and WattGPU models "
        "one GPU holding the whole model, as in every training run. Use wl.predict with "
        "num_gpus= (it says how many GPUs hold the model), or pick a GPU with more memory."
    )


def _below(where: tuple, row: dict, itl_s: float, floor: float) -> str:
    return (
        f"WattGPU's trees answer ITL {itl_s:.4g} s for {where[0]!r} on {where[1]!r} ({where[2]}), "
        f"below the physical floor {floor:.4g} s (the {2 * row['params_always_b']:.3g} GB of "
        f"16-bit weights a decode step reads over the peak bandwidth {row['bandwidth_gbs']:g} "
        "GB/s, or its FLOPs over the peak FP16 FLOP/s): this GPU and model lie beyond the "
        "training runs, where the trees answer as at the range's edge. Use wl.predict (the "
        "physics backbone answers there, never below the floor; in a ranking source='hybrid')."
    )


def checked(answer: dict, idle_power_w: float) -> dict:
    """``answer`` (one row of WattGPU.predict_frame, with its status and message) with
    ``notes``: refused when the weights do not fit (CapacityError) or its ITL is below the floor
    (UnsupportedModelError), a note when its power lies outside [idle, TDP]."""
    status, message = answer.pop("status"), answer.pop("message")
    if status != OK:
        error = {NO_FIT: CapacityError, INVALID: InvalidInputError}.get(status)
        raise (error or UnsupportedModelError)(message)
    notes = []
    idle_w = idle_power_w if math.isfinite(idle_power_w) else 0.0
    if not idle_w <= answer["power_w"] <= answer["tdp_w"]:
        above = answer["power_w"] > answer["tdp_w"]
        side = f"above the TDP {answer['tdp_w']:g} W" if above else f"below the idle {idle_w:g} W"
        notes.append(
            f"power_w {answer['power_w']:.4g} W is {side} of the spec: WattGPU's trees add up "
            "beyond the measured range here; wl.predict holds power inside [floor, TDP]"
        )
    return {**answer, "notes": notes}
