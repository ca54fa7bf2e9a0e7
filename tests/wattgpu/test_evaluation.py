"""Metrics on hand-made examples; the splits' invariants; one full leave-one-GPU-out run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.wattgpu.evaluation import dataset, folds
from wattgpu_lite.wattgpu.metrics import gpu_tau, llm_tau, mdape_pct, pearson_r, scenario_metrics


def test_mdape_by_hand():
    # errors 10 %, 50 %, 0 %, 20 %  -> median of (0, 10, 20, 50) = 15 %
    assert mdape_pct([100, 2, 5, 10], [110, 1, 5, 12]) == pytest.approx(15.0)


def test_pearson_by_hand():
    assert pearson_r([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson_r([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert np.isnan(pearson_r([1, 2, 3], [5, 5, 5]))


def _frame(rows):
    return pd.DataFrame(rows, columns=["llm", "gpu", "scenario", "y_true", "y_pred"])


def test_gpu_tau_by_hand():
    # LLM a: GPU order true (g1 < g2 < g3), predicted the same: tau = 1.
    # LLM b: true g1 < g2 < g3, predicted g2 < g1 < g3: one discordant pair of 3: tau = 1/3.
    # Repeats are averaged first: b/g1 has two runs with mean 1.0.
    f = _frame([
        ("a", "g1", "offline", 1, 10), ("a", "g2", "offline", 2, 20), ("a", "g3", "offline", 3, 30),
        ("b", "g1", "offline", 0.5, 2), ("b", "g1", "offline", 1.5, 2),
        ("b", "g2", "offline", 2, 1), ("b", "g3", "offline", 3, 3),
    ])  # fmt: skip
    assert gpu_tau(f) == pytest.approx((1 + 1 / 3) / 2)


def test_llm_tau_skips_constant_predictions():
    f = _frame([
        ("a", "g1", "offline", 1, 5), ("b", "g1", "offline", 2, 5),  # constant pred: skipped
        ("a", "g2", "offline", 1, 2), ("b", "g2", "offline", 2, 1),  # reversed: tau = -1
    ])  # fmt: skip
    assert llm_tau(f) == pytest.approx(-1.0)


def test_scenario_groups_pool_the_two_server_loads():
    f = _frame([
        ("a", "g1", "offline", 100, 110), ("a", "g1", "server_low", 100, 150),
        ("a", "g1", "server_high", 100, 80),
    ])  # fmt: skip
    m = scenario_metrics(f).set_index("scenario")
    assert m.loc["offline", "mdape_pct"] == pytest.approx(10.0)
    assert m.loc["server", "mdape_pct"] == pytest.approx(35.0)  # median of 50 and 20
    assert m.loc["server", "n_runs"] == 2


@pytest.fixture(scope="module")
def itl_rows():
    return dataset("itl")


def test_cv_folds_keep_each_pair_together(itl_rows):
    pair = itl_rows["llm"] + "|" + itl_rows["gpu"]
    splits = folds(itl_rows, "cv")
    assert len(splits) == 5
    for train, test in splits:
        assert not set(pair.iloc[train]) & set(pair.iloc[test])
    assert sorted(np.concatenate([t for _, t in splits])) == list(range(len(itl_rows)))


def test_logo_and_lolo_hold_out_one_gpu_or_llm(itl_rows):
    logo, lolo = folds(itl_rows, "logo"), folds(itl_rows, "lolo")
    assert len(logo) == 8 and len(lolo) == 42
    assert all(itl_rows["gpu"].iloc[test].nunique() == 1 for _, test in logo)
    assert all(itl_rows["llm"].iloc[test].nunique() == 1 for _, test in lolo)


def test_bad_strategy_or_target_raises():
    with pytest.raises(InvalidInputError, match="kfold"):
        wl.evaluate("power", "kfold")
    with pytest.raises(InvalidInputError, match="energy"):
        wl.evaluate("energy", "cv")


def test_itl_logo_within_1_5x_of_the_paper():
    table = wl.evaluate("itl", "logo", progress=False)
    assert list(table["model"]) == ["xgb", "xgb", "roofline", "roofline"]
    assert table["paper_mdape_pct"].notna().all()
    xgb = table[table["model"] == "xgb"]
    assert (xgb["mdape_pct"] <= 1.5 * xgb["paper_mdape_pct"]).all()
    # the learned model beats the roofline in both scenario groups
    assert (
        xgb["mdape_pct"].to_numpy()
        < table.loc[table["model"] == "roofline", "mdape_pct"].to_numpy()
    ).all()
    # cached: a second call returns equal numbers without refitting
    pd.testing.assert_frame_equal(wl.evaluate("itl", "logo", progress=False), table)


# ------------------------------------------- wl.evaluate(model="hybrid"): one place, CLI and library
def test_wl_evaluate_hybrid_is_what_the_cli_prints(capsys):
    import json

    from wattgpu_lite.face.cli.main import main
    from wattgpu_lite.hybrid.report import results

    frame = wl.evaluate(model="hybrid", strategy="lolo")
    assert list(frame["table"].unique()) == ["pooled", "per_group", "paper_reading"]
    pooled = frame[frame["table"] == "pooled"]
    expect = results.pooled(results.shipped("lolo"))
    assert pooled["mdape_pct"].tolist() == pytest.approx(expect["mdape_pct"].tolist())
    assert main(["evaluate", "--model", "hybrid", "--strategy", "lolo", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["mdape_pct"] for r in doc["pooled"]] == pytest.approx(
        pooled["mdape_pct"].tolist(), rel=1e-5
    )
    assert len(doc["per_group"]) == int((frame["table"] == "per_group").sum())


def test_wl_evaluate_hybrid_keeps_one_target_and_refuses_what_only_wattgpu_has():
    power = wl.evaluate("power", model="hybrid")
    assert set(power["target"]) == {"power"} and set(wl.evaluate(model="hybrid")["target"]) == {
        "power", "itl"}  # fmt: skip
    with pytest.raises(InvalidInputError, match="'logo', 'lolo' .* or 'loso'"):
        wl.evaluate(model="hybrid", strategy="cv")
    with pytest.raises(InvalidInputError, match="only the hybrid's backbone is calibrated across"):
        wl.evaluate(strategy="loso")  # WattGPU predicts the runs' harness only
    with pytest.raises(InvalidInputError, match="re-score WattGPU"):
        wl.evaluate(model="hybrid", reading="paper_7gpu")
    with pytest.raises(InvalidInputError, match="model must be one of"):
        wl.evaluate(model="xgboost")
    with pytest.raises(InvalidInputError, match="target must be one of"):
        wl.evaluate("energy", model="hybrid")


def test_wl_evaluate_of_wattgpu_is_the_chapters_function():
    from wattgpu_lite.wattgpu.evaluation import evaluate

    pd.testing.assert_frame_equal(
        wl.evaluate("itl", "logo", progress=False), evaluate("itl", "logo", progress=False)
    )


def test_wl_evaluate_loso_is_the_calibrated_tables_and_counts_the_goals_they_meet(capsys):
    import json

    from wattgpu_lite.face.cli.main import main
    from wattgpu_lite.hybrid.report import calibrated

    frame = wl.evaluate(model="hybrid", strategy="loso")
    parts = ["pooled", "per_source", "per_regime", "per_configuration", "goals_per_source"]
    parts += ["goals_per_regime"]
    assert list(frame["table"].unique()) == parts
    by_source = frame[frame["table"] == "per_source"]
    expect = calibrated.per_source()
    assert by_source["source"].tolist() == expect["source"].tolist()
    assert by_source["mdape_after"].tolist() == pytest.approx(expect["mdape_after"].tolist())
    goals = frame[frame["table"] == "goals_per_source"].set_index("quantity")
    big = expect[(expect["quantity"] == "itl_s") & (expect["rows"] >= calibrated.MIN_ROWS)]
    assert goals.loc["itl_s", "cells"] == len(big) > 0
    assert goals.loc["itl_s", "mdape_ok"] == int((big["mdape_after"] <= 20.0).sum())
    power = wl.evaluate("power", "loso", model="hybrid")
    assert set(power["quantity"].dropna()) == {"power_w"}
    assert main(["evaluate", "--model", "hybrid", "--strategy", "loso", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["per_source"][0]["source"] == expect["source"].iloc[0]  # the JSON: whole titles
    assert main(["evaluate", "--model", "hybrid", "--strategy", "loso"]) == 0
    text = capsys.readouterr().out
    # where the held-out scores are printed, the title says every constant was refitted
    held_out = "== per held-out source (every constant refitted without it) =="
    assert held_out in text and expect["source"].iloc[0] not in text
    assert "== per configuration (where the runs never cover one, the shipped ITL" in text
    never = frame[(frame["table"] == "per_configuration") & (frame["quantity"] == "itl_s")]
    shown = never.set_index("configuration").loc["the runs never cover it", "coverage80"]
    assert shown == calibrated.per_configuration().set_index(["quantity", "configuration"]).loc[
        ("itl_s", "the runs never cover it"), "coverage80"]  # fmt: skip
