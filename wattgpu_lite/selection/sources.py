"""Where a ranking's power and ITL come from: the measured runs, the WattGPU predictor, or the
predictor refitted without the GPU's own runs (leave-one-GPU-out, "logo").

Each source returns one row per GPU: gpu, power_w, itl_s, tokens_per_request (generated tokens
per request), plus power_w_lo/_hi and itl_s_lo/_hi when the predictor provides intervals.
"""

from __future__ import annotations

from functools import cache

import pandas as pd

from wattgpu_lite.errors import UnknownLLMError
from wattgpu_lite.hybrid.load import nearest_scenario
from wattgpu_lite.hybrid.model import HybridModel
from wattgpu_lite.runs import measurements
from wattgpu_lite.selection.accounting import WATT_COUNTS_MAX_NEW_TOKENS
from wattgpu_lite.specs.catalog import llm
from wattgpu_lite.wattgpu.features import feature_frame
from wattgpu_lite.wattgpu.predictor import WattGPU

SOURCES: tuple[str, ...] = ("predicted", "measured", "logo", "hybrid")
# leave-one-GPU-out predictions, precomputed by data/scripts/build_logo_predictions.py
LOGO_PATH = measurements.DATA_PATH.parent / "wattgpu_logo_predictions.csv"
LOGO_SOURCE = "LOGO refit, data/scripts/build_logo_predictions.py"
_INTERVAL_COLUMNS = ("power_w_lo", "power_w_hi", "itl_s_lo", "itl_s_hi")


def measured_metrics(llm_name: str, scenario: str, gpu_names: list[str]) -> pd.DataFrame:
    """Mean power_w, itl_s and generated tokens per request over the repeats of each GPU's runs.

    GPUs without a run of this LLM in this scenario are absent from the result.
    """
    runs = measurements.load()
    mine = runs[(runs["llm"] == llm_name) & (runs["scenario"] == scenario)]
    mine = mine[mine["gpu"].isin(gpu_names)]
    means = mine.groupby("gpu", sort=False)[["power_w", "itl_s", "generated_tokens"]].mean()
    return means.rename(columns={"generated_tokens": "tokens_per_request"}).reset_index()


def typical_tokens_per_request(llm_name: str, scenario: str) -> float:
    """Mean generated tokens per request of this LLM in this scenario over all measured GPUs;
    Watt Counts' cap of 256 new tokens when the LLM was never measured."""
    runs = measurements.load()
    mine = runs[(runs["llm"] == llm_name) & (runs["scenario"] == scenario)]
    return float(mine["generated_tokens"].mean()) if len(mine) else WATT_COUNTS_MAX_NEW_TOKENS


@cache
def full_predictor():
    """The shipped pre-trained WattGPU; fitted here on every run if none is shipped yet."""
    try:
        return WattGPU.pretrained()
    except (FileNotFoundError, OSError):
        return WattGPU().fit(measurements.load())


@cache
def logo_predictor(held_out_gpu: str):
    """WattGPU fitted on every run except those on ``held_out_gpu`` (cached per GPU)."""
    runs = measurements.load()
    if held_out_gpu not in set(runs["gpu"]):
        return full_predictor()  # a GPU without runs: no own data to hold out
    return WattGPU().fit(runs[runs["gpu"] != held_out_gpu].reset_index(drop=True))


@cache
def logo_table() -> pd.DataFrame:
    """The precomputed LOGO predictions (empty if the file is absent), indexed by llm/gpu/scenario."""
    if not LOGO_PATH.is_file():
        return pd.DataFrame(columns=["power_w", "itl_s"])
    return pd.read_csv(LOGO_PATH).set_index(["llm", "gpu", "scenario"])[["power_w", "itl_s"]]


def logo_rows(llm, gpu, scenario: str) -> pd.DataFrame:
    """LOGO power/ITL of a catalog LLM on ``gpu`` from the table; refitted when not in it."""
    key = (llm.name, gpu.name, scenario)
    if llm == _catalog_llm(llm.name) and key in logo_table().index:
        row = logo_table().loc[key]
        return pd.DataFrame({"gpu": [gpu.name], "power_w": row["power_w"], "itl_s": row["itl_s"]})
    return _predict_rows(logo_predictor(gpu.name), llm, [gpu], scenario)


def _catalog_llm(name: str):
    try:
        return llm(name)
    except UnknownLLMError:
        return None


def _predict_rows(predictor, llm, gpus: list, scenario: str) -> pd.DataFrame:
    """power_w, itl_s (and any *_lo/*_hi intervals) of ``llm`` on each GPU."""
    out = predictor.predict_frame(feature_frame([llm], gpus, [scenario]))
    keep = ["gpu", "power_w", "itl_s", *[c for c in _INTERVAL_COLUMNS if c in out]]
    return out[keep].reset_index(drop=True)


def predicted_metrics(llm, gpus: list, scenario: str, logo: bool = False) -> pd.DataFrame:
    """Predicted power and ITL per GPU: the full model, or one refitted without each GPU."""
    if not gpus:
        return pd.DataFrame(columns=["gpu", "power_w", "itl_s", "tokens_per_request"])
    if logo:
        parts = [logo_rows(llm, g, scenario) for g in gpus]
        frame = pd.concat(parts, ignore_index=True)
    else:
        frame = _predict_rows(full_predictor(), llm, gpus, scenario)
    return frame.assign(tokens_per_request=typical_tokens_per_request(llm.name, scenario))


def hybrid_metrics(llm, gpus: list, scenario: str, rate_qps: float) -> pd.DataFrame:
    """The calibrated hybrid model at the numeric rate (NaN offline), with 80 % intervals
    (power_w_lo/_hi, itl_s_lo/_hi) and their basis. Offline its time per token (1/throughput)
    is the ITL, as in Watt Counts; its per-sequence ITL in the batch is not used."""
    label = "offline" if scenario == "offline" else nearest_scenario(rate_qps, float("nan"))
    frame = feature_frame([llm], gpus, [label]).assign(rate_qps=rate_qps, batch=float("nan"))
    out = HybridModel.pretrained().predict_frame(frame, 0.8, {llm.name: llm},
                                                 {g.name: g for g in gpus})  # fmt: skip
    if scenario == "offline":  # ITL as Watt Counts defines it offline: 1/throughput
        out = out.drop(columns=["itl_s", "itl_s_lo", "itl_s_hi"])
        out = out.rename(columns=lambda c: c.replace("time_per_token_s", "itl_s"))
    keep = ["gpu", "power_w", "itl_s", *_INTERVAL_COLUMNS, "interval_basis"]
    return out[keep].assign(tokens_per_request=typical_tokens_per_request(llm.name, scenario))


def gpu_metrics(llm, gpus: list, scenario: str, source: str, rate_qps=float("nan")):
    """One row per GPU with power_w, itl_s, tokens_per_request from ``source`` (see SOURCES)."""
    if source == "measured":
        return measured_metrics(llm.name, scenario, [g.name for g in gpus])
    if source == "hybrid" and gpus:
        return hybrid_metrics(llm, gpus, scenario, rate_qps)
    return predicted_metrics(llm, gpus, scenario, logo=(source == "logo"))
