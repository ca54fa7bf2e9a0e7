"""What :class:`predictors.WattGPU` uses beyond the paper: fitting any configuration
(:mod:`variants`), predicting at a numeric load, conformal intervals (:mod:`intervals`) and the
extrapolation check, and their JSON state (no pickle).

Calibration state: per target, per basis (cv, logo, lolo), per scenario group, the sorted
out-of-fold scores |ln(y / ŷ)| rounded to 5 significant figures.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from xgboost import XGBRegressor

from wattgpu_lite.hybrid.ablation import out_of_fold
from wattgpu_lite.hybrid.configs import CONFIGS, VariantModel, fit_variant
from wattgpu_lite.hybrid.extrapolation import warn_extrapolation
from wattgpu_lite.hybrid.intervals import (
    BASES,
    BOTH_UNSEEN,
    basis_for,
    bounds,
    conformal_quantile,
    scenario_group,
)
from wattgpu_lite.hybrid.load import is_batch_mode
from wattgpu_lite.hybrid.stages import LinearStage
from wattgpu_lite.wattgpu.preprocessing import Preprocessor
from wattgpu_lite.wattgpu.regressor import training_rows

TARGET_COLUMNS = {"power": ("power_w",), "itl": ("itl_s", "time_per_token_s", "paper_itl_s")}


def fit_models(rows: pd.DataFrame, config: str, seed: int = 0) -> dict[str, VariantModel]:
    """Both targets of ``config`` fitted on physics-augmented runs (rows with a measurement)."""
    return {
        t: fit_variant(training_rows(rows, t), CONFIGS[config], t, seed) for t in TARGET_COLUMNS
    }


def calibrate(rows: pd.DataFrame, config: str, progress: bool = False) -> dict:
    """{target: {basis: {group: sorted scores}}} from grouped out-of-fold residuals."""
    calib = {}
    for target in TARGET_COLUMNS:
        calib[target] = {}
        for basis in BASES:
            oof = out_of_fold(config, target, basis, progress, rows=rows)
            s, groups = (
                oof["log_residual"].abs().to_numpy(),
                scenario_group(oof["scenario"].eq("offline")),
            )
            calib[target][basis] = {g: sorted(float(f"{v:.5g}") for v in s[groups == g])
                                    for g in ("offline", "server")}  # fmt: skip
    return calib


def row_bases(frame: pd.DataFrame, seen_llms, seen_gpus) -> list[str]:
    """interval_basis per row from whether its LLM and GPU are in the training runs."""
    return [
        basis_for(m in seen_llms, g in seen_gpus)
        for m, g in zip(frame["llm"], frame["gpu"], strict=True)
    ]


def quantile_for(calib: dict, target: str, basis: str, group: str, level: float) -> float:
    """The conformal quantile of one (target, basis, group); the wider of logo/lolo if both new."""
    if basis == BOTH_UNSEEN:
        return max(quantile_for(calib, target, b, group, level) for b in ("logo", "lolo"))
    return conformal_quantile(calib[target][basis][group], level)


def add_intervals(
    out: pd.DataFrame, calib: dict | None, level: float, bases: list[str]
) -> pd.DataFrame:
    """<col>_lo / <col>_hi for every predicted column, and interval_basis (NaN if uncalibrated)."""
    groups = scenario_group(is_batch_mode(out))
    out = out.assign(interval_basis=bases if calib else "none: call calibrate(runs)")
    for target, cols in TARGET_COLUMNS.items():
        q = np.array([quantile_for(calib, target, b, g, level) if calib else np.nan
                      for b, g in zip(bases, groups, strict=True)])  # fmt: skip
        for c in cols:
            out[f"{c}_lo"], out[f"{c}_hi"] = bounds(out[c], q)
    return out


def predict_rows(models: dict[str, VariantModel], frame: pd.DataFrame) -> pd.DataFrame:
    """power_w, itl_s, time_per_token_s, paper_itl_s, energy_per_token_j (= P̄ · 1/throughput)
    and extrapolation (messages naming inputs beyond the training runs; also warned)."""
    out = frame.join(models["power"].predict(frame)).join(models["itl"].predict(frame))
    out["energy_per_token_j"] = out["power_w"] * out["time_per_token_s"]
    features = sorted({*models["power"].preprocessor.numeric, *models["itl"].preprocessor.numeric})
    out["extrapolation"] = warn_extrapolation(out, features)
    return out


def model_state(model: VariantModel) -> dict:
    """JSON state of one target besides its XGBoost file(s)."""
    return {"config": model.config.name, "linear": {"columns": list(model.linear.columns),
            "coefs": model.linear.coefs}, "preprocessing": model.preprocessor.to_dict(),
            "batch_tree": model.batch_regressor is not None}  # fmt: skip


def batch_tree_path(path) -> Path:
    """Where the batch-mode tree of the XGBoost file ``path`` (power.json) lives."""
    path = Path(path)
    return path.with_name(f"{path.stem}_batch.json")


def _xgb(path) -> XGBRegressor:
    reg = XGBRegressor()
    reg.load_model(path)
    return reg


def model_from_state(path, state: dict, target: str) -> VariantModel:
    """Inverse of :func:`model_state` with the XGBoost JSON at ``path``."""
    linear = LinearStage(tuple(state["linear"]["columns"]), state["linear"]["coefs"])
    prep = Preprocessor.from_dict(state["preprocessing"])
    batch = _xgb(batch_tree_path(path)) if state.get("batch_tree") else None
    return VariantModel(CONFIGS[state["config"]], target, linear, prep, _xgb(path), batch)
