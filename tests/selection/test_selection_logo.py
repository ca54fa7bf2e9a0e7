"""Leave-one-GPU-out ranking: the precomputed table is what the build script's refit predicts (raw,
as published), its answers refuse an ITL below the physical floor (measured run or not) while the
evaluation scores the raw predictions, and the LOGO predictor picks the same GPU as the measured
runs for Llama-3.1-8B at low load."""

from __future__ import annotations

import data_scripts
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.runs.measurements import MEASURED_GPUS, SCENARIOS
from wattgpu_lite.selection import rank as selection
from wattgpu_lite.selection.sources import logo_path, logo_predictor, logo_table
from wattgpu_lite.wattgpu import evaluation
from wattgpu_lite.wattgpu.features import feature_frame
from wattgpu_lite.wattgpu.physical_limits import BELOW_FLOOR, itl_floor_s

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"


def test_table_covers_every_measured_gpu_llm_and_scenario():
    table = pd.read_csv(logo_path())
    assert set(table["gpu"]) == set(MEASURED_GPUS) and set(table["scenario"]) == set(SCENARIOS)
    dense = wl.llms().query("n_experts == 0 and weight_bits == 16")
    assert len(table) == len(MEASURED_GPUS) * len(dense) * len(SCENARIOS)
    assert (table["power_w"] > 0).all() and (table["itl_s"] > 0).all()


def _build_script():
    return data_scripts.load("build_logo_predictions")


def test_the_build_script_reproduces_the_shipped_l4_rows_raw():
    rows = _build_script().held_out_rows("L4")  # refits WattGPU without the L4's runs
    keys = list(rows[["llm", "gpu", "scenario"]].itertuples(index=False, name=None))
    stored = logo_table().loc[keys]
    assert len(rows) == len(pd.read_csv(logo_path()).query("gpu == 'L4'"))
    for col in ("power_w", "itl_s"):  # every row, those below the floor too: the trees' output
        assert rows[col].to_numpy() == pytest.approx(stored[col].to_numpy(), rel=1e-9)
    fresh = logo_predictor("L4").predict_frame(feature_frame(list(rows["llm"].unique()), ["L4"],
                                                             SCENARIOS))  # fmt: skip
    below = fresh[fresh["status"] == BELOW_FLOOR]  # predict_frame, an answer, refuses them
    assert {LLAMA8} <= set(below["llm"]) and below["itl_s"].isna().all()


def test_logo_refuses_a_measured_row_below_the_floor_and_keeps_it_raw():
    # the L4's LOGO ITL for Llama 8B at server_low, 43.6 ms, lies below its 50.0 ms floor: a
    # measured run's row, answered before (ranked first at SLA 45 ms), now refused
    raw_s = logo_table().loc[(LLAMA8, "L4", "server_low"), "itl_s"]
    floor_s = itl_floor_s(wl.llm(LLAMA8), wl.gpu("L4"), "server_low")
    assert logo_table().loc[(LLAMA8, "L4", "server_low"), "measured"] and raw_s < floor_s
    t = selection.rank_gpus(LLAMA8, scenario="server_low", itl_sla_ms=45, source="logo")
    l4 = t.set_index("gpu").loc["L4"]
    assert pd.isna(l4["rank"]) and not l4["meets_sla"] and pd.isna(l4["itl_ms"])
    assert "below the physical floor" in l4["why_not"] and f"{floor_s:.4g} s" in l4["why_not"]
    assert t["gpu"].iloc[0] == "A30"


def test_the_evaluation_scores_the_raw_logo_predictions():
    # wl.evaluate's out-of-fold ITLs are the published model's, never refused: the L4's Llama 8B
    # server runs are scored below their floor, as the paper's LOGO scored them
    pred = evaluation.cross_predict("itl", "logo", progress=False)["predictions"]
    assert pred["y_pred"].notna().all()
    mine = pred.query("gpu == 'L4' and llm == @LLAMA8 and scenario == 'server_low'")
    floor_s = itl_floor_s(wl.llm(LLAMA8), wl.gpu("L4"), "server_low")
    assert len(mine) and (mine["y_pred"] < floor_s).all()


def test_logo_picks_the_a30_like_the_measurements():
    logo = selection.rank_gpus(LLAMA8, scenario="server_low", itl_sla_ms=30, source="logo")
    measured = selection.rank_gpus(LLAMA8, scenario="server_low", itl_sla_ms=30, source="measured")
    assert logo["gpu"].iloc[0] == measured["gpu"].iloc[0] == "A30"
    l4 = logo.set_index("gpu").loc["L4"]
    assert not l4["meets_sla"] and "below the physical floor" in l4["why_not"]  # not answered
    assert l4["verdict"] == "not answered"  # refused: it has no ITL to miss the SLA with


@pytest.mark.parametrize("source", ["paper", "logo"])
def test_a_refused_row_is_not_answered_in_the_frame_the_json_and_the_cli_table(capsys, source):
    # gemma-7b at server_low: the trees answer the L4 below its physical floor, so it is refused
    from wattgpu_lite.__main__ import main

    ask = {"scenario": "server_low", "itl_sla_ms": 100, "source": source}
    t = selection.rank_gpus("gemma-7b", **ask)
    l4 = t.set_index("gpu").loc["L4"]
    assert pd.isna(l4["itl_ms"]) and pd.isna(l4["rank"]) and "physical floor" in l4["why_not"]
    assert l4["verdict"] == "not answered" and not l4["meets_sla"]
    rows = {r["gpu"]: r for r in t.to_document()["rows"]}
    assert rows["L4"]["verdict"] == "not answered" and rows["L4"]["itl_ms"] is None
    argv = ["rank", "--llm", "gemma-7b", "--scenario", "server_low", "--itl-sla-ms", "100"]
    assert main([*argv, "--source", source]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if " L4* " in ln)
    assert "not answered" in line and "misses" not in line


class _IntervalPredictor:
    """A stand-in with WattGPU's predict_frame interface that also returns intervals."""

    def predict_frame(self, frame: pd.DataFrame) -> pd.DataFrame:
        power, itl = 0.3 * frame["tdp_w"], 0.02 + 0 * frame["tdp_w"]
        return frame.assign(power_w=power, itl_s=itl, power_w_lo=0.9 * power,
                            power_w_hi=1.1 * power, itl_s_lo=0.8 * itl, itl_s_hi=1.2 * itl)  # fmt: skip


def test_prediction_intervals_pass_through(monkeypatch):
    from wattgpu_lite.selection import sources as selection_data

    monkeypatch.setattr(selection_data, "full_predictor", lambda: _IntervalPredictor())
    t = selection.rank_gpus(LLAMA8, scenario="server_low", itl_sla_ms=30, candidates=["A30", "L4"],
                            source="paper")  # fmt: skip
    a30 = t.set_index("gpu").loc["A30"]
    assert a30["power_w"] == pytest.approx(0.3 * 165)  # the stand-in's own value, passed on
    assert (a30["power_w_lo"], a30["itl_s_hi"]) == pytest.approx((0.27 * 165, 0.024))
