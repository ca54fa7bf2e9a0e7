"""Intervals from cross-source residuals, per regime, judged leave one source out.

The 80 % intervals calibrated on Watt Counts alone cover the published measurements by being wide
(median ITL hi/lo about 6). Here each held-out source gets intervals built only from the *other*
sources' residuals in its regime (the shipped ITL intervals where the runs never reach are built
so from every source: hybrid.predict.interval_steps):

    z = ln(measured / predicted)        on every other source's rows of the same quantity and regime
    [lo, hi] = predicted · exp(Q_z((1 − level)/2)), predicted · exp(Q_z((1 + level)/2))

then clipped to what physics allows in the measurement's scope (ITL ≥ the step's bytes/bandwidth
floor; power in [floor, G · TDP] × the scope's factor; throughput ≤ replicas · max batch / ITL
floor; J/token ≥ the power floor over that throughput), with the prediction kept inside.

**Regime** (written down before any score was seen): the GPU seen in training or not; one GPU or
several per replica; sequences in flight ≤ 16 or more; prompt + output ≤ 1,024 tokens or more. A
regime cell with fewer than ``min_rows`` residuals (20) falls back to the next coarser key (context
dropped, then batch, then the GPU flag, then the quantity alone); with fewer everywhere the row
keeps the kit's own interval (``regime_depth`` = 5). Nothing is tuned on the held-out
source: the level, the bands and ``min_rows`` are fixed here, and no fitted constant is refitted.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.energy.backbone import training_runs
from wattgpu_lite.hybrid.report import external, external_scope

#: the regime keys, finest first; each later key is a coarser fallback
REGIME_KEYS = (
    ("quantity", "gpu_seen", "replica", "batch_band", "context_band"),
    ("quantity", "gpu_seen", "replica", "batch_band"),
    ("quantity", "gpu_seen", "replica"),
    ("quantity", "replica"),
    ("quantity",),
)
BATCH_SPLIT = 16  # sequences in flight per replica
CONTEXT_SPLIT = 1024  # prompt + output tokens
MIN_ROWS = 20


def regimes(ext: pd.DataFrame, pred: pd.DataFrame) -> pd.DataFrame:
    """``ext`` (:func:`~wattgpu_lite.hybrid.report.external.compare`) with each row's regime:
    ``gpu_seen``, ``replica``, ``batch_band`` and ``context_band`` (``pred``: the asked rows'
    predictions, indexed like ``ext["ask"]``)."""
    at = ext["ask"].to_numpy()
    boards = set(training_runs.measured_boards().values())
    in_flight = pred["in_flight"].to_numpy(dtype=float)[at]
    tokens = (pred["t_in"] + pred["t_out"]).to_numpy(dtype=float)[at]
    gpus = ext["num_gpus"].to_numpy(dtype=float) / ext["replicas"].to_numpy(dtype=float)
    (few, many), (short, long) = band_labels(BATCH_SPLIT), band_labels(CONTEXT_SPLIT)
    return ext.assign(
        gpu_seen=ext["gpu_asked"].isin(boards),
        replica=np.where(gpus > 1, "several GPUs", "one GPU"),
        batch_band=np.where(in_flight > BATCH_SPLIT, many, few),
        context_band=np.where(tokens > CONTEXT_SPLIT, long, short),
    )


def band_labels(split: int) -> tuple[str, str]:
    """The lower and upper band's labels of a regime split: ("≤ split", "> split")."""
    return f"≤ {split}", f"> {split}"


def physical_limits(ext: pd.DataFrame, pred: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """Per ``ext`` row, the lowest and highest value physics allows in the measurement's scope
    (``rows``: the asked rows of the external table; module docstring)."""
    at = ext["ask"].to_numpy()
    reps = rows["replicas"].to_numpy(dtype=float)
    factor = external_scope.scope_factor(
        rows["power_scope"], reps, rows["num_gpus"].to_numpy(dtype=float) / reps
    )
    energy_factor = external_scope.scope_factor(
        rows["energy_scope"], reps, rows["num_gpus"].to_numpy(dtype=float) / reps
    )
    floor_s = pred["itl_floor_s"].to_numpy(dtype=float)
    floor_w = pred["power_floor_w"].to_numpy(dtype=float)
    most_tps = reps * np.maximum(pred["max_batch"].to_numpy(dtype=float), 1.0) / floor_s
    low = {
        "itl_s": floor_s,
        "power_w": factor * floor_w,
        "throughput_tokens_per_s": 0 * floor_s,
        "energy_per_token_j": energy_factor * floor_w / most_tps,
    }
    high = {
        "itl_s": np.full_like(floor_s, np.inf),
        "power_w": factor * pred["replica_tdp_w"].to_numpy(dtype=float),
        "throughput_tokens_per_s": most_tps,
        "energy_per_token_j": np.full_like(floor_s, np.inf),
    }
    q = ext["quantity"].to_numpy()
    lo = np.select([q == k for k in low], [v[at] for v in low.values()], np.nan)
    hi = np.select([q == k for k in high], [v[at] for v in high.values()], np.nan)
    return pd.DataFrame({"limit_lo": lo, "limit_hi": hi}, index=ext.index)


def held_out_bands(ext: pd.DataFrame, source: str, level: float, min_rows: int) -> pd.DataFrame:
    """Log-residual quantiles ``z_lo``, ``z_hi`` and the regime key used (``regime_depth``: 0 the
    finest) for the rows of ``source``, from the other sources' rows only."""
    mine = ext["source_title"] == source
    others = ext[~mine]
    z = np.log(others["measured"] / others["predicted"])
    out = pd.DataFrame(index=ext.index[mine], columns=["z_lo", "z_hi", "regime_depth"], dtype=float)
    ends = [(1 - level) / 2, (1 + level) / 2]  # the quantiles of the log residuals
    for depth, key in enumerate(REGIME_KEYS):
        todo = out["z_lo"].isna()
        if not todo.any():
            break
        groups = z.groupby([others[k] for k in key])
        sizes, bands = groups.size(), groups.apply(lambda g: tuple(np.quantile(g.to_numpy(), ends)))
        cells = ext.loc[out.index[todo], list(key)]
        for idx, cell in zip(cells.index, map(tuple, cells.to_numpy()), strict=True):
            cell = cell[0] if len(key) == 1 else cell
            if cell in sizes.index and sizes[cell] >= min_rows:
                out.loc[idx] = (*bands[cell], depth)
    return out


def loso_intervals(
    level: float = 0.8, min_rows: int = MIN_ROWS, ext: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Every compared row with its cross-source interval ``lo_x``, ``hi_x`` (module docstring),
    ``covered_x``, ``width_x`` = hi/lo, beside the kit's own ``lo``, ``hi``."""
    ext = external.compare(level) if ext is None else ext
    keep, frame = external.asked()
    rows = external.table().iloc[keep].reset_index(drop=True)
    pred = external_scope.predict_rows(frame, level=level)
    ext = regimes(ext, pred).join(physical_limits(ext, pred, rows))
    bands = pd.concat(
        [held_out_bands(ext, s, level, min_rows) for s in ext["source_title"].unique()]
    ).reindex(ext.index)
    return bounded(ext, bands)


def bounded(ext: pd.DataFrame, bands: pd.DataFrame) -> pd.DataFrame:
    """``ext`` (with ``limit_lo``, ``limit_hi``: :func:`physical_limits`) with the interval
    ``lo_x``, ``hi_x`` of its rows' log-residual quantiles ``bands`` (:func:`held_out_bands`,
    indexed like ``ext``) clipped to physics, the prediction kept inside; ``covered_x``,
    ``width_x`` = hi/lo and ``regime_depth`` (the kit's own interval where no band)."""
    predicted = ext["predicted"].to_numpy(dtype=float)
    lo = np.clip(predicted * np.exp(bands["z_lo"].to_numpy(float)), ext["limit_lo"], predicted)
    hi = np.clip(predicted * np.exp(bands["z_hi"].to_numpy(float)), predicted, ext["limit_hi"])
    none = bands["z_lo"].isna().to_numpy()  # too few residuals anywhere: the kit's own interval
    lo, hi = np.where(none, ext["lo"], lo), np.where(none, ext["hi"], hi)
    depth = np.where(none, len(REGIME_KEYS), bands["regime_depth"].to_numpy(dtype=float))
    measured = ext["measured"].to_numpy(dtype=float)
    return ext.assign(
        lo_x=lo,
        hi_x=hi,
        regime_depth=depth.astype(int),
        covered_x=(lo <= measured) & (measured <= hi),
        width_x=hi / lo,
    )


def _scores(crossed: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Rows, and the coverage and median hi/lo of the kit's and the cross-source intervals, per
    ``keys``."""
    return (
        crossed.groupby(keys)
        .agg(
            rows=("measured", "size"),
            coverage_kit=("covered", "mean"),
            width_kit=("width", "median"),
            coverage_x=("covered_x", "mean"),
            width_x=("width_x", "median"),
        )
        .reset_index()
    )


def per_source(level: float = 0.8, min_rows: int = MIN_ROWS) -> pd.DataFrame:
    """Per source and quantity: rows, the kit's 80 % coverage and median hi/lo, and the same for
    the cross-source intervals (:func:`loso_intervals`)."""
    crossed = loso_intervals(level, min_rows)
    return _scores(crossed, ["source_title", "quantity"]).rename(columns={"source_title": "source"})


def per_quantity(crossed: pd.DataFrame) -> pd.DataFrame:
    """:func:`per_source`'s columns per quantity, over every source (``crossed``: the rows of
    :func:`loso_intervals`)."""
    return _scores(crossed, ["quantity"])


def per_regime(level: float = 0.8, min_rows: int = MIN_ROWS) -> pd.DataFrame:
    """Per quantity, regime dimension and band (GPU seen in training, replica, batch band,
    context band): rows, MdAPE (%), the median predicted/measured ratio, and the coverage and
    median hi/lo of the kit's intervals and of the cross-source ones."""
    x = loso_intervals(level, min_rows).assign(ratio=lambda f: f["predicted"] / f["measured"])
    x["gpu_seen"] = np.where(x["gpu_seen"], "GPU in training", "GPU not in training")
    dims = ["gpu_seen", "replica", "batch_band", "context_band"]
    long = x.melt(
        id_vars=["quantity", "ape_pct", "ratio", "covered", "width", "covered_x", "width_x"],
        value_vars=dims,
        var_name="regime",
        value_name="band",
    )
    keys = ["quantity", "regime", "band"]
    errors = long.groupby(keys).agg(mdape_pct=("ape_pct", "median"), ratio=("ratio", "median"))
    return _scores(long.assign(measured=long["ratio"]), keys).merge(errors.reset_index(), on=keys)
