"""The public names of ``wattgpu_lite`` for IDEs and type checkers: the package imports them on
first use (``__init__.py``'s ``_EXPORTS`` and ``_SUBMODULES``); this stub names each where it
lives. tests/test_public_api.py holds the stub, ``__all__`` and the two maps equal."""

from wattgpu_lite import energy as energy
from wattgpu_lite import errors as errors
from wattgpu_lite import face as face
from wattgpu_lite import hybrid as hybrid
from wattgpu_lite import runs as runs
from wattgpu_lite import selection as selection
from wattgpu_lite import specs as specs
from wattgpu_lite import wattgpu as wattgpu
from wattgpu_lite.energy import symbolic as symbolic
from wattgpu_lite.energy.result import EnergyEstimate as EnergyEstimate
from wattgpu_lite.face import plots as plots
from wattgpu_lite.face import widgets as widgets
from wattgpu_lite.hybrid.fit.estimator import HybridModel as HybridModel
from wattgpu_lite.hybrid.predict.api import predict_many as predict_many
from wattgpu_lite.hybrid.predict.model import HybridState as HybridState
from wattgpu_lite.hybrid.predict.prediction import Prediction as Prediction
from wattgpu_lite.hybrid.report.evaluation import evaluate as evaluate
from wattgpu_lite.runs.measurements import measurements as measurements
from wattgpu_lite.selection.answers import estimate_energy as estimate_energy
from wattgpu_lite.selection.answers import explain as explain
from wattgpu_lite.selection.answers import predict as predict
from wattgpu_lite.selection.compare import compare as compare
from wattgpu_lite.selection.rank import rank_gpus as rank_gpus
from wattgpu_lite.specs import catalog as catalog
from wattgpu_lite.specs.catalog import (
    GPU as GPU,
)
from wattgpu_lite.specs.catalog import (
    LLM as LLM,
)
from wattgpu_lite.specs.catalog import (
    gpu as gpu,
)
from wattgpu_lite.specs.catalog import (
    gpus as gpus,
)
from wattgpu_lite.specs.catalog import (
    llm as llm,
)
from wattgpu_lite.specs.catalog import (
    llm_aliases as llm_aliases,
)
from wattgpu_lite.specs.catalog import (
    llms as llms,
)
from wattgpu_lite.specs.layout import Parallel as Parallel
from wattgpu_lite.specs.workload import workloads as workloads
from wattgpu_lite.wattgpu import baselines as baselines
from wattgpu_lite.wattgpu import evaluation as evaluation
from wattgpu_lite.wattgpu import features as features
from wattgpu_lite.wattgpu import predictor as predictors
from wattgpu_lite.wattgpu.predictor import WattGPU as WattGPU

__version__: str

def clear_caches() -> None: ...

__all__ = [
    "baselines",
    "catalog",
    "clear_caches",
    "compare",
    "energy",
    "EnergyEstimate",
    "errors",
    "estimate_energy",
    "evaluate",
    "evaluation",
    "explain",
    "face",
    "features",
    "gpu",
    "GPU",
    "gpus",
    "hybrid",
    "HybridModel",
    "HybridState",
    "llm",
    "LLM",
    "llm_aliases",
    "llms",
    "measurements",
    "Parallel",
    "plots",
    "predict",
    "predict_many",
    "Prediction",
    "predictors",
    "rank_gpus",
    "runs",
    "selection",
    "specs",
    "symbolic",
    "wattgpu",
    "WattGPU",
    "widgets",
    "workloads",
]
