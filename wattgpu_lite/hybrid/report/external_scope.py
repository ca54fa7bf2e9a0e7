"""The external check's predictions, asked as each source's harness ran and put in its scope.

Asking. A batch harness asks for B sequences; a replica holds at most its KV-cache capacity B_max
(from a batch-1 call) and runs the rest in later waves, so it is asked min(B, B_max).
``correction=False`` answers with the backbone alone (the shipped model without its corrections;
its interval tables were calibrated on the corrected hybrid: its coverage is only indicative). The
questions go to the engine, not through ``predict_many``'s checks: they are runs a source measured
(eight Splitwise rows ran Llama-2-70B at 4,224 and 8,320 tokens, beyond the 4,096 of its config,
which ``wl.predict`` refuses for a user's request).

Scope. A replica's prediction, put in the scope a published measurement has:
- ITL is per request; throughput covers the ``replicas`` copies (replicas / time per token).
- Power scope ``all_gpus`` sums every GPU measured (replicas × replica power), ``gpu0`` is one GPU
  of a replica (replica power / G); ``node`` (wall power with CPUs, fans and supplies the kit does
  not model) and an unstated scope are not compared.
- A power window holding ``idle_in_window_s`` seconds of idle around a run of T seconds averages
  P̄ = (T·P + t_idle·P_idle) / (T + t_idle), T the run's measured duration (sequences × T_out /
  measured throughput: a fact of the harness) where the source gives the throughput, else the
  predicted one. P_idle is the fitted idle estimate for the answer and the interval's high end,
  the hard power floor for its low end (a measured idle may lie below the estimate, never below
  the floor).
- Energy per output token is the in-scope power over the in-scope throughput, its interval the
  kit's energy interval in ratio.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np
import pandas as pd

from wattgpu_lite.checks import check_level
from wattgpu_lite.energy import backbone, uniques
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.energy.precision import canonical_format
from wattgpu_lite.hybrid.predict import steps
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.specs.resolve import resolve_each, resolve_gpu, resolve_llm


def backbone_model() -> HybridState:
    """The shipped model with no correction on any target."""
    return HybridState.pretrained().backbone_only()


_ASKED = ("llm", "gpu", "t_in", "t_out", "num_gpus", "weights")


def _built(frame: pd.DataFrame) -> tuple[dict, tuple[backbone.Rows, np.ndarray]]:
    """The LLMs, GPUs, token counts, layouts and weight formats of ``frame``'s rows, and their rows
    and KV capacities (:func:`row_arrays.build`), kept for the last few tables asked: a fit asks
    the same rows at a few hundred sets of constants, and the rows do not depend on them."""
    return _built_of(uniques.frame_key(frame, _ASKED))


@lru_cache(maxsize=4)
def _built_of(key: tuple) -> tuple[dict, tuple[backbone.Rows, np.ndarray]]:
    f = uniques.key_frame(key, _ASKED)
    a = {
        "llms": resolve_each(f["llm"], resolve_llm),
        "gpus": resolve_each(f["gpu"], resolve_gpu),
        **{k: f[k].to_numpy(dtype=float) for k in ("t_in", "t_out")},
        "num_gpus": f["num_gpus"].to_numpy(dtype=np.int64),
        "weights": [canonical_format(w) for w in f["weights"]],
    }
    named = {k: a[k] for k in ("t_in", "t_out", "num_gpus", "weights")}
    return a, row_arrays.build(a["llms"], a["gpus"], **named)


def engine_many(frame: pd.DataFrame, level: float, model: HybridState) -> pd.DataFrame:
    """``model``'s predictions for the rows of ``frame`` (columns as ``predict_many``'s, each row
    a run a source measured)."""
    a, built = _built(frame)
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
        built=built,
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
    rows = _built(frame)[1][0]
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


MEASURED = {
    "itl_s": "itl_ms",
    "power_w": "power_w",
    "energy_per_token_j": "energy_per_output_token_j",
    "throughput_tokens_per_s": "throughput_tokens_per_s",
}


def scope_factor(
    scope: pd.Series, replicas: np.ndarray, gpus_per_replica: np.ndarray
) -> np.ndarray:
    """Multiplier from one replica's power to the measured scope (NaN: not comparable)."""
    s = scope.astype(str).to_numpy()
    return np.select([s == "all_gpus", s == "gpu0"], [replicas, 1.0 / gpus_per_replica], np.nan)


def run_time_s(pred: pd.DataFrame, rows: pd.DataFrame) -> np.ndarray:
    """T of a batch run [s]: sequences × T_out / measured throughput, else / predicted throughput
    (infinite for a rate: no idle share)."""
    seqs = pred["requested"].to_numpy(dtype=float) * rows["replicas"].to_numpy(dtype=float)
    tokens = seqs * pred["t_out"].to_numpy(dtype=float)
    measured = rows["throughput_tokens_per_s"].to_numpy(dtype=float)
    predicted = rows["replicas"].to_numpy(dtype=float) / pred["time_per_token_s"].to_numpy(
        dtype=float
    )
    t = tokens / np.where(np.isfinite(measured), measured, predicted)
    return np.where(np.isnan(seqs), np.inf, t)


def window_weight(pred: pd.DataFrame, rows: pd.DataFrame) -> np.ndarray:
    """Busy share of the power window, T / (T + t_idle) (1 when the window holds no idle)."""
    t_idle = np.nan_to_num(rows["idle_in_window_s"].to_numpy(dtype=float), nan=0.0)
    run = run_time_s(pred, rows)
    share = np.ones_like(run)
    idle = t_idle > 0  # divided only there: a run of unknown length (NaN) with no idle is busy
    share[idle] = run[idle] / (run[idle] + t_idle[idle])
    return share


def _power(pred: pd.DataFrame, rows: pd.DataFrame, scope_col: str, key: str) -> np.ndarray:
    """In-scope, window-averaged power of the prediction column ``key``; the idle seconds at the
    idle estimate, or at the power floor for a low end (``key`` ending in ``_lo``)."""
    reps = rows["replicas"].to_numpy(dtype=float)
    factor = scope_factor(rows[scope_col], reps, rows["num_gpus"].to_numpy(dtype=float) / reps)
    w = window_weight(pred, rows)
    idle = pred["power_floor_w" if key.endswith("_lo") else "idle_power_w"].to_numpy(dtype=float)
    return factor * (w * pred[key].to_numpy(dtype=float) + (1 - w) * idle)


STATIC_BATCH = ("fixed_batch", "decode_window")


def static_batch_view(rows: pd.DataFrame, pred: pd.DataFrame) -> pd.DataFrame:
    """The prediction as a static-batch harness times it (where ``pred`` carries the backbone's
    decode shares, :func:`decode_shares`): ITL and its
    ends × s_dec(B)/s(B) on ``fixed_batch`` and ``decode_window`` rows (TPOT: decode steps only),
    at least the step's floor; power and its ends × P_dec(B)/P_busy(B) on ``decode_window`` rows
    (a power window over decode steps only), inside [P_floor, G · TDP]."""
    if "decode_itl_share" not in pred:
        return pred
    harness = rows["harness"].to_numpy()
    itl_share = pred["decode_itl_share"].to_numpy(dtype=float)
    power_share = pred["decode_power_share"].to_numpy(dtype=float)
    static = np.isin(harness, STATIC_BATCH) & np.isfinite(itl_share)
    window = (harness == "decode_window") & np.isfinite(power_share)
    out = pred.copy()
    floor_s = pred["itl_floor_s"].to_numpy(dtype=float)
    low_w, high_w = (pred[k].to_numpy(dtype=float) for k in ("power_floor_w", "replica_tdp_w"))
    for k in ("", "_lo", "_hi"):
        itl = pred[f"itl_s{k}"].to_numpy(dtype=float)
        out[f"itl_s{k}"] = np.where(static, np.maximum(itl * itl_share, floor_s), itl)
        power = pred[f"power_w{k}"].to_numpy(dtype=float)
        out[f"power_w{k}"] = np.where(window, np.clip(power * power_share, low_w, high_w), power)
    return out


def in_scope(rows: pd.DataFrame, pred: pd.DataFrame) -> dict[str, dict[str, np.ndarray]]:
    """Per quantity: predicted, lo, hi (in the measurement's scope), basis and status; a static
    batch's ITL (and a decode window's power) as :func:`static_batch_view` reads them."""
    pred = static_batch_view(rows, pred)
    reps = rows["replicas"].to_numpy(dtype=float)
    tpt = {k: pred[f"time_per_token_s{k}"].to_numpy(dtype=float) for k in ("", "_lo", "_hi")}
    thr = reps / tpt[""]
    energy = _power(pred, rows, "energy_scope", "power_w") / thr
    ratio = {
        k: pred[f"energy_per_token_j{k}"].to_numpy(dtype=float)
        / pred["energy_per_token_j"].to_numpy(dtype=float)
        for k in ("_lo", "_hi")
    }
    tags = {"basis": pred["basis"].to_numpy(), "status": pred["status"].to_numpy()}
    itl = {k: pred[f"itl_s{k}"].to_numpy(dtype=float) for k in ("", "_lo", "_hi")}
    power = {k: _power(pred, rows, "power_scope", f"power_w{k}") for k in ("", "_lo", "_hi")}
    ends = {
        "itl_s": (itl[""], itl["_lo"], itl["_hi"]),
        "power_w": (power[""], power["_lo"], power["_hi"]),
        "energy_per_token_j": (energy, energy * ratio["_lo"], energy * ratio["_hi"]),
        "throughput_tokens_per_s": (thr, reps / tpt["_hi"], reps / tpt["_lo"]),
    }
    return {
        q: dict(zip(("predicted", "lo", "hi"), v, strict=True), **tags) for q, v in ends.items()
    }
