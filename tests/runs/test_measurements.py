"""The Watt Counts runs table: size, invariants of the measurements, and the loader's checks."""

from __future__ import annotations

import shutil
import types

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import DataFileError
from wattgpu_lite.runs import measurements as ms
from wattgpu_lite.specs import catalog

MOE_LLMS = {"allenai/OLMoE-1B-7B-0924", "Qwen/Qwen1.5-MoE-A2.7B-Chat", "unsloth/gpt-oss-20b-BF16"}


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    return ms.load()


def test_the_runs_cover_4000_runs_8_gpus_and_40_dense_llms(runs):
    assert len(runs) >= 4000
    assert runs["gpu"].nunique() == 8
    assert runs.loc[runs["dense"], "llm"].nunique() >= 40


def test_row_counts_match_the_source_minus_the_dropped_one_token_runs(runs):
    # TRANSCRIPTION.md: 4,798 runs (offline 1,598; server_low 1,600; server_high 1,600); the 50
    # dropped runs are SmolLM2-1.7B at server_low, which answers with a single token.
    assert runs["scenario"].value_counts().to_dict() == {
        "offline": 1598,
        "server_high": 1600,
        "server_low": 1550,
    }
    assert runs.loc[runs["dense"], "llm"].nunique() == 42
    assert runs["generated_tokens"].min() >= 2


def test_tokens_per_joule_times_power_over_throughput_is_one(runs):
    # tokens/J x J/s / (tokens/s) = 1; short offline runs are a few % off (TRANSCRIPTION.md)
    ratio = runs["tokens_per_j"] * runs["power_w"] / runs["throughput_tps"]
    assert (ratio - 1).abs().median() < 1e-3
    assert ((ratio - 1).abs() > 0.05).sum() <= 27


def test_itl_definitions(runs):
    offline = runs[runs["scenario"] == "offline"]
    server = runs[runs["scenario"] != "offline"]
    np.testing.assert_allclose(offline["itl_s"], 1 / offline["throughput_tps"], rtol=1e-6)
    expected = server["e2e_latency_s"] / server["generated_tokens"]
    np.testing.assert_allclose(server["itl_s"], expected, rtol=1e-6)
    assert offline["e2e_latency_s"].isna().all()
    assert set(offline["itl_definition"]) == {ms.ITL_OFFLINE}


def test_energy_per_token_is_inverse_tokens_per_joule(runs):
    np.testing.assert_allclose(runs["energy_per_token_j"] * runs["tokens_per_j"], 1, rtol=1e-6)


def test_offline_duration_is_tokens_over_throughput(runs):
    total_tokens = runs["n_requests"] * runs["generated_tokens"]
    np.testing.assert_allclose(runs["duration_s"], total_tokens / runs["throughput_tps"], rtol=1e-6)
    server = runs[runs["scenario"] != "offline"]
    assert server["duration_s"].min() >= 300  # the server scenarios run for 300 s plus a tail


def test_higher_load_draws_more_power_on_every_gpu(runs):
    power = runs.groupby(["gpu", "scenario"])["power_w"].mean().unstack()
    assert (power["server_low"] < power["server_high"]).all()
    assert (power["server_high"] < power["offline"]).all()


def test_lambda_values(runs):
    assert ms.LAMBDA_QPS == {"server_low": 0.017, "server_high": 0.33}
    by_scenario = runs.groupby("scenario")["lambda_qps"].unique()
    assert list(by_scenario["server_low"]) == [0.017]
    assert list(by_scenario["server_high"]) == [0.33]
    assert runs.loc[runs["scenario"] == "offline", "lambda_qps"].isna().all()


def test_blocks_hold_at_most_five_repetitions(runs):
    assert runs["rep"].between(1, 5).all()
    sizes = runs.groupby(["gpu", "llm", "scenario", "block"]).size()
    assert sizes.max() == 5
    assert runs["block"].max() == 3


def test_moe_runs_are_kept_but_flagged(runs):
    assert MOE_LLMS <= set(runs.loc[~runs["dense"], "llm"])
    dense = ms.load(dense_only=True)
    assert dense["dense"].all()
    assert len(dense) == runs["dense"].sum()


def test_gpu_names_are_the_catalog_names(runs):
    assert set(runs["gpu"]) == set(ms.MEASURED_GPUS)
    pairs = set(zip(runs["gpu_smi_name"], runs["gpu"], strict=True))
    assert pairs == {(smi, name) for smi, name in ms.SMI_TO_CATALOG.items()}


def test_every_gpu_resolves_in_the_catalog(runs):
    for smi, name in ms.SMI_TO_CATALOG.items():
        assert catalog.gpu(name).name == name
        assert catalog.gpu(smi).name == name
        assert catalog.gpu(name).measured


def test_wl_measurements_is_callable_and_carries_the_modules_names():
    """A plain object (no module swaps its class): calling it loads, its names are the module's."""
    assert not isinstance(wl.measurements, types.ModuleType) and type(ms) is types.ModuleType
    assert len(wl.measurements()) == len(ms.load())
    assert wl.measurements.download_upstream is ms.download_upstream
    assert wl.measurements.LAMBDA_QPS is ms.LAMBDA_QPS and wl.measurements.load is ms.load
    assert wl.measurements.DATA_PATH == ms.DATA_PATH == ms.data_path()
    assert len(wl.measurements(dense_only=True)) < len(wl.measurements())


def test_scenario_group():
    assert [ms.scenario_group(s) for s in ms.SCENARIOS] == ["offline", "server", "server"]
    with pytest.raises(ValueError, match="batch"):
        ms.scenario_group("batch")


def _copy_with(tmp_path, edit) -> str:
    path = tmp_path / "watt_counts_runs.csv"
    shutil.copy(ms.DATA_PATH, path)
    path.write_text(edit(path.read_text()))
    return path


def test_a_changed_value_fails_the_checksum(tmp_path):
    first = ms.load().loc[0, "power_w"]
    path = _copy_with(tmp_path, lambda text: text.replace(f",{first:.7g},", ",150,", 1))
    with pytest.raises(DataFileError, match="checksum.*git checkout data/watt_counts_runs.csv"):
        ms.load(path=path)
    assert ms.load(path=path, sha256=None).loc[0, "power_w"] == 150


def test_a_renamed_column_is_named(tmp_path):
    path = _copy_with(tmp_path, lambda text: text.replace("power_w", "power", 1))
    with pytest.raises(DataFileError, match="missing columns \\['power_w'\\].*'power'"):
        ms.load(path=path, sha256=None)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("itl_s", -0.01, "'itl_s' must be > 0"),
        ("power_w", 0.0, "'power_w' must be > 0"),
        ("scenario", "batch", "'scenario' has unknown values \\['batch'\\]"),
        ("gpu", "H100 SXM", "'gpu' has unknown values"),
        ("lambda_qps", 1.0, "'lambda_qps' disagrees"),
        ("n_requests", "many", "'n_requests' has dtype"),
    ],
)
def test_bad_values_are_named(runs, column, value, message):
    bad = runs.copy()
    bad[column] = bad[column].astype(object)
    bad.loc[0, column] = value
    bad[column] = bad[column].infer_objects()
    with pytest.raises(DataFileError, match=message):
        ms.validate(bad, "watt_counts_runs.csv")


def test_a_missing_file_says_how_to_restore_it(tmp_path):
    with pytest.raises(DataFileError, match="not found"):
        ms.load(path=tmp_path / "nope.csv")


def test_the_smi_mapping_agrees_with_the_gpu_table():
    gpus = pd.read_csv(ms.DATA_PATH.parent / "gpus.csv")
    measured = gpus[gpus["measured"]]
    assert dict(zip(measured["smi_name"], measured["name"], strict=True)) == ms.SMI_TO_CATALOG


def test_every_dense_llm_is_in_the_llm_table():
    llms = pd.read_csv(ms.DATA_PATH.parent / "llms.csv")
    assert set(ms.load(dense_only=True)["llm"]) <= set(llms["name"])
