"""WattGPU's inputs: three engineered features and the two feature lists (WattGPU §4).

Every input comes from public metadata only — the LLM's Hugging Face config and the GPU's spec
sheet — plus the workload scenario, so a row can be built for any (LLM, GPU, scenario), including
a GPU or an LLM that is in no table (``GPU.from_spec``, ``LLM.from_hf_config``).

WattGPU knows its 8 measured GPUs by the paper's own rows (``data/paper_wattgpu_gpu_features.csv``,
WattGPU's gpu_features.csv @4e010359), which :func:`paper_gpu` lays over the catalog: the models
were fitted on those values, even where a datasheet disagrees (the paper's "H200 NVL" is 700 W and
4,890 GB/s; NVIDIA's H200 NVL, the catalog row, is 600 W and 4,800 GB/s). Every other GPU is its
catalog row.

N is :attr:`LLM.params_nominal_b`, the published parameter count in billions (for the Watt Counts
models exactly WattGPU's ``total_b_params``), so the features equal the paper's.

    import wattgpu_lite as wl
    wl.features.feature_frame([wl.llm("meta-llama/Llama-3.1-8B-Instruct")], wl.gpus(), ["offline"])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from functools import cache

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.runs.measurements import SCENARIOS
from wattgpu_lite.specs.catalog import GPU, LLM, gpu, llm
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm

# The power model's 11 inputs (target P/TDP), in the order of the authors' notebook.
POWER_FEATURES: tuple[str, ...] = (
    "scenario",
    "log_params_nominal_b",
    "model_type",
    "n_kv_heads",
    "n_layers",
    "bandwidth_gbs",
    "boost_ratio",
    "transistors_m",
    "base_clock_mhz",
    "release_year",
    "bandwidth_latency_s",
)
# The ITL model's 14 inputs (target ln ITL).
ITL_FEATURES: tuple[str, ...] = (
    "scenario",
    "model_type",
    "params_nominal_b",
    "hidden_size",
    "n_heads",
    "n_kv_heads",
    "n_layers",
    "bandwidth_gbs",
    "memory_gb",
    "memory_type",
    "fp16_tflops",
    "release_year",
    "bandwidth_latency_s",
    "compute_latency_s",
)
FEATURES: dict[str, tuple[str, ...]] = {"power": POWER_FEATURES, "itl": ITL_FEATURES}
# text-valued inputs: most-frequent imputation + ordinal encoding (unknown -> -1)
CATEGORICAL: tuple[str, ...] = ("scenario", "model_type", "memory_type")
LLM_FIELDS = ("model_type", "params_nominal_b", "hidden_size", "n_heads", "n_kv_heads", "n_layers")
GPU_FIELDS = (
    "tdp_w",
    "base_clock_mhz",
    "boost_clock_mhz",
    "bandwidth_gbs",
    "memory_gb",
    "memory_type",
    "fp16_tflops",
    "transistors_m",
    "release_year",
)


def boost_ratio(base_clock_mhz, boost_clock_mhz):
    """Boosting ratio = boost clock / base clock (dimensionless, >= 1)."""
    return boost_clock_mhz / base_clock_mhz


def bandwidth_latency_s(params_b, bandwidth_gbs):
    """Seconds to read the FP16 weights once: 2 [B/param] * N [1e9 params] / BW [1e9 B/s]."""
    return 2.0 * params_b / bandwidth_gbs


def compute_latency_s(params_b, fp16_tflops):
    """Seconds for one token's 2N FLOPs at peak dense FP16: 2 * N * 1e9 / (TFLOPS * 1e12)."""
    return 2.0 * params_b * 1e9 / (fp16_tflops * 1e12)


PAPER_GPUS = "paper_wattgpu_gpu_features.csv"


def paper_gpus() -> pd.DataFrame:
    """WattGPU's rows of its 8 measured GPUs (data/paper_wattgpu_gpu_features.csv), in its order."""
    return read_csv(data_dir() / PAPER_GPUS)


@cache
def _paper_rows() -> dict[str, dict]:
    """Catalog name -> the paper's values of GPU_FIELDS and its source."""
    return paper_gpus().set_index("name")[[*GPU_FIELDS, "source"]].to_dict("index")


def paper_gpu(device: str | GPU) -> GPU:
    """The GPU as WattGPU saw it: for one of the paper's 8 measured boards, named or given as its
    catalog row, the catalog row with the paper's values; any other GPU (or a user's own spec of
    one) as it is."""
    row = gpu(device) if isinstance(device, str) else device
    paper = _paper_rows().get(row.name)
    if paper is None or (not isinstance(device, str) and row != gpu(row.name)):
        return row
    return dataclasses.replace(row, **paper)


def check_scenario(scenario: str) -> str:
    """Return ``scenario`` if it is one of SCENARIOS, else raise InvalidInputError."""
    if scenario not in SCENARIOS:
        raise InvalidInputError(
            f"unknown scenario {scenario!r}; use one of {', '.join(SCENARIOS)} "
            "(offline = 1,000 prompts at once; server_low/high = Poisson 0.017/0.33 req/s)"
        )
    return scenario


def unsupported(model: LLM) -> str:
    """Why WattGPU does not answer for ``model`` ("" if it does): its features and training runs
    assume a dense model, every parameter used for every token, stored in 16 bits."""
    if not (model.is_moe or model.weight_bits < 16):
        return ""
    kind = "a mixture-of-experts" if model.is_moe else f"a {model.weight_format}-weight"
    return (
        f"{model.name!r} is {kind} model: WattGPU is trained and evaluated on dense models "
        "only, with 16-bit weights on one GPU. Use wl.predict (the physics backbone answers "
        "for it, with wider intervals) or pick a dense model from wl.llms()."
    )


def llm_columns(model: LLM) -> dict:
    """The LLM's raw inputs, keyed by feature column name, and what the physical limits read
    (no input: :mod:`~wattgpu_lite.wattgpu.physical_limits`): params_b, params_always_b, and
    why WattGPU does not cover the model ("" when it does)."""
    limits = {"params_b": model.params_b, "params_always_b": model.params_always_b}
    limits["unsupported"] = unsupported(model)  # "" for a dense 16-bit model
    return {"llm": model.name, **{f: getattr(model, f) for f in LLM_FIELDS}, **limits}


def gpu_columns(device: GPU) -> dict:
    """The GPU's raw inputs (and TDP, the power normaliser), keyed by feature column name."""
    return {"gpu": device.name, **{f: getattr(device, f) for f in GPU_FIELDS}}


def engineer(frame: pd.DataFrame) -> pd.DataFrame:
    """Add boost_ratio, log_params_nominal_b, bandwidth_latency_s, compute_latency_s (vectorised)."""
    n_b = frame["params_nominal_b"].astype(float)
    return frame.assign(
        boost_ratio=boost_ratio(frame["base_clock_mhz"], frame["boost_clock_mhz"]),
        log_params_nominal_b=np.log(n_b),
        bandwidth_latency_s=bandwidth_latency_s(n_b, frame["bandwidth_gbs"]),
        compute_latency_s=compute_latency_s(n_b, frame["fp16_tflops"]),
    )


def feature_frame(
    llms: Iterable[LLM | str], gpus: Iterable[GPU | str], scenarios: Iterable[str]
) -> pd.DataFrame:
    """One tidy row per (LLM, GPU, scenario): identifiers, tdp_w, raw and engineered inputs.

    Names are looked up in the catalogs; a GPU the paper measured, by name or as its catalog row,
    takes the paper's values (:func:`paper_gpu`); other GPU and LLM objects are used as is, and
    anything else is read as ``wl.predict`` reads it (a spec or config dict, a path), or refused.
    """
    models = pd.DataFrame(
        [llm_columns(m if isinstance(m, LLM) else resolve_llm(m)) for m in several("llms", llms)]
    )
    devices = [g if isinstance(g, str | GPU) else resolve_gpu(g) for g in several("gpus", gpus)]
    devices = pd.DataFrame([gpu_columns(paper_gpu(g)) for g in devices])
    loads = pd.DataFrame({"scenario": [check_scenario(s) for s in several("scenarios", scenarios)]})
    grid = models.merge(devices, how="cross").merge(loads, how="cross")
    return engineer(grid)


def several(axis: str, values: Iterable) -> list:
    """``values`` as a list of one or more, or InvalidInputError naming ``axis``: a bare name would
    be read letter by letter (``'L4'`` as GPUs 'L' and '4'), a bare LLM or GPU is not a list."""
    if isinstance(values, str | LLM | GPU):
        bare = values if isinstance(values, str) else values.name
        raise InvalidInputError(
            f"feature_frame: {axis} must be a list, not the single {bare!r:.80}; write "
            f"{axis}=[{bare!r:.80}]"
        )
    try:
        items = list(values)
    except TypeError:
        raise InvalidInputError(
            f"feature_frame: {axis} must be a list, got {type(values).__name__}"
        ) from None
    if not items:
        raise InvalidInputError(f"feature_frame: {axis} is empty; give at least one")
    return items


def run_features(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs with every input attached (joined on their ``llm`` and ``gpu`` names)."""
    models = pd.DataFrame([{**llm_columns(llm(n)), "llm": n} for n in runs["llm"].unique()])
    devices = pd.DataFrame([{**gpu_columns(paper_gpu(n)), "gpu": n} for n in runs["gpu"].unique()])
    joined = runs.merge(models, on="llm", how="left").merge(devices, on="gpu", how="left")
    return engineer(joined.set_index(runs.index))
