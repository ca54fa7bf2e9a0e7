"""GPU against GPU: the error of a predicted *ratio*, calibrated on held-out pairs.

Two GPUs serving one model at one workload share much of their prediction error (the same model
offsets, the same harness), so the ratio of their predictions is better known than either value.
The source is the nested leave-one-GPU-out table (data/hybrid/nested_logo.csv, read at run time:
every GPU's rows there are predicted with that GPU unseen).

Per (llm, scenario, target, GPU) the log error is e = median over repeats of ln(ŷ / y). For two
GPUs A, B measured on the same llm and scenario, the predicted ratio ŷ_A / ŷ_B errs by

    d = ln((ŷ_A / ŷ_B) / (y_A / y_B)) = e_A − e_B        (so d_AB = −d_BA, d_AA = 0).

Energy per generated token: at a rate λ (server regime) both GPUs serve the same tokens per
second, λ · T_out, so E = P / (λ · T_out) and the energy ratio is the power ratio: d_energy =
d_power. At a batch (offline regime) E = P × ITL / batch (P × time per token; the runs' offline
ITL is already 1 / throughput, E = P × ITL), the batch the same in prediction and truth, so
ln E_A/E_B = ln P_A/P_B + ln ITL_A/ITL_B and d_energy = d_power + d_itl.

The paired half-width q(level, regime, target) is the finite-sample conformal quantile of |d|
over the pairs (:func:`pair_quantile`): the ratio r̂ has the interval [r̂·e^(−q), r̂·e^(+q)],
hi/lo = e^(2q). Beside it, the ratio of two absolute intervals spans q_A + q_B each way (each
row's own q), hi/lo = e^(2(q_A + q_B)). Coverage is measured honestly (:func:`coverage_rows`):
the pairs containing GPU X are judged with the quantile of the pairs *without* X; the shipped
quantile of a query (:func:`paired_half_width`) uses every pair.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv

LEVELS = (0.8, 0.9)  # the levels the calibration table reports
TARGETS = ("power", "itl", "energy")
KEYS = ["llm", "scenario", "regime", "target"]


def log_errors(res: pd.DataFrame) -> pd.DataFrame:
    """Per (llm, scenario, regime, target, gpu): e = median over repeats of ln(y_pred / y_true),
    and the row's own absolute half-widths q80, q90 (log units; one per prediction)."""
    frame = res.assign(e=np.log(res["y_pred"] / res["y_true"]))
    g = frame.groupby([*KEYS, "gpu"], sort=True)
    return g.agg(e=("e", "median"), q80=("q80", "first"), q90=("q90", "first")).reset_index()


def with_energy(errors: pd.DataFrame) -> pd.DataFrame:
    """``errors`` with target 'energy' rows: server e_energy = e_power; offline e_energy =
    e_power + e_itl (and the absolute half-widths add the same way, as rank's energy bounds do:
    lo both low, hi both high)."""
    wide = errors.pivot_table(
        index=["llm", "scenario", "regime", "gpu"], columns="target", values=["e", "q80", "q90"]
    ).dropna()
    offline = wide.index.get_level_values("regime") == "offline"
    energy = pd.DataFrame(
        {v: wide[(v, "power")] + offline * wide[(v, "itl")] for v in ("e", "q80", "q90")}
    ).reset_index()
    return pd.concat([errors, energy.assign(target="energy")], ignore_index=True)


def pair_errors(errors: pd.DataFrame) -> pd.DataFrame:
    """Every unordered pair of GPUs (gpu_a < gpu_b) on one (llm, scenario, target): d = e_a −
    e_b, and the unpaired half-widths q80_unpaired = q80_a + q80_b (q90 likewise)."""
    both = errors.merge(errors, on=KEYS, suffixes=("_a", "_b"))
    both = both[both["gpu_a"] < both["gpu_b"]]
    return pd.DataFrame(
        {
            **{k: both[k] for k in KEYS},
            "gpu_a": both["gpu_a"],
            "gpu_b": both["gpu_b"],
            "d": both["e_a"] - both["e_b"],
            "q80_unpaired": both["q80_a"] + both["q80_b"],
            "q90_unpaired": both["q90_a"] + both["q90_b"],
        }
    ).reset_index(drop=True)


def pair_quantile(abs_d: np.ndarray, level: float) -> float:
    """The finite-sample conformal quantile: the ⌈(n + 1)·level⌉-th smallest of n scores |d|;
    +inf when that rank exceeds n (too few pairs for ``level``)."""
    s = np.sort(np.asarray(abs_d, dtype=float))
    k = math.ceil((len(s) + 1) * level - 1e-9)
    return float(s[k - 1]) if 1 <= k <= len(s) else math.inf


def leave_gpu_out_quantile(pairs: pd.DataFrame, gpu: str, level: float) -> float:
    """q from the pairs that do not contain ``gpu`` (the honest quantile for pairs with it)."""
    without = pairs[(pairs["gpu_a"] != gpu) & (pairs["gpu_b"] != gpu)]
    return pair_quantile(np.abs(without["d"]), level)


def coverage_rows(pairs: pd.DataFrame, level: float) -> pd.DataFrame:
    """Per GPU X and pair containing X (each pair judged twice, once per member): the paired q
    from the pairs without X, whether |d| ≤ q, and whether the unpaired |d| ≤ q_A + q_B."""
    u = pairs[f"q{round(level * 100)}_unpaired"]
    rows = []
    for gpu in sorted(set(pairs["gpu_a"]) | set(pairs["gpu_b"])):
        mine = (pairs["gpu_a"] == gpu) | (pairs["gpu_b"] == gpu)
        q = leave_gpu_out_quantile(pairs, gpu, level)
        rows.append(
            pd.DataFrame(
                {
                    "held_out": gpu,
                    "q": q,
                    "covered": pairs.loc[mine, "d"].abs() <= q,
                    "q_unpaired": u[mine],
                    "covered_unpaired": pairs.loc[mine, "d"].abs() <= u[mine],
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


@lru_cache(maxsize=1)
def shipped_pairs() -> pd.DataFrame:
    """:func:`pair_errors` of data/hybrid/nested_logo.csv (power, ITL and energy)."""
    return pair_errors(with_energy(log_errors(read_csv(data_dir() / "hybrid" / "nested_logo.csv"))))


@lru_cache(maxsize=32)  # a few (regime, target, level): every ranking asks two
def paired_half_width(regime: str, target: str, level: float = 0.8) -> float:
    """The shipped paired half-width (log units) from every pair of ``regime`` ('offline' or
    'server') and ``target`` ('power', 'itl', 'energy'); +inf if too few pairs for ``level``."""
    pairs = shipped_pairs()
    mine = pairs[(pairs["regime"] == regime) & (pairs["target"] == target)]
    return pair_quantile(np.abs(mine["d"]), level)


def paired_calibration() -> pd.DataFrame:
    """Per regime and target: pairs, the shipped q80/q90, the honest (leave-one-GPU-out)
    coverage at 80 and 90 %, paired and unpaired, and the median 80 % widths (hi/lo)."""
    out = []
    for (regime, target), frame in shipped_pairs().groupby(["regime", "target"], sort=True):
        row = {
            "regime": regime,
            "target": target,
            "n_pairs": len(frame),
            "n_gpus": len(set(frame["gpu_a"]) | set(frame["gpu_b"])),
        }
        for level in LEVELS:
            c, pct = coverage_rows(frame, level), round(level * 100)
            row[f"q{pct}"] = pair_quantile(np.abs(frame["d"]), level)
            row[f"coverage{pct}"] = c["covered"].mean()
            row[f"coverage{pct}_unpaired"] = c["covered_unpaired"].mean()
            if level == 0.8:
                row["width80_hi_lo"] = float(np.median(np.exp(2 * c["q"])))
                row["width80_unpaired_hi_lo"] = float(np.median(np.exp(2 * c["q_unpaired"])))
        out.append(row)
    return (
        pd.DataFrame(out)
        .sort_values(["regime", "target"], key=_target_order)
        .reset_index(drop=True)
    )


def _target_order(col: pd.Series) -> pd.Series:
    return col.map({t: i for i, t in enumerate(TARGETS)}) if col.name == "target" else col


def verdict(lo: float, hi: float, words: tuple[str, str] = ("better", "worse")) -> str:
    """'better' (hi < 1), 'worse' (lo > 1) or 'within the noise' (the interval contains 1);
    '' without an interval. ``words``: the two ends' words (ITL: 'faster', 'slower')."""
    if lo != lo or hi != hi:
        return ""
    return words[0] if hi < 1 else words[1] if lo > 1 else "within the noise"
