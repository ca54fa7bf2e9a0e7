"""WATTGPU_LITE_REGION and WATTGPU_LITE_GRID_GCO2_PER_KWH both set are refused, as region and
grid_gco2_per_kwh both in a config file are: the region was used and the grid number dropped
silently (a bad grid number with it too). A flag still decides over both."""

from __future__ import annotations

from tests.cli_runner import one_error_line, run_cli

PREDICT = ["predict", "--llm", "llama-3.1-8b", "--gpu", "L4", "--batch", "8", "--json"]
BOTH = {"WATTGPU_LITE_REGION": "FR", "WATTGPU_LITE_GRID_GCO2_PER_KWH": "100"}


def test_both_in_the_environment_are_refused_by_name(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no wattgpu-lite.toml
    words = ["WATTGPU_LITE_REGION and WATTGPU_LITE_GRID_GCO2_PER_KWH are both set: unset one"]
    one_error_line(*run_cli(PREDICT, capsys, BOTH), words)
    bad_grid = BOTH | {"WATTGPU_LITE_GRID_GCO2_PER_KWH": "lots"}
    one_error_line(*run_cli(PREDICT, capsys, bad_grid), ["WATTGPU_LITE_GRID_GCO2_PER_KWH='lots'"])


def test_a_flag_decides_over_both(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli([*PREDICT, "--region", "DE"], capsys, BOTH)
    assert code == 0, err
    assert '"grid_source": "Germany (DE), 2023"' in out
