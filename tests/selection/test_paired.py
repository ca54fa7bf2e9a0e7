"""The paired interval: the derivation's invariants, the honest coverage rule,
and the calibration table read from data/hybrid/nested_logo.csv at run time (no value pinned)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from wattgpu_lite.selection import paired as P
from wattgpu_lite.selection import ratios


def _errors(gpus=("A", "B", "C"), seed=0) -> pd.DataFrame:
    """Log errors of three GPUs on two LLMs, offline and server, power and ITL."""
    rng = np.random.default_rng(seed)
    rows = [{"llm": m, "scenario": s, "regime": "offline" if s == "offline" else "server",
             "target": t, "gpu": g, "e": rng.normal(0, 0.3), "q80": 0.2, "q90": 0.3}
            for m in ("m1", "m2") for s in ("offline", "server_low") for t in ("power", "itl")
            for g in gpus]  # fmt: skip
    return pd.DataFrame(rows)


def test_log_error_is_the_median_over_repeats():
    res = pd.DataFrame({"llm": "m", "scenario": "offline", "regime": "offline", "target": "power",
                        "gpu": "A", "y_true": [100.0, 110.0, 200.0], "y_pred": 120.0, "q80": 0.1,
                        "q90": 0.2})  # fmt: skip
    e = P.log_errors(res)
    assert len(e) == 1 and e["e"].iloc[0] == pytest.approx(math.log(120 / 110))


def test_pair_error_is_antisymmetric_and_each_pair_appears_once():
    errors = _errors()
    d = P.pair_errors(errors)
    assert (d["gpu_a"] < d["gpu_b"]).all() and not d.duplicated([*P.KEYS, "gpu_a", "gpu_b"]).any()
    flipped = P.pair_errors(errors.assign(gpu=errors["gpu"].map({"A": "Z", "B": "Y", "C": "X"})))
    back = {"Z": "A", "Y": "B", "X": "C"}
    flipped = flipped.assign(gpu_a=flipped["gpu_b"].map(back), gpu_b=flipped["gpu_a"].map(back))
    both = d.merge(flipped, on=[*P.KEYS, "gpu_a", "gpu_b"], suffixes=("", "_ba"))
    assert len(both) == len(d) and np.allclose(both["d"], -both["d_ba"])  # d_AB = −d_BA
    assert np.allclose(d["q80_unpaired"], 0.4)  # q_A + q_B


def test_energy_error_is_power_at_a_rate_and_power_plus_itl_at_a_batch():
    errors = _errors()
    energy = P.with_energy(errors).query("target == 'energy'").set_index(["llm", "scenario", "gpu"])
    wide = errors.pivot_table(index=["llm", "scenario", "gpu"], columns="target", values="e")
    offline = energy.index.get_level_values("scenario") == "offline"
    expected = wide["power"] + np.where(offline, wide["itl"].reindex(energy.index), 0.0)
    assert np.allclose(energy["e"], expected.reindex(energy.index))
    assert np.allclose(energy["q80"], np.where(offline, 0.4, 0.2))


def test_pair_quantile_is_the_finite_sample_rule():
    scores = np.arange(1.0, 10.0)  # n = 9: rank ⌈10 · 0.8⌉ = 8
    assert P.pair_quantile(scores, 0.8) == 8.0
    assert P.pair_quantile(scores[:3], 0.9) == math.inf  # ⌈4 · 0.9⌉ = 4 > 3 pairs


def test_the_leave_one_gpu_out_quantile_never_uses_a_pair_with_that_gpu():
    pairs = P.pair_errors(_errors(("A", "B", "C", "D", "E")))
    with_a = (pairs["gpu_a"] == "A") | (pairs["gpu_b"] == "A")
    q = P.leave_gpu_out_quantile(pairs, "A", 0.8)
    huge = pairs.assign(d=np.where(with_a, 1e6, pairs["d"]))
    assert P.leave_gpu_out_quantile(huge, "A", 0.8) == q < 1e6
    assert q == P.pair_quantile(np.abs(pairs.loc[~with_a, "d"]), 0.8)
    rows = P.coverage_rows(huge, 0.8)
    assert len(rows) == 2 * len(pairs)  # every pair judged once per member
    judged_a = rows[rows["held_out"] == "A"]
    assert (judged_a["q"] == q).all() and not judged_a["covered"].any()


def test_shipped_calibration_table_follows_its_rules():
    table = P.paired_calibration()
    assert set(zip(table["regime"], table["target"], strict=True)) == {
        (r, t) for r in ("offline", "server") for t in P.TARGETS
    }
    for col in ("coverage80", "coverage90", "coverage80_unpaired", "coverage90_unpaired"):
        assert table[col].between(0, 1).all()
    assert (table["q90"] >= table["q80"]).all() and (table["q80"] > 0).all()
    assert (table["width80_hi_lo"] >= 1).all() and (table["width80_unpaired_hi_lo"] >= 1).all()
    server = table[table["regime"] == "server"].set_index("target")
    assert server.loc["energy", "q80"] == server.loc["power", "q80"]  # d_energy = d_power
    assert (table["n_pairs"] > 0).all() and (table["n_gpus"] == 8).all()


def _plans() -> pd.DataFrame:
    """Three plans: two calibrated, one physics-only, at a rate."""
    return pd.DataFrame({
        "energy_per_token_j": [1.0, 1.1, 3.0], "energy_per_token_j_lo": [0.8, 0.9, 1.0],
        "energy_per_token_j_hi": [1.2, 1.3, 9.0], "itl_s": [0.02, 0.01, 0.03],
        "itl_s_lo": [0.015, 0.008, 0.01], "itl_s_hi": [0.03, 0.012, 0.09],
        "basis": ["cv", "cv", "physics"], "replicas": 1.0, "rate_qps": 0.5,
    }, index=["A", "B", "C"])  # fmt: skip


def test_ratios_reference_one_intervals_contain_the_estimate():
    vs = ratios.vs_reference(_plans(), "A", 0.8)
    assert vs.loc["A"].drop("interval").tolist() == [1.0] * 6
    assert list(vs["interval"]) == ["reference", "paired", "unpaired"]
    for q in ("energy_ratio", "itl_ratio"):
        assert (vs[f"{q}_lo"] <= vs[q]).all() and (vs[q] <= vs[f"{q}_hi"]).all()
    q = P.paired_half_width("server", "energy", 0.8)
    assert vs.loc["B", "energy_ratio_hi"] / vs.loc["B", "energy_ratio_lo"] == pytest.approx(
        math.exp(2 * q)
    )
    assert vs.loc["C", "energy_ratio_lo"] == pytest.approx(1.0 / 1.2)  # C_lo / A_hi


@pytest.mark.parametrize("seed", range(5))
def test_within_the_noise_exactly_when_the_interval_contains_one(seed):
    lo, hi = np.sort(np.random.default_rng(seed).uniform(0.3, 3.0, (200, 2)), axis=1).T
    for a, b in zip(lo, hi, strict=True):
        word = P.verdict(a, b)
        assert (word == "within the noise") == (a <= 1 <= b)
        assert word == ("better" if b < 1 else "worse" if a > 1 else "within the noise")
    assert P.verdict(math.nan, math.nan) == ""
