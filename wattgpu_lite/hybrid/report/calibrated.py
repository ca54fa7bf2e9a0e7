"""The calibrated backbone on the held-out sources, before and after, with its nested intervals.

Reads ``data/hybrid/calibrated_rows.csv`` (:mod:`~wattgpu_lite.hybrid.report.calibrated_folds`:
each source's rows predicted by its leave-one-source-out fold's constants, with intervals from that
fold's inner out-of-sample residuals) and scores it per source and per regime:

- MdAPE = median |predicted / measured − 1| · 100 and the median predicted / measured, *before*
  (the backbone at the constants fitted on the Watt Counts runs alone) and *after* (the fold's
  calibrated constants);
- coverage80 = the share of rows with lo ≤ measured ≤ hi, and the median width hi / lo;
- beside them the plain roofline's and EcoLogits' MdAPE on the same rows
  (:mod:`~wattgpu_lite.hybrid.report.external_per_gpu`).

:data:`GOALS` are issue 28's targets, written down before the table was built; :func:`goals`
says which are met. Nothing here fits or tunes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.energy.paper import ecologits_j_per_token
from wattgpu_lite.energy.precision import streamed_bits
from wattgpu_lite.hybrid.predict.intervals import physics_only
from wattgpu_lite.hybrid.report import external, external_per_gpu
from wattgpu_lite.specs.catalog import llm

MIN_ROWS = 20  # a source or regime cell is judged against the goals from this many rows
#: issue 28's goals at 80 %: coverage band, and per quantity the largest median hi/lo and MdAPE (%)
GOALS = {
    "coverage80": (0.75, 0.90),
    "ratio": (0.85, 1.15),
    "width": {"itl_s": 2.0, "power_w": 1.5, "energy_per_token_j": 2.2},
    "mdape_after": {
        "itl_s": 20.0, "throughput_tokens_per_s": 25.0, "power_w": 10.0, "energy_per_token_j": 20.0
    },
}  # fmt: skip
REGIMES = ("replica", "batch_band", "context_band")
QUANTITY = {"power": "power_w", "itl": "itl_s"}  # a predictor target's quantity in the tables


def shipped() -> pd.DataFrame:
    """The per-row table as built by ``data/scripts/build_calibrated_intervals.py``."""
    return read_csv(data_dir() / "hybrid" / "calibrated_rows.csv")


def with_errors(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with each row's ratios predicted / measured and absolute percentage errors before
    and after, whether its interval covers the measurement and its width hi / lo."""
    measured = rows["measured"].to_numpy(dtype=float)
    before = rows["predicted_watt_counts"].to_numpy(dtype=float) / measured
    after = rows["predicted_calibrated"].to_numpy(dtype=float) / measured
    return rows.assign(
        ratio_before=before,
        ratio_after=after,
        ape_before=np.abs(before - 1) * 100,
        ape_after=np.abs(after - 1) * 100,
        covered=(rows["lo"] <= rows["measured"]) & (rows["measured"] <= rows["hi"]),
        width=rows["hi"] / rows["lo"],
    )


def scores(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per ``keys``: rows, MdAPE and median ratio before and after, coverage80 and median
    width of the intervals (``rows``: :func:`with_errors`' columns)."""
    return (
        rows.groupby(keys, sort=True)
        .agg(
            rows=("measured", "size"),
            mdape_before=("ape_before", "median"),
            mdape_after=("ape_after", "median"),
            ratio_before=("ratio_before", "median"),
            ratio_after=("ratio_after", "median"),
            coverage80=("covered", "mean"),
            width=("width", "median"),
        )
        .reset_index()
    )


def _for_baselines(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with ``ask`` (the position among the asked rows) and EcoLogits' J/token on the
    energy rows (a function of the active parameters alone: nothing is predicted here)."""
    keep, frame = external.asked()
    ask = pd.Index(keep).get_indexer(rows["row"])
    active_b = [llm(n).params_active_b for n in frame["llm"].iloc[ask]]
    energy = (rows["quantity"] == "energy_per_token_j").to_numpy()
    return rows.assign(ask=ask, ecologits=np.where(energy, ecologits_j_per_token(active_b), np.nan))


def per_source(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per held-out source and quantity: :func:`scores` beside the roofline's and EcoLogits'
    MdAPE on the same rows."""
    rows = with_errors(shipped() if table is None else table)
    base = external_per_gpu.baselines(_for_baselines(rows), "source").reset_index()
    return scores(rows, ["source", "quantity"]).merge(base, on=["source", "quantity"])


def per_regime(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per quantity, regime dimension (:data:`REGIMES`: one GPU or several per replica, sequences
    in flight ≤ 16 or more, prompt + output ≤ 1,024 tokens or more) and band: :func:`scores`."""
    rows = with_errors(shipped() if table is None else table)
    long = rows.melt(
        id_vars=[c for c in rows.columns if c not in REGIMES],
        value_vars=list(REGIMES),
        var_name="regime",
        value_name="band",
    )
    return scores(long, ["quantity", "regime", "band"])


def configurations(rows: pd.DataFrame) -> np.ndarray:
    """Per row (``row``: its index in the external table), whether the Watt Counts runs cover its
    configuration or never do, by the predictor's own rule
    (:func:`~wattgpu_lite.hybrid.predict.intervals.physics_only`: MoE, weights below 16 bits or
    several GPUs a replica): the rows whose shipped ITL interval is the cross-source one."""
    keep, frame = external.asked()
    asked = frame.iloc[pd.Index(keep).get_indexer(rows["row"])]
    llms = [llm(name) for name in asked["llm"]]
    bits = [streamed_bits(m, w)[0] for m, w in zip(llms, asked["weights"], strict=True)]
    never = physics_only(llms, asked["num_gpus"].to_numpy(), np.array(bits))
    return np.where(never, "the runs never cover it", "the runs cover it")


def per_configuration(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per quantity and :func:`configurations`' label: :func:`scores`."""
    rows = with_errors(shipped() if table is None else table)
    return scores(rows.assign(configuration=configurations(rows)), ["quantity", "configuration"])


def _met(table: pd.DataFrame, quantity: str) -> dict[str, float]:
    """Shares of ``table``'s cells of ``quantity`` (≥ :data:`MIN_ROWS` rows) meeting each goal."""
    cells = table[(table["quantity"] == quantity) & (table["rows"] >= MIN_ROWS)]
    lo, hi = GOALS["coverage80"]
    r_lo, r_hi = GOALS["ratio"]
    width = GOALS["width"].get(quantity)
    return {
        "cells": len(cells),
        "coverage_ok": int(cells["coverage80"].between(lo, hi).sum()),
        "width_ok": np.nan if width is None else int((cells["width"] <= width).sum()),
        "mdape_ok": int((cells["mdape_after"] <= GOALS["mdape_after"][quantity]).sum()),
        "ratio_ok": int(cells["ratio_after"].between(r_lo, r_hi).sum()),
    }


def goals(table: pd.DataFrame) -> pd.DataFrame:
    """Per quantity, of the cells of ``table`` (:func:`per_source` or :func:`per_regime`) with at
    least :data:`MIN_ROWS` rows: how many, and how many meet each goal of :data:`GOALS` (NaN
    where the quantity has no such goal: throughput's width)."""
    quantities = [q for q in GOALS["mdape_after"] if q in set(table["quantity"])]
    return pd.DataFrame([{"quantity": q, **_met(table, q)} for q in quantities])


def pooled(table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per quantity over every held-out row: :func:`scores`."""
    return scores(with_errors(shipped() if table is None else table), ["quantity"])
