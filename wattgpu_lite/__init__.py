"""wattgpu_lite: the energy and latency of LLM inference on GPUs, for teaching and for choosing hardware.

The public names are imported lazily, so ``import wattgpu_lite as wl`` is quick and a notebook that only
uses the catalogs never pays for XGBoost. ``pip install wattgpu-lite`` is the core (numpy and pandas:
the catalogs, ``predict``, ``estimate_energy``, ``rank_gpus`` and the CLI); the ``[train]`` extra adds
WattGPU and refitting, ``[lab]`` the notebooks' figures, widgets and sympy. A name whose extra is
missing says which one to install.

    import wattgpu_lite as wl
    wl.gpu("H100 NVL"), wl.llm("meta-llama/Llama-3.1-8B-Instruct")
    wl.measurements()                       # the Watt Counts runs, validated
    wl.estimate_energy(m, gpu="H100 NVL", t_in=500, t_out=500, mode="physical")
    wl.predict(m, g, rate_qps=0.1, t_in=500, t_out=300)   # a Prediction with 80 % intervals
    wl.explain(m, g, rate_qps=0.1).table()  # the same prediction, term by term
    wl.WattGPU().fit(wl.measurements()).predict(m, g, scenario="server_low")   # the paper's model
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it (the module is imported on first use)
_EXPORTS: dict[str, str] = {
    "GPU": "specs.catalog",
    "LLM": "specs.catalog",
    "gpu": "specs.catalog",
    "llm": "specs.catalog",
    "gpus": "specs.catalog",
    "llms": "specs.catalog",
    "llm_aliases": "specs.catalog",
    "Parallel": "specs.layout",
    "estimate_energy": "energy.estimate",
    "EnergyEstimate": "energy.result",
    "WattGPU": "wattgpu.predictor",
    "evaluate": "hybrid.report.evaluation",
    "HybridModel": "hybrid.predict.model",
    "predict": "hybrid.predict.api",
    "predict_many": "hybrid.predict.api",
    "explain": "hybrid.predict.explain",
    "Prediction": "hybrid.predict.prediction",
    "rank_gpus": "selection.rank",
}
# wl.<name> -> module: the chapters (subpackages) and the modules the notebooks and README name
_SUBMODULES: dict[str, str] = {
    "specs": "specs", "runs": "runs", "energy": "energy", "wattgpu": "wattgpu", "hybrid": "hybrid",
    "selection": "selection", "face": "face", "errors": "errors",
    "catalog": "specs.catalog", "measurements": "runs.measurements", "symbolic": "energy.symbolic",
    "features": "wattgpu.features", "baselines": "wattgpu.baselines",
    "predictors": "wattgpu.predictor", "evaluation": "wattgpu.evaluation",
    "plots": "face.plots", "widgets": "face.widgets",
}  # fmt: skip


def __getattr__(name: str) -> Any:
    if name not in _SUBMODULES and name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = importlib.import_module(f"{__name__}.{_SUBMODULES.get(name) or _EXPORTS[name]}")
    except ImportError as err:  # a module of an optional extra: say which extra installs it
        from wattgpu_lite.errors import missing_extra

        found = missing_extra(f"wl.{name}", err)
        if found is None:
            raise
        raise found from None
    return module if name in _SUBMODULES else getattr(module, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS) | set(_SUBMODULES))
