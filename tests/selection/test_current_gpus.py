"""Today's GPUs by default: a documented list in data/current_gpus.csv, the
measured ones marked, ``measured`` for the 8 of the Watt Counts runs, ``all`` for the catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

import wattgpu_lite as wl
from wattgpu_lite.face.explorer import (
    MEASURED_MARK,
    ExplorerControls,
    display_table,
    explorer_view,
    verdict_rule,
)
from wattgpu_lite.selection.inputs import current_gpus, default_candidates

ROOT = Path(__file__).resolve().parents[2]
LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"
# GPUs once missing from the default ("appear only with --gpus all")
NAMED_IN_THE_ISSUE = {"H100 SXM", "H200 SXM", "B200", "MI300X"}


def test_each_default_gpu_is_a_catalog_gpu_with_a_reason_and_a_cited_source():
    table = current_gpus()
    catalog = wl.gpus().set_index("name")
    assert table["gpu"].is_unique and set(table["gpu"]) <= set(catalog.index)
    assert (table["reason"].str.len() > 20).all()
    # every row cites the vendor document data/SOURCES.md cites for that GPU's catalog row
    assert table["source"].str.contains("data/SOURCES.md").all()
    sources_md = (ROOT / "data" / "SOURCES.md").read_text(encoding="utf-8")
    assert "## current_gpus.csv" in sources_md
    assert all(name in sources_md for name in table["gpu"])


def test_the_default_list_is_todays_data_centre_gpus():
    table = current_gpus()
    catalog = wl.gpus().set_index("name").loc[table["gpu"]]
    assert NAMED_IN_THE_ISSUE <= set(table["gpu"])
    assert (catalog["release_year"] >= 2022).all()  # no V100, T4, A30 or A100
    assert not set(table["gpu"]) & {"RTX 3090", "RTX 4090"}  # no GeForce card
    # the measured ones among them are the catalog's measured rows
    assert list(table["measured"]) == list(catalog["measured"])


def test_measured_is_exactly_the_8_gpus_of_the_watt_counts_runs():
    measured = set(wl.measurements.MEASURED_GPUS)
    assert len(measured) == 8
    table = wl.rank_gpus(LLAMA8, scenario="server_low", itl_sla_ms=30, candidates="measured",
                         gpu_counts=(1,))  # fmt: skip
    assert set(table["gpu"]) == measured and table["measured"].all()
    assert set(default_candidates("measured")) == set(default_candidates("logo")) == measured
    assert set(default_candidates("hybrid")) == set(current_gpus()["gpu"])


def test_the_measured_gpus_are_marked_in_the_table_and_the_mark_is_explained():
    table = wl.rank_gpus(LLAMA8, rate_qps=2, itl_sla_ms=30, gpu_counts=(1,))
    shown = display_table(table)
    for gpu, measured, plan in zip(table["gpu"], table["measured"], shown["plan"], strict=True):
        assert plan.startswith(gpu + MEASURED_MARK) == bool(measured), plan
    assert table["measured"].any() and not table["measured"].all()
    assert f"{MEASURED_MARK} measured: a GPU of the Watt Counts runs" in verdict_rule(table, 30)


def test_the_dashboard_starts_from_todays_gpus():
    view = explorer_view(ExplorerControls(llm=LLAMA8, gpus_per_replica=1))
    assert set(view.table["gpu"]) == set(current_gpus()["gpu"])
    assert any(p.endswith(MEASURED_MARK) for p in view.display["plan"])  # one GPU per replica


@pytest.mark.parametrize("words", ["measured", "MEASURED", " all "])
def test_the_words_are_any_case(words):
    table = wl.rank_gpus(LLAMA8, scenario="offline", itl_sla_ms=50, candidates=words,
                         gpu_counts=(1,))  # fmt: skip
    expected = wl.measurements.MEASURED_GPUS if "measured" in words.lower() else wl.gpus()["name"]
    assert set(table["gpu"]) == set(expected)
