"""``wl.compare`` and rank's "vs best" column: ratios to a reference, the interval's kind, the
verdict in words. Rules only: no value of today's shipped model is pinned."""

from __future__ import annotations

import json

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError, UnknownGPUError

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture(scope="module")
def measured_pair():
    return wl.compare(
        LLAMA, gpus=["A30", "A100 SXM4 40GB", "H100 SXM", "T4"], scenario="server_low"
    )


def test_the_reference_is_the_least_energy_and_its_ratio_is_one(measured_pair):
    frame = measured_pair.to_frame().set_index("gpu")
    ref = frame.loc[measured_pair.reference]
    assert ref["energy_per_token_j"] == frame["energy_per_token_j"].min()
    assert (ref["energy_ratio"], ref["energy_ratio_lo"], ref["energy_ratio_hi"]) == (1, 1, 1)
    assert ref["interval"] == ref["verdict"] == "reference"


def test_each_interval_holds_its_ratio_and_the_verdict_reads_it(measured_pair):
    for r in measured_pair.rows:
        if r["interval"] in ("paired", "unpaired"):
            assert r["energy_ratio_lo"] <= r["energy_ratio"] <= r["energy_ratio_hi"]
            assert r["itl_ratio_lo"] <= r["itl_ratio"] <= r["itl_ratio_hi"]
            inside = r["energy_ratio_lo"] <= 1 <= r["energy_ratio_hi"]
            assert (r["verdict"] == "within the noise") == inside
            assert r["verdict"] in ("better", "worse", "within the noise")


def test_a_gpu_outside_the_calibration_says_so_and_gets_the_unpaired_interval(measured_pair):
    rows = {r["gpu"]: r for r in measured_pair.rows}
    assert rows["A100 SXM4 40GB"]["interval"] == "paired"  # two Watt Counts GPUs
    h100 = rows["H100 SXM"]
    assert h100["interval"] == "unpaired" and "not calibrated" in h100["note"]
    assert "Watt Counts GPUs" in h100["note"]
    t4 = rows["T4"]  # does not hold the model: no ratio, and why
    assert t4["interval"] == "none" and t4["verdict"] == "" and "does not fit" in t4["note"]


def test_a_moe_plan_is_physics_only_never_paired():
    c = wl.compare("openai/gpt-oss-120b", gpus=["H100 SXM", "B200"], rate_qps=20, t_in=1024,
                   t_out=1024)  # fmt: skip
    other = next(r for r in c.rows if r["gpu"] != c.reference)
    assert other["interval"] == "unpaired" and "physics-only" in other["note"]


def test_a_named_reference_and_the_verdict_better():
    c = wl.compare(LLAMA, gpus=["A30", "A100 SXM4 40GB"], scenario="server_low",
                   reference="A100 SXM4 40GB")  # fmt: skip
    assert c.reference == "A100 SXM4 40GB"
    a30 = next(r for r in c.rows if r["gpu"] == "A30")
    assert a30["energy_ratio"] < 1
    assert a30["verdict"] == ("better" if a30["energy_ratio_hi"] < 1 else "within the noise")


def test_to_json_is_strict_and_round_trips_the_rows(measured_pair):
    doc = json.loads(measured_pair.to_json())
    assert (doc["schema_version"], doc["kind"]) == (1, "compare")
    assert [r["gpu"] for r in doc["rows"]] == list(measured_pair.to_frame()["gpu"])
    assert doc["defaults"]["t_in"] == {"value": 15, "source": "built-in"}


@pytest.mark.parametrize(("gpus", "error", "words"), [
    (["A30"], InvalidInputError, "two or more"), (["A30", "A30"], InvalidInputError, "two or more"),
    (["A30", "H100 SMX"], UnknownGPUError, "H100 SXM"),
])  # fmt: skip
def test_bad_gpus(gpus, error, words):
    with pytest.raises(error, match=words):
        wl.compare(LLAMA, gpus=gpus, scenario="server_low")


def test_rank_vs_best_is_one_for_the_pick_and_holds_each_ratio():
    t = wl.rank_gpus(LLAMA, scenario="server_low", itl_sla_ms=30, gpu_counts=(1,))
    best = t[t["rank"] == 1].iloc[0]
    assert best["vs_best_energy_ratio"] == 1 and best["vs_best_interval"] == "reference"
    other = t[t["vs_best_interval"].isin(["paired", "unpaired"])]
    assert len(other) > 0
    assert (other["vs_best_energy_ratio_lo"] <= other["vs_best_energy_ratio"]).all()
    assert (other["vs_best_energy_ratio"] <= other["vs_best_energy_ratio_hi"]).all()
    ratio = t["energy_per_1k_tokens_j"] / best["energy_per_1k_tokens_j"]
    assert ratio.dropna().to_numpy() == pytest.approx(t["vs_best_energy_ratio"].dropna().to_numpy())
