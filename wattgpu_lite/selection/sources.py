"""Where a ranking's power and ITL come from: the measured runs, the WattGPU predictor, or the
predictor refitted without the GPU's own runs (leave-one-GPU-out, "logo").

Each source returns one row per GPU: gpu, power_w, itl_s, tokens_per_request (generated tokens
per request), plus power_w_lo/_hi and itl_s_lo/_hi when the predictor provides intervals.
"""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path

import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.errors import UnknownLLMError
from wattgpu_lite.runs import measurements
from wattgpu_lite.specs.catalog import llm
from wattgpu_lite.specs.workload import DEFAULT_T_OUT
from wattgpu_lite.wattgpu.features import feature_frame
from wattgpu_lite.wattgpu.physical_limits import limited
from wattgpu_lite.wattgpu.predictor import WattGPU, dense_only

SOURCES: tuple[str, ...] = ("hybrid", "measured", "paper", "logo")
# leave-one-GPU-out predictions, precomputed by data/scripts/build_logo_predictions.py
LOGO_FILE = "wattgpu_logo_predictions.csv"  # in the data folder
LOGO_SOURCE = "LOGO refit, data/scripts/build_logo_predictions.py"
_INTERVAL_COLUMNS = ("power_w_lo", "power_w_hi", "itl_s_lo", "itl_s_hi")


def logo_path() -> Path:
    """The precomputed leave-one-GPU-out predictions (data/scripts/build_logo_predictions.py)."""
    return data_dir() / LOGO_FILE


def measured_metrics(llm_name: str, scenario: str, gpu_names: list[str]) -> pd.DataFrame:
    """Mean power_w, itl_s and generated tokens per request over the repeats of each GPU's runs.

    GPUs without a run of this LLM in this scenario are absent from the result.
    """
    runs = measurements.load()
    mine = runs[(runs["llm"] == llm_name) & (runs["scenario"] == scenario)]
    mine = mine[mine["gpu"].isin(gpu_names)]
    means = mine.groupby("gpu", sort=False)[["power_w", "itl_s", "generated_tokens"]].mean()
    return means.rename(columns={"generated_tokens": "tokens_per_request"}).reset_index()


@cache
def full_predictor():
    """The shipped pre-trained WattGPU; fitted here on every run if none is shipped yet."""
    try:
        return WattGPU.pretrained()
    except (FileNotFoundError, OSError):
        return WattGPU().fit(measurements.load())


@lru_cache(maxsize=8)  # one WattGPU per held-out GPU: eight measured GPUs
def logo_predictor(held_out_gpu: str):
    """WattGPU fitted on every run except those on ``held_out_gpu`` (cached per GPU)."""
    runs = measurements.load()
    if held_out_gpu not in set(runs["gpu"]):
        return full_predictor()  # a GPU without runs: no own data to hold out
    return WattGPU().fit(runs[runs["gpu"] != held_out_gpu].reset_index(drop=True))


@cache
def logo_table() -> pd.DataFrame:
    """The precomputed LOGO predictions (empty if the file is absent), indexed by llm/gpu/scenario;
    ``measured``: a run measured the key."""
    path = logo_path()
    if not path.is_file():
        return pd.DataFrame(columns=["power_w", "itl_s", "measured"])
    table = read_csv(path).set_index(["llm", "gpu", "scenario"])  # the checked reader
    runs = pd.MultiIndex.from_frame(measurements.load()[["llm", "gpu", "scenario"]])
    return table.assign(measured=table.index.isin(runs))[["power_w", "itl_s", "measured"]]


def logo_rows(llm, gpus: list, scenario: str) -> pd.DataFrame:
    """LOGO power/ITL of a catalog LLM on each of ``gpus`` from the table; refitted when not in it.

    These are answers (rank_gpus, compare, study readings with source "logo"), so a row whose ITL
    lies below the physical floor is refused (NaN, ``message`` why; :func:`~wattgpu_lite.wattgpu.
    physical_limits.limited`), measured run or not. The evaluation of the published model
    (``wl.evaluate``, notebooks 04, A3) scores its raw out-of-fold predictions instead, and the
    table itself keeps the trees' raw output (data/scripts/build_logo_predictions.py)."""
    table = logo_table()
    catalog = llm == _catalog_llm(llm.name)
    known = [g for g in gpus if catalog and (llm.name, g.name, scenario) in table.index]
    parts = [
        _predict_rows(logo_predictor(g.name), llm, [g], scenario) for g in gpus if g not in known
    ]
    if known:  # one frame, one check for every tabled GPU
        row = table.loc[[(llm.name, g.name, scenario) for g in known]]
        frame = feature_frame([llm], known, [scenario])
        said = limited(frame, row["power_w"].to_numpy(), row["itl_s"].to_numpy())
        keep = ("power_w", "itl_s", "message")
        parts.append(pd.DataFrame({"gpu": list(frame["gpu"]), **{k: said[k] for k in keep}}))
    frame = pd.concat(parts, ignore_index=True)
    return frame.set_index("gpu").loc[[g.name for g in gpus]].reset_index()


def _catalog_llm(name: str):
    try:
        return llm(name)
    except UnknownLLMError:
        return None


def _predict_rows(predictor, llm, gpus: list, scenario: str) -> pd.DataFrame:
    """power_w, itl_s (and any *_lo/*_hi intervals) of ``llm`` on each GPU."""
    out = predictor.predict_frame(feature_frame([llm], gpus, [scenario]))
    keep = ["gpu", "power_w", "itl_s", *[c for c in (*_INTERVAL_COLUMNS, "message") if c in out]]
    return out[keep].reset_index(drop=True)


def predicted_metrics(
    llm, gpus: list, scenario: str, logo: bool = False, t_out: float = DEFAULT_T_OUT
) -> pd.DataFrame:
    """Predicted power and ITL per GPU: the full model, or one refitted without each GPU; energy
    is accounted for ``t_out`` generated tokens a request (the kit's one default, as
    ``WattGPU.predict``)."""
    if not gpus:
        return pd.DataFrame(columns=["gpu", "power_w", "itl_s", "tokens_per_request"])
    dense_only(llm)
    if logo:
        frame = logo_rows(llm, gpus, scenario)
    else:
        frame = _predict_rows(full_predictor(), llm, gpus, scenario)
    return frame.assign(tokens_per_request=float(t_out))


def gpu_metrics(llm, gpus: list, scenario: str, source: str, *, t_out: float = DEFAULT_T_OUT):
    """One row per GPU with power_w, itl_s, tokens_per_request from ``source`` (see SOURCES):
    the measured runs carry their own tokens per request; the predictors use ``t_out``."""
    if source == "measured":
        return measured_metrics(llm.name, scenario, [g.name for g in gpus])
    return predicted_metrics(llm, gpus, scenario, logo=(source == "logo"), t_out=t_out)
