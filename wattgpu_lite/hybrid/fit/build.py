"""Building the shipped hybrid model (data/scripts/build_hybrid_model.py calls :func:`build`).

1. Leave one GPU out over the eight GPUs scores every candidate; the selection rule picks one per
   target (the same rule the nested protocol applies inside each outer fold).
2. The constants and the chosen corrections are refitted on every dense run.
3. Held-out residuals calibrate the intervals, one table per basis (:mod:`calibration`).
4. The training ranges of the watched inputs and the fingerprints of the training GPUs and LLMs
   are stored, so a prediction knows when it extrapolates, without reading the runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import wattgpu_lite
from wattgpu_lite.energy.backbone import training_runs
from wattgpu_lite.energy.backbone.constants_fit import fit_constants
from wattgpu_lite.errors import require
from wattgpu_lite.hybrid.fit import conformal, protocol
from wattgpu_lite.hybrid.fit.candidates import ConstantsBy, Fitted, candidates, fit_all
from wattgpu_lite.hybrid.predict.intervals import gpu_fingerprint, llm_fingerprint
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.runs import measurements


def held_out_both(
    ts: training_runs.TrainingSet, seed: int = 0, constants_by: ConstantsBy = fit_constants
) -> dict:
    """Held-out predictions where the GPU and the LLM of the test rows are both unseen: per GPU and
    per fifth of the LLMs, train without that GPU and without those LLMs (XGBoost's ``seed``)."""
    out: dict = {"group": np.empty(len(ts.frame), dtype=object)}
    gpu = ts.frame["gpu"].to_numpy()
    for _, llm_fold in protocol.folds(ts, "llm5"):
        for g in sorted(set(gpu)):
            test, train = llm_fold & (gpu == g), ~llm_fold & (gpu != g)
            protocol.fill_fold(out, ts, train, test, group=g, seed=seed, constants_by=constants_by)
    return out


def _scores(ts: training_runs.TrainingSet, oof: dict, name: str, target: str) -> np.ndarray:
    return np.abs(np.log(ts.target(target) / oof[name, target]))


def tables(ts: training_runs.TrainingSet, chosen: dict[str, str], oofs: dict[str, dict]) -> dict:
    """basis -> target -> regime -> level -> q."""
    reg = protocol.regime(ts)
    plan = {
        "cv": ("cv", chosen, False),
        "new gpu": ("logo", chosen, True),
        "new llm": ("llm5", chosen, True),
        "new gpu and llm": ("both", chosen, True),
        "physics": ("logo", {t: "physics" for t in training_runs.TARGETS}, True),
    }
    out = {}
    for basis, (kind, names, floor) in plan.items():
        oof = oofs[kind]
        out[basis] = {
            t: conformal.table(_scores(ts, oof, names[t], t), oof["group"], reg, floor)
            for t in training_runs.TARGETS
        }
    return out


def ranges(ts: training_runs.TrainingSet, fitted: Fitted, runs: pd.DataFrame) -> dict[str, tuple]:
    """min and max over the training runs of each watched input (context: measured tokens);
    ``runs``: the dense runs ``ts`` was built from, row for row."""
    load = training_runs.physics(ts, fitted.constants)["in_flight"]
    context = runs["prompt_tokens"] + runs["generated_tokens"]
    values = {
        "bandwidth_gbs": ts.rows.bandwidth / 1e9,
        "fp16_tflops": ts.rows.flops / 1e12,
        "params_b": ts.rows.params_b,
        "in_flight": np.maximum(load, 1e-3),
        "context_tokens": context.to_numpy(dtype=float),
    }
    return {k: (float(np.min(v)), float(np.max(v))) for k, v in values.items()}


def dense_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The dense rows of a runs table (all of them when it has no ``dense`` column), renumbered:
    the rows :func:`~wattgpu_lite.energy.backbone.training_runs.from_runs` trains on, in its order."""
    keep = runs[runs["dense"]] if "dense" in runs else runs
    return keep.reset_index(drop=True)


def build(
    runs: pd.DataFrame | None = None,
    progress: bool = False,
    seed: int = 0,
    constants_by: ConstantsBy = fit_constants,
) -> HybridState:
    """The hybrid model fitted on the dense rows of ``runs`` (a ``wl.measurements()`` table), or by
    default on every dense Watt Counts run (a few minutes on two cores). ``seed``: XGBoost's random
    state in every fit; ``constants_by``: the backbone's constants of a set of runs, in every fold
    and the final fit (the runs' own by default; the shipped model's are calibrated across
    sources, :func:`~wattgpu_lite.hybrid.report.calibrated_folds.constants_without`)."""
    xgboost = require("xgboost", "train", "fitting the hybrid (hybrid.fit.build)")
    if runs is None:
        ts, dense = training_runs.watt_counts(), measurements.load(dense_only=True)
    else:
        dense = dense_runs(runs)
        ts = training_runs.from_runs(dense)
    oofs = {
        k: protocol.held_out(ts, k, progress, seed, constants_by=constants_by)
        for k in ("logo", "llm5", "cv")
    }
    oofs["both"] = held_out_both(ts, seed, constants_by)
    chosen = protocol.choose(ts, oofs["logo"])
    cands = {c.name: c for c in candidates()}
    fitted = fit_all(
        ts, tuple(cands[n] for n in dict.fromkeys(chosen.values())), seed, constants_by
    )
    corrections = {t: fitted.corrections[chosen[t], t] for t in training_runs.TARGETS}
    return HybridState(
        fitted.constants,
        corrections,
        chosen,
        tables(ts, chosen, oofs),
        ranges=ranges(ts, fitted, dense),
        seen_gpus=frozenset(map(gpu_fingerprint, ts.gpus)),
        seen_llms=frozenset(map(llm_fingerprint, ts.llms)),
        built_with={"xgboost": xgboost.__version__, "wattgpu_lite": wattgpu_lite.__version__},
    )
