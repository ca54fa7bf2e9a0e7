"""Parsing the upstream Watt Counts subset (a hand-made fixture in its schema); no network."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wattgpu_lite.errors import DataFileError
from wattgpu_lite.runs import upstream
from wattgpu_lite.runs.measurements import COLUMNS
from wattgpu_lite.runs.schema import ITL_SERVER_EXACT

FIXTURE = Path(__file__).parents[1] / "fixtures" / "watt_counts_upstream_sample.csv"
QWEN = "Qwen/Qwen2.5-0.5B-Instruct"


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return upstream.parse_upstream(FIXTURE)


def _row(table: pd.DataFrame, llm: str, scenario: str, rep: int = 1) -> pd.Series:
    hit = table[(table["llm"] == llm) & (table["scenario"] == scenario) & (table["rep"] == rep)]
    assert len(hit) == 1
    return hit.iloc[0]


def test_parse_list():
    np.testing.assert_array_equal(upstream.parse_list("[0.5, 1.25, 3]"), [0.5, 1.25, 3.0])
    assert upstream.parse_list("[]").size == 0
    assert upstream.parse_list(" [7] ").tolist() == [7.0]


def test_the_schema_is_ours_and_one_token_runs_are_dropped(table):
    assert list(table.columns) == list(COLUMNS)
    assert len(table) == 5  # six fixture runs; SmolLM2 at one token per request is dropped
    assert "HuggingFaceTB/SmolLM2-1.7B-Instruct" not in set(table["llm"])
    assert set(table["gpu"]) == {"L4"}


def test_server_itl_is_the_papers_per_request_mean(table):
    # requests: (e2e 5.15, TTFT 0.05, 256 tokens), (1 token: no gap, left out), (3.06, 0.06, 101)
    by_hand = ((5.15 - 0.05) / (256 - 1) + (3.06 - 0.06) / (101 - 1)) / 2
    row = _row(table, QWEN, "server_low")
    assert row["itl_s"] == pytest.approx(by_hand, rel=1e-12)
    assert by_hand == pytest.approx(0.025)
    assert row["itl_definition"] == ITL_SERVER_EXACT


def test_per_run_means_from_the_lists(table):
    row = _row(table, QWEN, "server_low")
    assert row["n_requests"] == 3
    assert row["generated_tokens"] == pytest.approx(358 / 3)
    assert row["prompt_tokens"] == pytest.approx((15 + 12 + 17) / 3)
    assert row["e2e_latency_s"] == pytest.approx((5.15 + 0.045 + 3.06) / 3)
    assert row["lambda_qps"] == 0.017


def test_offline_itl_and_energy_per_token(table):
    row = _row(table, QWEN, "offline")
    assert row["throughput_tps"] == pytest.approx(856 / 2.0)
    assert row["itl_s"] == pytest.approx(2.0 / 856)
    assert row["tokens_per_j"] == pytest.approx(856 / 120.0)
    assert row["energy_per_token_j"] == pytest.approx(120.0 / 856)
    assert row["tokens_per_j"] * row["power_w"] / row["throughput_tps"] == pytest.approx(1.0)
    assert np.isnan(row["e2e_latency_s"])


def test_repetitions_count_in_file_order_and_flags_come_from_the_shipped_table(table):
    assert _row(table, QWEN, "offline", rep=2)["duration_s"] == 2.5
    assert _row(table, QWEN, "server_high")["itl_s"] == pytest.approx(0.02)
    assert not _row(table, "allenai/OLMoE-1B-7B-0924", "offline")["dense"]
    assert table.loc[table["llm"] == QWEN, "dense"].all()


def test_a_missing_upstream_column_is_named():
    df = pd.read_csv(FIXTURE, index_col=0).drop(columns="gpu_energy")
    with pytest.raises(DataFileError, match="gpu_energy"):
        upstream.parse_upstream(df)


def test_lists_of_different_lengths_are_rejected():
    df = pd.read_csv(FIXTURE, index_col=0)
    df.loc[11, "time_to_first_token_seconds_events"] = "[0.05, 0.04]"
    with pytest.raises(DataFileError, match="different lengths in rows \\[11\\]"):
        upstream.parse_upstream(df)


def test_an_unknown_llm_needs_an_explicit_dense_flag():
    df = pd.read_csv(FIXTURE, index_col=0).replace({QWEN: "someone/new-model"})
    with pytest.raises(DataFileError, match="someone/new-model.*dense_llms"):
        upstream.parse_upstream(df)
    assert len(upstream.parse_upstream(df, dense_llms=["someone/new-model"])) == 5


def test_a_bad_download_is_deleted_and_reported(tmp_path, monkeypatch):
    def fake_fetch(url: str, dest: Path) -> None:
        assert url == upstream.UPSTREAM_URL
        dest.write_bytes(b"<html>rate limited</html>")

    monkeypatch.setattr(upstream, "fetch_url", fake_fetch)
    with pytest.raises(DataFileError, match="checksum mismatch.*deleted"):
        upstream.download_upstream(cache_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_good_download_is_parsed_and_cached(tmp_path, monkeypatch):
    calls = []
    sha = hashlib.sha256(FIXTURE.read_bytes()).hexdigest()
    monkeypatch.setattr(upstream, "UPSTREAM_SHA256", sha)
    monkeypatch.setattr(
        upstream, "fetch_url", lambda url, dest: calls.append(shutil.copy(FIXTURE, dest))
    )
    first = upstream.download_upstream(cache_dir=tmp_path)
    second = upstream.download_upstream(cache_dir=tmp_path)
    assert len(calls) == 1
    pd.testing.assert_frame_equal(first, second)
    assert len(first) == 5
