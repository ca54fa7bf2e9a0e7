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
import xgboost

import wattgpu_lite
from wattgpu_lite.energy import backbone_runs as T
from wattgpu_lite.hybrid.fit import conformal as C
from wattgpu_lite.hybrid.fit import fitting as F
from wattgpu_lite.hybrid.fit import protocol as PR
from wattgpu_lite.hybrid.fit.candidates import candidates
from wattgpu_lite.hybrid.predict.intervals import gpu_fingerprint, llm_fingerprint
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.runs import measurements


def held_out_both(ts: T.TrainingSet, progress: bool = False) -> dict:
    """Held-out predictions where the GPU and the LLM of the test rows are both unseen: per GPU and
    per fifth of the LLMs, train without that GPU and without those LLMs."""
    out: dict = {"group": np.empty(len(ts.frame), dtype=object)}
    gpu = ts.frame["gpu"].to_numpy()
    for _, llm_fold in PR.folds(ts, "llm5"):
        for g in sorted(set(gpu)):
            test = llm_fold & (gpu == g)
            train = ~llm_fold & (gpu != g)
            fitted = F.fit_all(ts.take(train))
            out["group"][test] = g
            for cand in candidates():
                pred = F.predict(fitted, ts.take(test), cand)
                for target in T.TARGETS:
                    out.setdefault((cand.name, target), np.empty(len(gpu)))[test] = pred[target]
    return out


def _scores(ts: T.TrainingSet, oof: dict, name: str, target: str) -> np.ndarray:
    return np.abs(np.log(ts.target(target) / oof[name, target]))


def tables(ts: T.TrainingSet, chosen: dict[str, str], oofs: dict[str, dict]) -> dict:
    """basis -> target -> regime -> level -> q."""
    reg = PR.regime(ts)
    plan = {"cv": ("cv", chosen, False), "new gpu": ("logo", chosen, True),
            "new llm": ("llm5", chosen, True), "new gpu and llm": ("both", chosen, True),
            "physics": ("logo", {t: "physics" for t in T.TARGETS}, True)}  # fmt: skip
    out = {}
    for basis, (kind, names, floor) in plan.items():
        oof = oofs[kind]
        out[basis] = {t: C.table(_scores(ts, oof, names[t], t), oof["group"], reg, floor)
                      for t in T.TARGETS}  # fmt: skip
    return out


def ranges(ts: T.TrainingSet, fitted: F.Fitted) -> dict[str, tuple[float, float]]:
    """min and max over the training runs of each watched input (context: measured tokens)."""
    runs = measurements.load(dense_only=True)
    load = T.physics(ts, fitted.constants)["in_flight"]
    context = runs["prompt_tokens"] + runs["generated_tokens"]
    values = {"bandwidth_gbs": ts.rows.bandwidth / 1e9, "fp16_tflops": ts.rows.flops / 1e12,
              "params_b": ts.rows.params_b, "in_flight": np.maximum(load, 1e-3),
              "context_tokens": context.to_numpy(dtype=float)}  # fmt: skip
    return {k: (float(np.min(v)), float(np.max(v))) for k, v in values.items()}


def build(progress: bool = False) -> HybridState:
    """The shipped model, from every dense Watt Counts run (a few minutes on two cores)."""
    ts = T.watt_counts()
    oofs = {k: PR.held_out(ts, k, progress) for k in ("logo", "llm5", "cv")}
    oofs["both"] = held_out_both(ts, progress)
    chosen = PR.choose(ts, oofs["logo"])
    cands = {c.name: c for c in candidates()}
    fitted = F.fit_all(ts, tuple(cands[n] for n in dict.fromkeys(chosen.values())))
    corrections = {t: fitted.corrections[chosen[t], t] for t in T.TARGETS}
    return HybridState(
        fitted.constants, corrections, chosen, tables(ts, chosen, oofs), ranges(ts, fitted),
        frozenset(map(gpu_fingerprint, ts.gpus)), frozenset(map(llm_fingerprint, ts.llms)),
        {"xgboost": xgboost.__version__, "wattgpu_lite": wattgpu_lite.__version__},
    )  # fmt: skip
