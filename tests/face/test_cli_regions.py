"""``--region`` in any case, ``region = "FR"`` in wattgpu-lite.toml and WATTGPU_LITE_REGION; an
unknown region names its close matches; a price borrowed from another region says so."""

from __future__ import annotations

import json

import pytest
from cli_runner import one_error_line, run_cli

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
RANK = ["rank", "--llm", LLAMA, "--scenario", "server_low", "--itl-sla-ms", "30", "--gpus", "L4",
        "--gpu-counts", "1"]  # fmt: skip
ESTIMATE = ["estimate", "--llm", LLAMA, "--gpu", "A30"]


@pytest.fixture(autouse=True)
def _in_a_clean_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WATTGPU_LITE_REGION", raising=False)
    monkeypatch.delenv("WATTGPU_LITE_GRID_GCO2_PER_KWH", raising=False)


def _rows(capsys, argv, env=None) -> tuple[list[dict], dict]:
    code, out, err = run_cli([*argv, "--json"], capsys, env)
    assert code == 0, err
    doc = json.loads(out)
    return doc["rows"], doc["defaults"]


def test_a_lower_case_region_flag_is_the_country(capsys):
    rows, _ = _rows(capsys, [*RANK, "--region", "jp"])
    assert {r["grid_source"] for r in rows} == {"Japan (JP), 2024"}
    assert {r["grid_gco2_per_kwh"] for r in rows} == {482.3}
    assert all("no electricity price for Japan (JP)" in r["price_note"] for r in rows)


def test_the_config_file_region_key_is_used_and_echoed(capsys, tmp_path):
    (tmp_path / "wattgpu-lite.toml").write_text('region = "GB"\n')
    rows, used = _rows(capsys, RANK)
    assert {r["grid_source"] for r in rows} == {"United Kingdom (GB), 2024"}
    assert used["region"] == {"value": "GB", "source": f"config {tmp_path / 'wattgpu-lite.toml'}"}
    assert used["grid_gco2_per_kwh"] == {"value": 210.9, "source": "region GB"}  # OWID, 2024
    code, out, _ = run_cli(RANK, capsys)
    assert code == 0 and "region GB (config" in " ".join(out.split())
    rows, _ = _rows(capsys, [*RANK, "--region", "FR"])  # the flag beats the file
    assert {r["grid_source"] for r in rows} == {"France (FR), 2023"}


def test_the_environment_region_beats_the_file(capsys, tmp_path):
    (tmp_path / "wattgpu-lite.toml").write_text('region = "GB"\n')
    rows, used = _rows(capsys, RANK, {"WATTGPU_LITE_REGION": "de"})
    assert {r["grid_source"] for r in rows} == {"Germany (DE), 2023"}
    assert used["region"]["source"] == "environment WATTGPU_LITE_REGION"
    rows, _ = _rows(capsys, RANK, {"WATTGPU_LITE_GRID_GCO2_PER_KWH": "100"})  # a number beats it
    assert {r["grid_gco2_per_kwh"] for r in rows} == {100}


@pytest.mark.parametrize(("text", "words"), [
    ('region = "Untied Kingdom"\n', ["region", "did you mean United Kingdom (GB)?"]),
    ("region = 33\n", ["region", "in quotes", "33"]),
    ('region = "FR"\ngrid_gco2_per_kwh = 100\n', ["both region and grid_gco2_per_kwh"]),
    ('regoin = "FR"\n', ["unknown key 'regoin'", "did you mean 'region'?"]),
])  # fmt: skip
def test_a_bad_config_region_is_one_line_naming_the_key(capsys, tmp_path, text, words):
    (tmp_path / "wattgpu-lite.toml").write_text(text)
    one_error_line(*run_cli(ESTIMATE, capsys), ["config file", *words])


def test_an_unknown_region_flag_names_its_close_matches(capsys):
    one_error_line(*run_cli([*ESTIMATE, "--region", "Japn"], capsys),
                   ["--region", "unknown grid region 'Japn'", "did you mean Japan (JP)"])  # fmt: skip


def test_the_text_view_says_where_the_electricity_was_priced(capsys):
    code, out, _ = run_cli([*ESTIMATE, "--region", "FR"], capsys)
    text = " ".join(out.split())
    assert code == 0 and "priced at the default, United States, Virginia" in text
    assert "no electricity price for France (FR)" in text
    code, out, _ = run_cli([*ESTIMATE, "--region", "US"], capsys)
    assert code == 0 and "priced at the default" not in out  # the US has a price of its own
