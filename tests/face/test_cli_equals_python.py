"""Python equals the CLI: each command's ``--json`` is exactly its Python
call's ``to_json()`` — the result carries ``kind``, ``wall`` (PUE, grid, CO2e, cost with its
currency and the region it was priced in) and ``defaults`` — and a grid region whose electricity
the kit prices at another region's figure says so."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.face.cli.main import main
from wattgpu_lite.selection.accounting import J_PER_KWH, grid_region

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
# the same question asked twice: (CLI words, the Python call); no environment, no config file
CASES = {
    "predict": (["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5", "--t-in", "500",
                 "--region", "FR"],
                lambda: wl.predict(LLAMA, "A30", rate_qps=0.5, t_in=500, region="FR")),
    "estimate": (["estimate", "--llm", LLAMA, "--gpu", "L4", "--batch", "4", "--pue", "1.2"],
                 lambda: wl.estimate_energy(LLAMA, "L4", batch=4, pue=1.2)),
    "explain": (["explain", "--llm", LLAMA, "--gpu", "A30", "--batch", "8",
                 "--grid-gco2-per-kwh", "100"],
                lambda: wl.explain(LLAMA, "A30", batch=8, grid_gco2_per_kwh=100)),
    "rank": (["rank", "--llm", LLAMA, "--rate-qps", "0.5", "--itl-sla-ms", "100", "--gpus",
              "A30,L4", "--gpu-counts", "1", "--region", "DE", "--price-per-kwh", "0.3"],
             lambda: wl.rank_gpus(LLAMA, rate_qps=0.5, itl_sla_ms=100, candidates=["A30", "L4"],
                                  gpu_counts="1", region="DE", price_per_kwh=0.3)),
}  # fmt: skip


# the commands that answer with a table: (CLI words, the Python call whose to_json() it prints)
TABLES = {
    "gpus": (["gpus"], lambda: wl.gpus()),
    "llms": (["llms"], lambda: wl.llms()),
    "llms --aliases": (["llms", "--aliases"], lambda: wl.llm_aliases()),
    "evaluate hybrid": (["evaluate", "--model", "hybrid", "--strategy", "lolo"],
                        lambda: wl.evaluate(model="hybrid", strategy="lolo")),
    "evaluate loso": (["evaluate", "--model", "hybrid", "--strategy", "loso", "--target", "itl"],
                      lambda: wl.evaluate("itl", "loso", model="hybrid")),
    "evaluate wattgpu": (["evaluate", "--target", "itl", "--strategy", "logo", "--no-progress"],
                         lambda: wl.evaluate("itl", "logo", progress=False)),
}  # fmt: skip


@pytest.fixture(autouse=True)
def _no_environment_or_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for key in ("T_IN", "T_OUT", "GRID_GCO2_PER_KWH", "PRICE_PER_KWH", "PUE"):
        monkeypatch.delenv(f"WATTGPU_LITE_{key}", raising=False)


@pytest.mark.parametrize("command", list(CASES))
def test_the_json_of_every_command_is_its_python_calls_to_json(capsys, command):
    argv, call = CASES[command]
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    shown = json.loads(capsys.readouterr().out)
    result = call()
    assert shown == json.loads(result.to_json())
    assert shown["kind"] == command and shown["schema_version"] == 1
    assert set(shown["defaults"]) >= {"grid_gco2_per_kwh", "price_per_kwh", "pue"}


def _wall(result) -> dict:
    """The wall of a result (a ranking: every row carries it)."""
    return result.iloc[0].to_dict() if isinstance(result, pd.DataFrame) else result.wall


@pytest.mark.parametrize("command", list(CASES))
def test_every_result_carries_the_wall_with_its_currency_and_price_region(command):
    result = CASES[command][1]()
    wall = _wall(result)
    assert {"pue", "grid_gco2_per_kwh", "grid_source", "price_per_kwh", "currency",
            "price_region", "price_note", "g_co2e_per_request", "wall_cost_per_request"} <= set(wall)  # fmt: skip
    # CO2e = E_wall / 3.6e6 J/kWh × grid: the equation, from the result's own fields
    co2e = wall["wall_energy_per_request_j"] / J_PER_KWH * wall["grid_gco2_per_kwh"]
    assert wall["g_co2e_per_request"] == pytest.approx(co2e, rel=1e-12)


def test_a_prediction_carries_its_co2e_without_any_other_call():
    p = wl.predict(LLAMA, "A30", rate_qps=0.5, region="FR")
    assert p.wall["grid_gco2_per_kwh"] == grid_region("FR")["gco2e_per_kwh"]
    assert p.wall["wall_energy_per_request_j"] == pytest.approx(
        p.energy_per_token_j * p.inputs.t_out * p.wall["pue"], rel=1e-12
    )
    assert p.defaults["grid_gco2_per_kwh"]["source"] == "region FR"
    assert p.defaults["pue"] == {"value": p.wall["pue"], "source": "built-in"}


def test_a_grid_region_priced_at_another_regions_electricity_says_so():
    fr = wl.predict(LLAMA, "A30", rate_qps=0.5, region="FR").wall
    assert fr["currency"] == "USD" and "United States" in fr["price_region"]
    assert "France" in fr["price_note"] and "price_per_kwh" in fr["price_note"]
    own = wl.predict(LLAMA, "A30", rate_qps=0.5, region="FR", price_per_kwh=0.2).wall
    assert own["price_note"] == "" and own["price_per_kwh"] == 0.2
    assert wl.predict(LLAMA, "A30", rate_qps=0.5, region="US").wall["price_note"] == ""


def test_the_text_view_says_the_price_is_another_regions(capsys):
    assert (
        main(["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5", "--region", "FR"])
        == 0
    )
    text = " ".join(capsys.readouterr().out.split())
    assert "USD/kWh" in text and "no electricity price for France (FR)" in text


def test_the_predictor_alone_answers_at_the_accelerator():
    """``wattgpu_lite.hybrid.predict.api.predict`` (what the selection chapter builds on) has no
    wall: the facility's inputs are the front door's (wl.predict)."""
    from wattgpu_lite.hybrid.predict.api import predict

    p = predict(LLAMA, "A30", rate_qps=0.5)
    assert p.wall is None and p.defaults == {} and json.loads(p.to_json())["kind"] == "predict"


def test_a_ranking_is_still_a_dataframe_and_pandas_to_json_with_arguments():
    table = CASES["rank"][1]()
    assert isinstance(table, pd.DataFrame) and isinstance(table.head(1), type(table))
    assert json.loads(table.to_json(orient="records"))[0]["gpu"] == table["gpu"].iloc[0]
    assert table.attrs["defaults"]["price_per_kwh"] == {"value": 0.3, "source": "given"}


@pytest.mark.parametrize("command", list(TABLES))
def test_the_json_of_every_table_command_is_its_python_calls_to_json(capsys, command):
    """``gpus``, ``llms`` and ``evaluate``: the DataFrame the Python call returns prints its
    command's ``--json`` from ``to_json()`` (pandas' own with arguments)."""
    argv, call = TABLES[command]
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    shown = json.loads(capsys.readouterr().out)
    table = call()
    assert isinstance(table, pd.DataFrame) and shown == json.loads(table.to_json())
    assert shown["kind"] == argv[0].replace(
        "llms", "llm_aliases" if "--aliases" in argv else "llms"
    )
    rows = shown.get("rows") or shown["pooled"]
    assert len(rows) == (len(table) if "rows" in shown else (table["table"] == "pooled").sum())
    assert json.loads(table.to_json(orient="records"))[0].keys() == set(table.columns)
