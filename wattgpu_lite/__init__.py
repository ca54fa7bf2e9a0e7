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
    wl.predict(m, g, rate_qps=0.1, region="FR").wall       # its energy, CO2e and cost at the wall
    wl.explain(m, g, rate_qps=0.1).table()  # the same prediction, term by term
    wl.WattGPU().fit(wl.measurements()).predict(m, g, scenario="server_low")   # the paper's model
    wl.HybridModel().fit(wl.measurements()).predict(m, g, rate_qps=0.1)        # the hybrid, refitted
    wl.evaluate("power", "logo"); wl.evaluate(model="hybrid", strategy="lolo")

Every public name is in ``__all__`` and in the stub ``__init__.pyi``, so IDEs and type checkers see
them although they are imported on first use. Importing the kit reads no file.

Caches (what each holds; ``wl.clear_caches()`` empties them all, e.g. after editing data/):

- datafiles.verify_folder, datafiles._manifest (≤ 8 folders): the data folders checked against
  their MANIFEST.sha256, and each manifest;
- specs.catalog._gpu_entries, _llm_entries, _alias_entries, _gpu_index, _llm_index: the GPU and
  LLM catalogs, the checkpoint aliases and the name indexes (one each); specs.workload._table, _by_key:
  the named request workloads (data/workloads.csv), and each by its name; specs.engine._table,
  _by_key: the serving engines' documented defaults (data/engines.csv), and each by its name;
- energy.coefficients.coefficients, paper_table3, paper_table4 (one each) and value (≤ 256
  (name, scope) pairs): the energy constants and the paper's tables;
- energy.links._scaleout_gbps (one): the scale-out network of each GPU (data/scaleout_links.csv);
- energy.backbone.energy_terms.shipped_constants, energy.validation.logo_constants (one each): the
  backbone's fitted constants, and those refitted without each GPU;
- energy.backbone.training_runs.watt_counts, measured_boards: the training set and the measured boards;
  energy.backbone.row_arrays._configured (≤ 256 lists of up to 64 configurations): each configuration
  list's read-only arrays, KV blocks and engine limits (a predict's, a ranking's), and
  _configured_one (≤ 4096 configurations): each configuration's numbers, immutable (a long
  table's, gathered by ``predict_many``);
- hybrid.predict.frame_checks._checked (≤ 4096 (LLM, GPU, configuration cells)): the checked
  layout, formats, engine and limit of each configuration a ``predict_many`` row names, or the
  message that refuses it, immutable;
- hybrid.predict.model._pretrained: the shipped hybrid model; hybrid.predict.correction._forest
  (≤ 8 forests): each correction's parsed numpy forest; hybrid.predict.correction._pair_codes
  (≤ 256 lists of up to 64 (LLM, GPU) pairs): each pair list's read-only feature matrix
  and fixed forest codes; hybrid.predict.one_row.setup (≤ 256 (configuration, constants)): a
  single predict's physics arguments but its tokens and load, read-only; energy.float_twin.twin
  (≤ 8 generated functions): each one's twin on Python floats, compiled from its source;
  hybrid.predict.one_config._kept (≤ 256 configurations): a single predict's backbone row but its
  tokens, KV blocks and engine limit, read-only; one_config._facts_of (≤ 4 hybrids, ≤ 1024 facts
  each): a single row's configuration facts (physics only, basis, the q at a level), read-only;
  hybrid.predict.intervals._text_of (≤ 512 GPUs and LLMs): each one's fingerprint, _ends (≤ 8):
  the training ranges' ends as arrays; energy.backbone.searches._pairs (≤ 16): each group list's pairs;
  hybrid.predict.sla_rounds._levels_of (≤ 8 forests): where each correction's load features
  jump (the SLA search's levels);
- hybrid.fit.candidates.spec: the candidates file; hybrid.report.external.table, _predicted
  (≤ 8 (level, correction) pairs), hybrid.report.external_per_gpu.roofline_frame: the external
  check's rows, predictions and roofline; hybrid.report.external_scope._built_of (≤ 4 tables):
  the asked rows' arrays, read-only; hybrid.report.calibration.watt_counts_constants (one): the
  constants fitted on the runs alone;
- wattgpu.predictor._pretrained, wattgpu.baselines.load_factors, wattgpu.paper_results._table,
  wattgpu.features._paper_rows: the shipped WattGPU models, the load factors, the paper's results
  and its GPU rows; wattgpu.evaluation's
  cross_predict results (≤ 32, newest kept; ``clear_cross_predict_cache``);
- selection.accounting.electricity_factors, grid_intensities, default_factor, and
  selection.wall.price_rows: the electricity and grid tables, their defaults, and the price rows
  with their default; selection.answers._currency: the price table's currency; selection.wall.priced_at (≤ 64 regions): each region's price, where and note;
  selection.sources.full_predictor, logo_predictor (one per held-out GPU), logo_table: WattGPU
  refitted for the paper and logo sources; selection.paired.shipped_pairs: the held-out pairs
  of GPUs that calibrate ``wl.compare``'s paired intervals, and paired_half_width (≤ 32
  (regime, target, level)) the half-width each calibrates; selection.layouts._deployments
  (≤ 64 (LLM, GPUs, layouts)): a ranking's valid (GPU, layout) pairs and its refused ones.
"""

from __future__ import annotations

import importlib
import sys
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
    "workloads": "specs.workload",
    "Parallel": "specs.layout",
    "estimate_energy": "selection.answers",  # energy.estimate's, with the wall (and name=)
    "EnergyEstimate": "energy.result",
    "WattGPU": "wattgpu.predictor",
    "evaluate": "hybrid.report.evaluation",
    "measurements": "runs.measurements",
    "HybridModel": "hybrid.fit.estimator",
    "HybridState": "hybrid.predict.model",
    "predict": "selection.answers",  # hybrid.predict.api's, with the wall (and name=)
    "predict_many": "hybrid.predict.api",
    "explain": "selection.answers",
    "Prediction": "hybrid.predict.prediction",
    "rank_gpus": "selection.rank",
    "compare": "selection.compare",
}
# wl.<name> -> module: the chapters (subpackages) and the modules the notebooks and README name
_SUBMODULES: dict[str, str] = {
    "specs": "specs",
    "runs": "runs",
    "energy": "energy",
    "wattgpu": "wattgpu",
    "hybrid": "hybrid",
    "selection": "selection",
    "face": "face",
    "errors": "errors",
    "catalog": "specs.catalog",
    "symbolic": "energy.symbolic",
    "features": "wattgpu.features",
    "baselines": "wattgpu.baselines",
    "predictors": "wattgpu.predictor",
    "evaluation": "wattgpu.evaluation",
    "plots": "face.plots",
    "widgets": "face.widgets",
}


# the public names: every export, every module alias, clear_caches (the stub __init__.pyi too)
__all__ = sorted({*_EXPORTS, *_SUBMODULES, "clear_caches"}, key=str.lower)

# every functools cache of the kit, "module.function" (listed in the docstring above)
_CACHES = (
    "datafiles.verify_folder",
    "datafiles._manifest",
    "specs.catalog._gpu_entries",
    "specs.catalog._llm_entries",
    "specs.catalog._alias_entries",
    "specs.catalog._gpu_index",
    "specs.catalog._llm_index",
    "specs.workload._table",
    "specs.workload._by_key",
    "specs.engine._table",
    "specs.engine._by_key",
    "energy.coefficients.coefficients",
    "energy.coefficients.value",
    "energy.coefficients.paper_table3",
    "energy.coefficients.paper_table4",
    "energy.links._scaleout_gbps",
    "energy.backbone.energy_terms.shipped_constants",
    "energy.validation.logo_constants",
    "energy.backbone.training_runs.watt_counts",
    "energy.backbone.training_runs.measured_boards",
    "energy.backbone.row_arrays._configured",
    "energy.backbone.row_arrays._configured_one",
    "hybrid.predict.frame_checks._checked",
    "hybrid.predict.correction._pair_codes",
    "hybrid.predict.one_row.setup",
    "energy.float_twin.twin",
    "hybrid.predict.one_config._kept",
    "hybrid.predict.one_config._facts_of",
    "hybrid.predict.intervals._text_of",
    "hybrid.predict.intervals._ends",
    "energy.backbone.searches._pairs",
    "selection.answers._currency",
    "hybrid.predict.sla_rounds._levels_of",
    "hybrid.predict.model._pretrained",
    "hybrid.predict.correction._forest",
    "hybrid.fit.candidates.spec",
    "hybrid.report.external.table",
    "hybrid.report.external._predicted",
    "hybrid.report.external_per_gpu.roofline_frame",
    "hybrid.report.external_scope._built_of",
    "hybrid.report.calibration.watt_counts_constants",
    "wattgpu.predictor._pretrained",
    "wattgpu.baselines.load_factors",
    "wattgpu.paper_results._table",
    "wattgpu.features._paper_rows",
    "selection.accounting.electricity_factors",
    "selection.accounting.default_factor",
    "selection.wall.price_rows",
    "selection.wall.priced_at",
    "selection.accounting.grid_intensities",
    "selection.sources.full_predictor",
    "selection.sources.logo_predictor",
    "selection.sources.logo_table",
    "selection.paired.shipped_pairs",
    "selection.paired.paired_half_width",
    "selection.layouts._deployments",
)


def clear_caches() -> None:
    """Empty every cache of the kit (the package docstring lists them), in the modules imported
    so far; nothing is imported to do it. The next call reads and checks the data again."""
    for entry in _CACHES:
        module, name = entry.rsplit(".", 1)
        loaded = sys.modules.get(f"{__name__}.{module}")
        if loaded is not None:
            getattr(loaded, name).cache_clear()
    evaluation = sys.modules.get(f"{__name__}.wattgpu.evaluation")
    if evaluation is not None:
        evaluation.clear_cross_predict_cache()


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
