"""Predictions for the external check: the KV-cache cap of batch harnesses, the backbone's decode
share of a static batch, and the backbone alone.

A batch harness asks for B (or N, or c) sequences; a replica holds at most its KV-cache capacity
B_max at a time, and runs the rest in later waves, so the question asked is min(B, B_max) (B_max from
a first, batch-1 call). ``correction=False`` answers with the backbone alone: the shipped model with
its corrections removed (same constants, same interval tables — the tables were calibrated on the
corrected hybrid, so the backbone's coverage is only indicative).

The questions go to the engine, not through ``predict_many``'s per-row checks: they are runs a
source measured, and eight Splitwise rows ran Llama-2-70B at 4,224 and 8,320 tokens, beyond the
4,096 of its config, which ``wl.predict`` and ``wl.predict_many`` refuse for a user's request.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from wattgpu_lite.checks import check_level
from wattgpu_lite.energy import backbone
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.energy.precision import canonical_format
from wattgpu_lite.hybrid.predict import steps
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.specs.resolve import resolve_each, resolve_gpu, resolve_llm


def backbone_model() -> HybridState:
    """The shipped model with no correction on any target."""
    return HybridState.pretrained().backbone_only()


def _arguments(frame: pd.DataFrame) -> dict:
    """The LLMs, GPUs, token counts, layouts and weight formats of ``frame``'s rows."""
    return {
        "llms": resolve_each(frame["llm"], resolve_llm),
        "gpus": resolve_each(frame["gpu"], resolve_gpu),
        "t_in": frame["t_in"].to_numpy(dtype=float),
        "t_out": frame["t_out"].to_numpy(dtype=float),
        "num_gpus": frame["num_gpus"].to_numpy(dtype=np.int64),
        "weights": [canonical_format(w) for w in frame["weights"]],
    }


def engine_many(frame: pd.DataFrame, level: float, model: HybridState) -> pd.DataFrame:
    """``model``'s predictions for the rows of ``frame`` (columns as ``predict_many``'s, each row
    a run a source measured)."""
    a = _arguments(frame)
    out = steps.predict_arrays(
        model,
        a["llms"],
        a["gpus"],
        a["t_in"],
        t_out=a["t_out"],
        rate_qps=frame["rate_qps"].to_numpy(dtype=float),
        batch=frame["batch"].to_numpy(dtype=float),
        level=check_level(level),
        num_gpus=a["num_gpus"],
        weights=a["weights"],
    )
    return frame.reset_index(drop=True).assign(**out.columns())


def decode_shares(
    frame: pd.DataFrame, constants: backbone.Constants | None = None
) -> dict[str, np.ndarray]:
    """Per batch row, the backbone's decode steps alone against its whole run at the same batch
    (:func:`~wattgpu_lite.energy.backbone.decode_window` over
    :func:`~wattgpu_lite.energy.backbone.at_batch`): ``decode_itl_share`` = s_dec(B) / s(B) and
    ``decode_power_share`` = P_dec(B) / P_busy(B); NaN on rate rows. A static-batch harness
    times decode steps only (TPOT), so its ITL is the run's ITL × the first share. ``constants``:
    the backbone's (the shipped model's by default)."""
    a = _arguments(frame)
    rows, _ = row_arrays.build(
        a["llms"], a["gpus"], a["t_in"], a["t_out"], num_gpus=a["num_gpus"], weights=a["weights"]
    )
    c = HybridState.pretrained().constants if constants is None else constants
    batch = frame["batch"].to_numpy(dtype=float)
    is_batch = ~np.isnan(batch)
    at = np.where(is_batch, batch, 1.0)
    run, dec = backbone.at_batch(rows, at, c), backbone.decode_window(rows, at, c)
    return {
        "decode_itl_share": np.where(is_batch, dec["itl_s"] / run["itl_s"], np.nan),
        "decode_power_share": np.where(is_batch, dec["power_w"] / run["power_w"], np.nan),
    }


def many(frame: pd.DataFrame, level: float, correction: bool) -> pd.DataFrame:
    """``predict_many`` (hybrid), or the backbone alone."""
    return engine_many(frame, level, HybridState.pretrained() if correction else backbone_model())


def capped(frame: pd.DataFrame, level: float = 0.8, correction: bool = True) -> pd.DataFrame:
    """``frame`` with each batch capped at the replica's KV-cache capacity (from a batch-1 call;
    the capacity is memory, not a fitted constant) and the uncapped sequences per replica kept in
    ``requested`` (NaN on rate rows)."""
    batch = frame["batch"].to_numpy(dtype=float)
    is_batch = ~np.isnan(batch)
    probe = frame.assign(batch=np.where(is_batch, 1.0, np.nan))
    cap = many(probe, level, correction)["max_batch"].to_numpy(dtype=float)
    limited = np.where(is_batch, np.minimum(batch, np.maximum(cap, 1.0)), np.nan)
    return frame.assign(batch=limited, requested=batch)


def at_constants(frame: pd.DataFrame, c: backbone.Constants) -> pd.DataFrame:
    """The backbone at constants ``c`` on the capped rows ``frame`` (:func:`capped`'s, with
    ``requested``), with its decode shares at ``c``."""
    asked = frame.drop(columns="requested")
    model = replace(backbone_model(), constants=c)
    return engine_many(asked, 0.8, model).assign(
        requested=frame["requested"].to_numpy(), **decode_shares(asked, c)
    )


def predict_rows(frame: pd.DataFrame, level: float = 0.8, correction: bool = True) -> pd.DataFrame:
    """``many`` on ``frame`` with each batch capped at the replica's KV-cache capacity
    (:func:`capped`), with the backbone's decode shares of a static batch."""
    limited = capped(frame, level, correction)
    requested = limited.pop("requested")
    out = many(limited, level, correction)
    return out.assign(requested=requested.to_numpy(), **decode_shares(limited))
