"""Model configurations beyond the paper: which inputs and which target, for power and ITL.

- ``paper``: WattGPU's inputs (categorical ``scenario``); targets P/TDP and ln(ITL_paper).
- ``load``: the paper's inputs with ``scenario`` replaced by the numeric load (``log_in_flight``,
  ``busy_fraction``; :mod:`wattgpu_lite.hybrid.load`); ITL target ln(itl_s per request).
- ``hybrid`` (default): ``load`` + a physics stage. A ridge regression per load mode (a batch
  or a rate) of the target on physics in log space — ITL: ln roofline ITL, ln bandwidth and
  compute latency, ln L, ln N, ln BW, ln TFLOPS and the pre-Ampere flag ``legacy_attention``
  (no FlashAttention in vLLM); power: the M/G/∞ busy fraction — then
  XGBoost on its residual: y = w·φ + b + f_xgb(x). The linear stage extrapolates to unseen
  GPUs (in log space), where trees alone stay flat. Power's batch-mode (offline) rows get a tree
  of their own (``batch_trees``): saturated runs near the TDP are another regime than a server's
  duty cycle (lower offline power MdAPE under cv, logo and lolo alike: beyond_ablation.csv).
- ``physics``: the physics stage with XGBoost on the physics features only.

Every configuration predicts both latencies at a load (``itl_s`` per request and
``time_per_token_s`` = itl_s / L, :func:`load.both_latencies`) and ``paper_itl_s`` (the one the
paper reports: aggregate offline, per request on a server).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from wattgpu_lite.hybrid.load import (
    both_latencies,
    is_batch_mode,
    paper_itl_s,
    server_time_per_token_s,
    workload_columns,
)
from wattgpu_lite.hybrid.physics import PHYSICS_FEATURES
from wattgpu_lite.hybrid.stages import LinearStage, numeric_only
from wattgpu_lite.wattgpu.features import CATEGORICAL, ITL_FEATURES, POWER_FEATURES
from wattgpu_lite.wattgpu.predictor import ITL_PARAMS, POWER_PARAMS
from wattgpu_lite.wattgpu.preprocessing import Preprocessor
from wattgpu_lite.wattgpu.regressor import make_regressor

LOAD_FEATURES: tuple[str, ...] = ("log_in_flight", "busy_fraction")
ITL_LINEAR: tuple[str, ...] = (
    "log_roofline_itl_s", "log_bandwidth_latency_s", "log_compute_latency_s", "log_in_flight",
    "log_params_nominal_b", "log_bandwidth_gbs", "log_fp16_tflops", "legacy_attention",
)  # fmt: skip
POWER_LINEAR: tuple[str, ...] = ("busy_fraction",)


def _swap_scenario(columns: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(c for c in columns if c != "scenario") + LOAD_FEATURES


@dataclass(frozen=True)
class Config:
    """Inputs of both models, the linear physics stage (empty: none) and the ITL target
    (``per_request``: ln itl_s per request; else the paper's ln ITL)."""

    name: str
    power_features: tuple[str, ...]
    itl_features: tuple[str, ...]
    power_linear: tuple[str, ...] = ()
    itl_linear: tuple[str, ...] = ()
    per_request: bool = True
    batch_trees: tuple[str, ...] = ()  # targets whose batch-mode rows get a tree of their own

    def features(self, target: str) -> tuple[str, ...]:
        return self.power_features if target == "power" else self.itl_features

    def linear(self, target: str) -> tuple[str, ...]:
        return self.power_linear if target == "power" else self.itl_linear


_LOAD_P, _LOAD_I = _swap_scenario(POWER_FEATURES), _swap_scenario(ITL_FEATURES)
CONFIGS: dict[str, Config] = {
    "paper": Config("paper", POWER_FEATURES, ITL_FEATURES, per_request=False),
    "load": Config("load", _LOAD_P, _LOAD_I),
    "hybrid": Config("hybrid", _LOAD_P, _LOAD_I, POWER_LINEAR, ITL_LINEAR, batch_trees=("power",)),
    "physics": Config("physics", PHYSICS_FEATURES, PHYSICS_FEATURES, POWER_LINEAR, ITL_LINEAR),
}
DEFAULT_CONFIG = "hybrid"
PARAMS = {"power": POWER_PARAMS, "itl": ITL_PARAMS}


def encode_target(frame: pd.DataFrame, target: str, per_request: bool) -> np.ndarray:
    """Training target: P/TDP; ln(itl_s per request) if ``per_request`` else ln(paper ITL)."""
    if target == "power":
        return (frame["power_w"] / frame["tdp_w"]).to_numpy(dtype=float)
    if not per_request:
        return np.log(frame["itl_s"].to_numpy(dtype=float))
    itl, _ = both_latencies(frame["itl_s"], is_batch_mode(frame), frame["in_flight"])
    return np.log(itl)


def decode_itl(pred: np.ndarray, frame: pd.DataFrame, per_request: bool) -> pd.DataFrame:
    """itl_s, time_per_token_s and paper_itl_s from the ITL model's output (ln seconds)."""
    batch_mode, load = is_batch_mode(frame), frame["in_flight"].to_numpy()
    if per_request:
        itl = np.exp(pred)
        tpt = itl / load
    else:
        itl, tpt = both_latencies(np.exp(pred), batch_mode, load)
    work = workload_columns(frame)
    tpt = np.where(batch_mode, tpt, server_time_per_token_s(work["rate_qps"], work["t_out"]))
    paper = paper_itl_s(itl, tpt, batch_mode)
    return pd.DataFrame({"itl_s": itl, "time_per_token_s": tpt, "paper_itl_s": paper}, frame.index)


@dataclass
class VariantModel:
    """One fitted target of one configuration: linear physics stage + preprocessing + XGBoost."""

    config: Config
    target: str
    linear: LinearStage
    preprocessor: Preprocessor
    regressor: object
    batch_regressor: object | None = None  # the tree of batch-mode rows, if fitted apart

    def raw(self, frame: pd.DataFrame) -> np.ndarray:
        """Model output: P/TDP or ln ITL (see :func:`encode_target`)."""
        x = self.preprocessor.transform(frame)
        tree = self.regressor.predict(x).astype(float)
        batch = is_batch_mode(frame)
        if self.batch_regressor is not None and batch.any():
            tree[batch] = self.batch_regressor.predict(x[batch]).astype(float)
        return self.linear.predict(frame) + tree

    def predict(self, frame: pd.DataFrame) -> pd.DataFrame:
        """power_w, or itl_s, time_per_token_s and paper_itl_s, for each row."""
        raw = self.raw(frame)
        if self.target == "power":
            return pd.DataFrame({"power_w": raw * frame["tdp_w"].to_numpy(float)}, frame.index)
        return decode_itl(raw, frame, self.config.per_request)


def fit_variant(rows: pd.DataFrame, config: Config, target: str, seed: int = 0) -> VariantModel:
    """Fit the ``target`` model of ``config`` on rows carrying the physics columns."""
    cols = config.features(target)
    cats = [c for c in cols if c in CATEGORICAL]
    prep = Preprocessor.fit(rows, cols, cats) if cats else numeric_only(rows, cols)
    y = encode_target(rows, target, config.per_request)
    linear = LinearStage(config.linear(target)).fit(rows, y)
    x, resid, batch = prep.transform(rows), y - linear.predict(rows), is_batch_mode(rows)
    reg = make_regressor("xgb", PARAMS[target], seed).set_params(n_jobs=1).fit(x, resid)
    batch_reg = None
    if target in config.batch_trees and batch.any():
        batch_reg = make_regressor("xgb", PARAMS[target], seed).set_params(n_jobs=1)
        batch_reg.fit(x[batch], resid[batch])
    return VariantModel(config, target, linear, prep, reg, batch_reg)
