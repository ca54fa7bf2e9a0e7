"""``wl.HybridModel``: the hybrid predictor in an estimator's shape, like ``wl.WattGPU``.

    m = wl.HybridModel().fit(wl.measurements())     # refit on a runs table (XGBoost: [train])
    m = wl.HybridModel.pretrained()                  # the shipped model, no fitting (numpy only)
    m.predict(llm, gpu, rate_qps=0.1)                # a Prediction, wl.predict's numbers
    m.predict_many(frame)                            # one row per input row, as wl.predict_many's
    m.save(folder); wl.HybridModel.load(folder)      # the state's JSON files

What it fits and holds is a :class:`~wattgpu_lite.hybrid.predict.model.HybridState` (``state``):
:func:`wattgpu_lite.hybrid.fit.build.build` on the runs given — without the shipped model's
cross-source ITL table (built from other harnesses' rows, not from runs), so a refitted model
gives every configuration the runs never cover its runs-calibrated 'physics' intervals.
Predicting passes that state to the hybrid's ``predict`` / ``predict_many`` (their ``model``
keyword): no global model is swapped, so two estimators predict side by side. XGBoost, SciPy and tqdm are imported when
:meth:`HybridModel.fit` first needs them: importing this module needs numpy and pandas only.
"""

from __future__ import annotations

import numbers
from pathlib import Path

import pandas as pd

from wattgpu_lite.energy.backbone.constants_fit import fit_constants
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.fit.build import build, dense_runs
from wattgpu_lite.hybrid.fit.candidates import ConstantsBy
from wattgpu_lite.hybrid.predict import api as hybrid_api
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.prediction import Prediction
from wattgpu_lite.jsonfiles import model_folder
from wattgpu_lite.runs.training import check_training_runs


class HybridModel:
    """The hybrid predictor (backbone + bounded correction + intervals) as an estimator:
    ``fit(runs)`` builds its :class:`HybridState`, ``predict`` and ``predict_many`` use it.

    ``seed``: XGBoost's random state in every fit (the shipped model: 0).
    """

    def __init__(self, seed: int = 0) -> None:
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):  # numpy's too
            raise InvalidInputError(f"seed must be an integer, got {seed!r}")
        self.seed = seed
        self.state: HybridState | None = None

    def __repr__(self) -> str:
        if self.state is None:
            return f"HybridModel(seed={self.seed}, not fitted)"
        chosen = ", ".join(f"{t}={name!r}" for t, name in sorted(self.state.chosen.items()))
        return (
            f"HybridModel(seed={self.seed}, fitted on {len(self.state.seen_gpus)} GPUs and "
            f"{len(self.state.seen_llms)} LLMs; {chosen})"
        )

    @property
    def fitted(self) -> bool:
        """Whether the model has a state (from :meth:`fit`, :meth:`pretrained` or :meth:`load`)."""
        return self.state is not None

    def fit(
        self, runs: pd.DataFrame, progress: bool = False, constants_by: ConstantsBy = fit_constants
    ) -> HybridModel:
        """Build the state from the dense rows of ``runs`` (a ``wl.measurements()`` table, or rows
        of it; MoE rows are dropped) and return ``self`` (a few minutes on two cores). The
        backbone's constants are fitted on ``runs`` alone unless ``constants_by`` says otherwise:
        the shipped model's also fit other harnesses' rows (``constants_by=partial(
        calibrated_folds.constants_without, name=m.state.built_with["constants"])`` with
        ``wattgpu_lite.hybrid.report.calibrated_folds`` rebuilds it from every dense Watt Counts
        run). XGBoost, SciPy and tqdm (the ``[train]`` extra) are imported when first needed."""
        dense = dense_runs(check_training_runs(runs, "HybridModel().fit"))
        gpus, llms = dense["gpu"].nunique(), dense["llm"].nunique()
        if gpus < 2 or llms < 5:  # a one-GPU fit was a StopIteration, a one-LLM one sklearn's
            protocol = "holds out one GPU at a time and a fifth of the LLMs"
            raise InvalidInputError(
                f"HybridModel().fit: runs has dense rows of {gpus} GPU(s) and {llms} LLM(s); its "
                f"held-out protocol {protocol}: give runs of 2 GPUs or more and 5 LLMs or more"
            )
        self.state = build(dense, progress=progress, seed=self.seed, constants_by=constants_by)
        return self

    def predict(self, llm, gpu, **kw) -> Prediction:
        """:func:`wattgpu_lite.hybrid.predict.api.predict` with this model's state (every keyword
        as there): ``wl.predict``'s numbers, without the wall (for it, pass the state:
        ``wl.predict(llm, gpu, model=m.state, region="FR")``)."""
        return hybrid_api.predict(llm, gpu, model=self._state("predict"), **kw)

    def predict_many(self, frame: pd.DataFrame, **kw) -> pd.DataFrame:
        """``wl.predict_many(frame, **kw)`` with this model's state (every keyword as there)."""
        return hybrid_api.predict_many(frame, model=self._state("predict_many"), **kw)

    def save(self, folder: str | Path) -> Path:
        """Write the state to ``folder`` (:meth:`HybridState.save`: JSON only) and return it."""
        return self._state("save").save(model_folder(folder, "HybridModel.save"))

    @classmethod
    def load(cls, folder: str | Path, seed: int = 0) -> HybridModel:
        """A model whose state is read from ``folder`` (inverse of :meth:`save`)."""
        return cls._with(HybridState.load(model_folder(folder, "HybridModel.load")), seed)

    @classmethod
    def pretrained(cls) -> HybridModel:
        """The shipped model (data/models/wattgpu_hybrid, seed 0), without fitting."""
        return cls._with(HybridState.pretrained(), 0)

    @classmethod
    def _with(cls, state: HybridState, seed: int) -> HybridModel:
        """A model holding ``state`` as if fitted with ``seed``."""
        model = cls(seed)
        model.state = state
        return model

    def _state(self, action: str) -> HybridState:
        """The state, or RuntimeError naming fit, pretrained and load when there is none."""
        if self.state is None:
            raise RuntimeError(
                f"this HybridModel is not fitted, so it cannot {action}: call "
                ".fit(wl.measurements()) first, or use HybridModel.pretrained() "
                "(the shipped model) or HybridModel.load(folder)"
            )
        return self.state
