"""Summaries of the nested protocol: per held-out group, pooled with a GPU-bootstrap interval, and
beside the paper.

The input is :func:`wattgpu_lite.hybrid.fit.protocol.nested`'s table (one row per held-out run and
target); data/hybrid/nested_<strategy>.csv ships it (built by benchmarks/hybrid_protocol.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.metrics import ape_pct, mdape_pct

BOOTSTRAP = 2000
SEED = 0
PAPER_EXCLUDED_FROM_POWER = ("H100 NVL",)  # the authors' TDP lookup dropped it (PAPERS.md)


def shipped(strategy: str) -> pd.DataFrame:
    """data/hybrid/nested_<strategy>.csv ('logo' or 'lolo')."""
    path = data_dir() / "hybrid" / f"nested_{strategy}.csv"
    return read_csv(path)


def per_group(res: pd.DataFrame) -> pd.DataFrame:
    """MdAPE and 80/90 % coverage per target, scenario group and held-out group."""
    g = res.groupby(["target", "regime", "held_out"], sort=True)
    return g.apply(_cell, include_groups=False).reset_index()


def width_hi_lo(frame: pd.DataFrame, level: int = 80) -> float:
    """Median hi/lo of the ``level`` % intervals: y_pred·e^(±q) spans e^(2q)."""
    return float(np.median(np.exp(2 * frame[f"q{level}"].to_numpy(dtype=float))))


def interval_score(frame: pd.DataFrame, level: int = 80) -> float:
    """Mean Winkler (interval) score of the ``level`` % intervals in log units:
    2q + (2/α)·(distance of ln y outside [ln ŷ − q, ln ŷ + q]), α = 1 − level. Lower is sharper
    and better placed; a wide interval cannot buy a low score, a miss costs 2/α per log unit."""
    alpha = 1 - level / 100
    q = frame[f"q{level}"].to_numpy(dtype=float)
    miss = np.abs(np.log(frame["y_true"] / frame["y_pred"]).to_numpy(dtype=float)) - q
    return float(np.mean(2 * q + 2 / alpha * np.maximum(miss, 0.0)))


def _cell(frame: pd.DataFrame) -> pd.Series:
    return pd.Series(
        {
            "mdape_pct": mdape_pct(frame["y_true"], frame["y_pred"]),
            "coverage80": frame["covered80"].mean(),
            "coverage90": frame["covered90"].mean(),
            "width80_hi_lo": width_hi_lo(frame),
            "interval_score80": interval_score(frame),
            "n_runs": len(frame),
            "candidate": frame["candidate"].iloc[0],
        }
    )


def bootstrap_mdape(res: pd.DataFrame, by: str = "gpu", level: float = 0.9) -> tuple[float, float]:
    """``level`` interval of the pooled MdAPE when the groups (GPUs) are resampled with
    replacement (seed 0, 2,000 draws): how much the figure depends on which GPUs were measured.
    A draw's median is that of its groups' APEs stacked, each group as often as it was drawn
    (:func:`stacked_medians`)."""
    rng = np.random.default_rng(SEED)
    ape = ape_pct(res["y_true"], res["y_pred"])
    labels = res[by].to_numpy()
    names, group = np.unique(labels, return_inverse=True)
    counts = np.empty((BOOTSTRAP, len(names)), dtype=np.int64)
    for b in range(BOOTSTRAP):
        pick = rng.choice(names, size=len(names), replace=True)
        counts[b] = np.bincount(np.searchsorted(names, pick), minlength=len(names))
    stats = stacked_medians(ape, group, counts)
    lo, hi = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return float(lo), float(hi)


def stacked_medians(
    values: np.ndarray, group: np.ndarray, counts: np.ndarray, block: int = 250
) -> np.ndarray:
    """Per row of ``counts`` (draws × groups): the median (numpy's: the mean of the two middle
    values when the count is even; NaN if a drawn group holds a NaN) of ``values`` with each
    value repeated as often as its group ``group`` was drawn, without building the stack. The
    values sorted once, the k-th smallest of a draw is the first sorted value whose running count
    of repeats exceeds k: the same order statistics, hence the same floats, as np.median."""
    order = np.argsort(values, kind="stable")
    ordered, of_group = values[order], group[order]
    has_nan = np.bincount(group, weights=np.isnan(values), minlength=counts.shape[1]) > 0
    out = np.empty(len(counts))
    for start in range(0, len(counts), block):
        c = counts[start : start + block]
        running = np.cumsum(c[:, of_group], axis=1)
        total = running[:, -1]
        low = (running <= ((total - 1) // 2)[:, None]).sum(axis=1)
        high = (running <= (total // 2)[:, None]).sum(axis=1)
        a, b = ordered[low], ordered[high]
        out[start : start + block] = np.where(low == high, a, (a + b) / 2)
    out[(counts[:, has_nan] > 0).any(axis=1)] = np.nan
    return out


def pooled(res: pd.DataFrame, by: str = "gpu") -> pd.DataFrame:
    """Per target and scenario group: MdAPE with its group-bootstrap 90 % interval, coverage, and
    the lowest per-group 80 % coverage."""
    rows = []
    for (target, regime), frame in res.groupby(["target", "regime"], sort=True):
        lo, hi = bootstrap_mdape(frame, by)
        cover = frame.groupby("held_out")["covered80"].mean()
        rows.append(
            {
                "target": target,
                "regime": regime,
                "mdape_pct": mdape_pct(frame["y_true"], frame["y_pred"]),
                "mdape_ci90_lo": lo,
                "mdape_ci90_hi": hi,
                "coverage80": frame["covered80"].mean(),
                "coverage90": frame["covered90"].mean(),
                "width80_hi_lo": width_hi_lo(frame),
                "interval_score80": interval_score(frame),
                "worst_group_coverage80": cover.min(),
                "worst_group": cover.idxmin(),
                "n_runs": len(frame),
            }
        )
    return pd.DataFrame(rows)


def paper_reading(res: pd.DataFrame) -> pd.DataFrame:
    """Pooled MdAPE on all 8 GPUs and on the paper's 7-GPU reading (power without H100 NVL)."""
    seven = res[~((res["target"] == "power") & res["gpu"].isin(PAPER_EXCLUDED_FROM_POWER))]
    eight = _pooled_mdape(res).rename(columns={"mdape_pct": "ours_8_gpus"})
    seven = _pooled_mdape(seven).rename(columns={"mdape_pct": "ours_paper_gpus"})
    return eight.merge(seven, on=["target", "regime"])


def _pooled_mdape(res: pd.DataFrame) -> pd.DataFrame:
    """:func:`pooled`'s target, regime and mdape_pct columns (without its bootstrap)."""
    g = res.groupby(["target", "regime"], sort=True)
    mdape = g.apply(lambda f: mdape_pct(f["y_true"], f["y_pred"]), include_groups=False)
    return mdape.rename("mdape_pct").reset_index()
