"""Energy, carbon and cost at the wall: accelerator energy × PUE, CO2e at a region's grid
intensity (data/grid_intensity.csv), checked against a hand calculation."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.selection import accounting as A
from wattgpu_lite.selection import wall as W

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def test_defaults_come_from_the_cited_tables():
    assert A.DEFAULT_PUE == 1.58  # Uptime Institute, industry average 2023
    assert A.grid_region("world")["gco2e_per_kwh"] == A.DEFAULT_GRID_GCO2_PER_KWH == 458
    table = A.grid_intensities()
    assert table["code"].is_unique and (table["source"].str.len() > 20).all()
    assert len(table) >= 100 and table["gco2e_per_kwh"].between(0, 1500).all()


def test_region_by_code_or_name_case_insensitive():
    assert A.grid_region("FR")["gco2e_per_kwh"] == A.grid_region("france")["gco2e_per_kwh"] == 56
    with pytest.raises(InvalidInputError, match="unknown grid region 'XX'.*WORLD"):
        A.grid_region("XX")
    with pytest.raises(InvalidInputError, match="not both"):
        W.resolve_grid("FR", 100.0)


def test_wall_accounting_by_hand():
    # 2.0 J per token, 180 tokens per request: 360 J per request, 2,000 J per 1,000 tokens
    out = W.wall_accounting(360.0, 2000.0, pue=1.5, grid_gco2_per_kwh=400.0, price_per_kwh=0.1)
    assert out["wall_energy_per_request_j"] == pytest.approx(540.0)
    assert out["wall_energy_per_1k_tokens_j"] == pytest.approx(3000.0)
    # 540 J = 1.5e-4 kWh; × 400 g/kWh = 0.06 g
    assert out["g_co2e_per_request"] == pytest.approx(0.06)
    assert out["g_co2e_per_1k_tokens"] == pytest.approx(3000.0 / 3.6e6 * 400.0)
    # 3 kJ per 1k tokens = 3 MJ per million = 0.8333 kWh; × 0.1 = 0.08333
    assert out["wall_cost_per_mtok"] == pytest.approx(3e6 / 3.6e6 * 0.1)


def test_wall_for_a_prediction_by_hand():
    p = wl.predict(LLAMA, "A30", rate_qps=0.5)
    w = W.wall_for(p, region="SE", pue=1.25)
    # per request: E_token × 180 tokens × 1.25; CO2e at Sweden's 41 g/kWh
    per_request = p.energy_per_token_j * 180 * 1.25
    assert w["wall_energy_per_request_j"] == pytest.approx(per_request)
    assert w["g_co2e_per_request"] == pytest.approx(per_request / 3.6e6 * 41)
    assert w["grid_source"] == "Sweden (SE), 2023"


def test_wall_for_a_request_by_hand():
    # 720 J for 180 generated tokens, PUE 1.5: 1,080 J at the wall; 6,000 J per 1,000 tokens
    w = W.wall_for_request(720.0, 180, region="FR", pue=1.5, price_per_kwh=0.2)
    assert w["wall_energy_per_request_j"] == pytest.approx(1080.0)
    assert w["wall_energy_per_1k_tokens_j"] == pytest.approx(6000.0)
    # 1,080 J = 3e-4 kWh; × 56 g/kWh (France) = 0.0168 g
    assert w["g_co2e_per_request"] == pytest.approx(0.0168)
    # 6 MJ per million tokens = 1.6667 kWh; × 0.2 = 0.3333
    assert w["wall_cost_per_mtok"] == pytest.approx(6e6 / 3.6e6 * 0.2)
    assert (w["pue"], w["grid_source"]) == (1.5, "France (FR), 2023")
    assert W.wall_for_request(720.0, 180)["pue"] == A.DEFAULT_PUE


def test_pue_is_checked():
    assert W.check_pue(1.2) == 1.2
    for bad in (0.9, 3.5, "x"):
        with pytest.raises(InvalidInputError):
            W.check_pue(bad)


@pytest.fixture(scope="module")
def ranked() -> tuple[pd.DataFrame, pd.DataFrame]:
    kw = {"itl_sla_ms": 100, "candidates": ["A30", "L4"], "gpu_counts": (1,)}
    return (wl.rank_gpus(LLAMA, scenario="server_low", **kw),
            wl.rank_gpus(LLAMA, scenario="server_low", region="FR", pue=1.2, **kw))  # fmt: skip


def test_rank_adds_wall_columns_and_keeps_the_accelerator_ones(ranked):
    default, france = ranked
    pd.testing.assert_series_equal(
        default["energy_per_1k_tokens_j"], france["energy_per_1k_tokens_j"]
    )
    # the accelerator-only columns keep their meaning (world grid, no PUE)
    pd.testing.assert_series_equal(
        default["kg_co2e_per_mtok"], france["kg_co2e_per_mtok"] * 458 / 56
    )
    row = france.iloc[0]
    assert row["pue"] == 1.2 and row["grid_gco2_per_kwh"] == 56
    assert row["wall_energy_per_1k_tokens_j"] == pytest.approx(1.2 * row["energy_per_1k_tokens_j"])
    assert row["g_co2e_per_request"] == pytest.approx(
        1.2 * row["energy_per_request_j"] / 3.6e6 * 56
    )
    assert "France" in row["grid_source"]
    d = default.iloc[0]
    assert d["pue"] == 1.58 and d["grid_gco2_per_kwh"] == 458
    assert math.isclose(d["g_co2e_per_1k_tokens"], 1.58 * d["energy_per_1k_tokens_j"] / 3.6e6 * 458)


def test_wall_cost_per_request_and_per_1k_tokens_by_hand():
    # 360 J per request and 2,000 J per 1,000 tokens, PUE 1.5: 540 J and 3,000 J at the wall
    out = W.wall_accounting(360.0, 2000.0, pue=1.5, grid_gco2_per_kwh=400.0, price_per_kwh=0.1)
    assert out["wall_cost_per_request"] == pytest.approx(540.0 / 3.6e6 * 0.1)  # 1.5e-5
    assert out["wall_cost_per_1k_tokens"] == pytest.approx(3000.0 / 3.6e6 * 0.1)
    assert out["wall_cost_per_mtok"] == pytest.approx(1e3 * out["wall_cost_per_1k_tokens"])


def test_an_unknown_region_names_its_close_matches():
    with pytest.raises(InvalidInputError, match=r"did you mean France \(FR\)\?"):
        A.grid_region("Frnace")
    with pytest.raises(InvalidInputError, match=r"did you mean Germany \(DE\)\?"):
        A.grid_region("germny")
    with pytest.raises(InvalidInputError) as err:
        A.grid_region("Qqxz")  # nothing close: no guess, and where the codes are listed
    message = str(err.value)
    assert "did you mean" not in message and "WORLD or a country's ISO 3166 code" in message
    assert "grid_intensity_countries.csv" in message and "--grid-gco2-per-kwh" in message


@pytest.mark.parametrize(("kw", "name"), [({"grid_gco2_per_kwh": -1.0}, "grid_gco2_per_kwh"),
                                          ({"price_per_kwh": -0.1}, "price_per_kwh"),
                                          ({"pue": 0.0}, "pue"), ({"pue": -1.2}, "pue")])  # fmt: skip
def test_the_library_refuses_a_negative_grid_or_price_and_a_pue_below_one(kw, name):
    with pytest.raises(InvalidInputError, match=name):
        W.wall_for_request(720.0, 180, **kw)


# --- the CLI: predict and estimate at the wall -------------------------------------------------
PREDICT = ["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5"]
ESTIMATE = ["estimate", "--llm", LLAMA, "--gpu", "A30", "--t-out", "300"]


@pytest.fixture
def cli(capsys, tmp_path, monkeypatch):
    """main(argv) -> (exit code, stdout, stderr), in a folder without wattgpu-lite.toml."""
    from wattgpu_lite.face.cli.main import main

    monkeypatch.chdir(tmp_path)
    for key in ("PUE", "GRID_GCO2_PER_KWH", "PRICE_PER_KWH", "T_IN", "T_OUT"):
        monkeypatch.delenv(f"WATTGPU_LITE_{key}", raising=False)

    def run(argv):
        code = main(argv)
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def _wall(cli, argv) -> dict:
    import json

    code, out, err = cli([*argv, "--json"])
    assert code == 0, err
    return json.loads(out)


def test_predict_at_the_wall_by_hand(cli):
    doc = _wall(cli, [*PREDICT, "--pue", "1.4", "--grid-gco2-per-kwh", "300",
                      "--price-per-kwh", "0.25"])  # fmt: skip
    w, p = doc["wall"], wl.predict(LLAMA, "A30", rate_qps=0.5)
    assert doc["energy_per_token_j"] == pytest.approx(p.energy_per_token_j, rel=1e-5)  # unchanged
    # per request: E_token (J) × 180 tokens × PUE 1.4; per 1,000 tokens: E_token × 1,000 × 1.4
    per_request, per_1k = p.energy_per_token_j * 180 * 1.4, p.energy_per_token_j * 1e3 * 1.4
    assert w["wall_energy_per_request_j"] == pytest.approx(per_request, rel=1e-5)
    assert w["wall_energy_per_1k_tokens_j"] == pytest.approx(per_1k, rel=1e-5)
    # g CO2e = J / 3.6e6 J/kWh × 300 gCO2e/kWh; cost = J / 3.6e6 × 0.25 per kWh
    assert w["g_co2e_per_request"] == pytest.approx(per_request / 3.6e6 * 300, rel=1e-5)
    assert w["g_co2e_per_1k_tokens"] == pytest.approx(per_1k / 3.6e6 * 300, rel=1e-5)
    assert w["wall_cost_per_request"] == pytest.approx(per_request / 3.6e6 * 0.25, rel=1e-5)
    assert w["wall_cost_per_1k_tokens"] == pytest.approx(per_1k / 3.6e6 * 0.25, rel=1e-5)
    assert (w["pue"], w["grid_gco2_per_kwh"], w["price_per_kwh"]) == (1.4, 300, 0.25)
    assert w["grid_source"] == "given"  # by a flag, as by a Python argument
    used = {k: (v["value"], v["source"]) for k, v in doc["defaults"].items()}
    assert used["grid_gco2_per_kwh"] == (300, "given")
    assert used["price_per_kwh"] == (0.25, "given") and used["pue"] == (1.4, "given")


def test_estimate_at_the_wall_by_hand(cli):
    doc = _wall(cli, [*ESTIMATE, "--region", "PL", "--pue", "1.2", "--price-per-kwh", "0.3"])
    w, est = doc["wall"], wl.estimate_energy(LLAMA, "A30", t_out=300)
    assert doc["total_j"] == pytest.approx(est.total_j, rel=1e-5)  # the estimate is unchanged
    # per request: total J × 1.2; per 1,000 generated tokens: total / 300 × 1,000 × 1.2
    per_request, per_1k = est.total_j * 1.2, est.total_j / 300 * 1e3 * 1.2
    assert w["wall_energy_per_request_j"] == pytest.approx(per_request, rel=1e-5)
    assert w["wall_energy_per_1k_tokens_j"] == pytest.approx(per_1k, rel=1e-5)
    # Poland's grid, 662 gCO2e/kWh (data/grid_intensity.csv)
    assert w["g_co2e_per_request"] == pytest.approx(per_request / 3.6e6 * 662, rel=1e-5)
    assert w["g_co2e_per_1k_tokens"] == pytest.approx(per_1k / 3.6e6 * 662, rel=1e-5)
    assert w["wall_cost_per_request"] == pytest.approx(per_request / 3.6e6 * 0.3, rel=1e-5)
    assert w["wall_cost_per_mtok"] == pytest.approx(per_1k * 1e3 / 3.6e6 * 0.3, rel=1e-5)
    assert w["grid_source"] == "Poland (PL), 2023"
    assert doc["defaults"]["grid_gco2_per_kwh"] == {
        "value": w["grid_gco2_per_kwh"],
        "source": "region PL",
    }


def test_the_built_in_grid_is_named_as_the_worlds_row(cli):
    for argv in (PREDICT, ESTIMATE):
        w = _wall(cli, argv)["wall"]
        assert (w["grid_gco2_per_kwh"], w["price_per_kwh"], w["pue"]) == (458, 0.0895, 1.58)
        assert w["grid_source"] == "World (WORLD), 2025 default"


@pytest.mark.parametrize("argv", [PREDICT, ESTIMATE], ids=["predict", "estimate"])
def test_the_text_view_shows_the_wall_within_100_columns(cli, argv):
    code, out, _ = cli([*argv, "--grid-gco2-per-kwh", "250", "--price-per-kwh", "0.2"])
    text = " ".join(out.split())
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 100
    assert "at the wall: PUE 1.58; grid 250 gCO2e/kWh (given)" in text
    assert "CO2e per request" in text and "per 1,000 tokens" in text
    assert "electricity at 0.2 USD/kWh: per request" in text
    assert "grid_gco2_per_kwh 250 (given)" in text
    assert "price_per_kwh 0.2 (given)" in text


@pytest.mark.parametrize("argv", [PREDICT, ESTIMATE], ids=["predict", "estimate"])
def test_a_bad_region_is_one_line_with_its_close_matches(cli, argv):
    code, out, err = cli([*argv, "--region", "Frnace"])
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "--region" in err and "unknown grid region 'Frnace'" in err
    assert "did you mean France (FR)?" in err and "--grid-gco2-per-kwh" in err


@pytest.mark.parametrize("argv", [PREDICT, ESTIMATE], ids=["predict", "estimate"])
@pytest.mark.parametrize(("flag", "value"), [("--pue", "0"), ("--pue", "-1.5"), ("--pue", "0.8"),
                                             ("--grid-gco2-per-kwh", "-10"),
                                             ("--price-per-kwh", "-0.1")])  # fmt: skip
def test_a_bad_wall_value_is_one_line_naming_its_flag(cli, argv, flag, value):
    code, out, err = cli([*argv, flag, value])
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert f"({flag})" in err and "must be from" in err, err


def test_region_and_grid_number_are_one_or_the_other(cli, capsys):
    with pytest.raises(SystemExit) as stop:  # argparse's one-line error
        cli([*PREDICT, "--region", "FR", "--grid-gco2-per-kwh", "100"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "--grid-gco2-per-kwh" in err and "--region" in err
