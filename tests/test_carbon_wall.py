"""Energy, carbon and cost at the wall: accelerator energy × PUE, CO2e at a region's grid
intensity (data/grid_intensity.csv), checked against a hand calculation."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.selection import accounting as A

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def test_defaults_come_from_the_cited_tables():
    assert A.DEFAULT_PUE == 1.58  # Uptime Institute, industry average 2023
    assert A.grid_intensity_g_per_kwh("world") == A.DEFAULT_GRID_GCO2_PER_KWH == 458
    table = A.grid_intensities()
    assert table["code"].is_unique and (table["source"].str.len() > 20).all()
    assert len(table) >= 12 and table["gco2e_per_kwh"].between(1, 1500).all()


def test_region_by_code_or_name_case_insensitive():
    assert A.grid_intensity_g_per_kwh("FR") == A.grid_intensity_g_per_kwh("france") == 56
    with pytest.raises(InvalidInputError, match="unknown grid region 'XX'.*WORLD"):
        A.grid_region("XX")
    with pytest.raises(InvalidInputError, match="not both"):
        A.resolve_grid("FR", 100.0)


def test_wall_accounting_by_hand():
    # 2.0 J per token, 180 tokens per request: 360 J per request, 2,000 J per 1,000 tokens
    out = A.wall_accounting(360.0, 2000.0, pue=1.5, grid_gco2_per_kwh=400.0, price_per_kwh=0.1)
    assert out["wall_energy_per_request_j"] == pytest.approx(540.0)
    assert out["wall_energy_per_1k_tokens_j"] == pytest.approx(3000.0)
    # 540 J = 1.5e-4 kWh; × 400 g/kWh = 0.06 g
    assert out["g_co2e_per_request"] == pytest.approx(0.06)
    assert out["g_co2e_per_1k_tokens"] == pytest.approx(3000.0 / 3.6e6 * 400.0)
    # 3 kJ per 1k tokens = 3 MJ per million = 0.8333 kWh; × 0.1 = 0.08333
    assert out["wall_cost_per_mtok"] == pytest.approx(3e6 / 3.6e6 * 0.1)


def test_wall_for_a_prediction_by_hand():
    p = wl.predict(LLAMA, "A30", rate_qps=0.5)
    w = A.wall_for(p, region="SE", pue=1.25)
    # per request: E_token × 180 tokens × 1.25; CO2e at Sweden's 41 g/kWh
    per_request = p.energy_per_token_j * 180 * 1.25
    assert w["wall_energy_per_request_j"] == pytest.approx(per_request)
    assert w["g_co2e_per_request"] == pytest.approx(per_request / 3.6e6 * 41)
    assert w["grid_source"] == "Sweden (SE), 2023"


def test_wall_for_a_request_by_hand():
    # 720 J for 180 generated tokens, PUE 1.5: 1,080 J at the wall; 6,000 J per 1,000 tokens
    w = A.wall_for_request(720.0, 180, region="FR", pue=1.5, price_per_kwh=0.2)
    assert w["wall_energy_per_request_j"] == pytest.approx(1080.0)
    assert w["wall_energy_per_1k_tokens_j"] == pytest.approx(6000.0)
    # 1,080 J = 3e-4 kWh; × 56 g/kWh (France) = 0.0168 g
    assert w["g_co2e_per_request"] == pytest.approx(0.0168)
    # 6 MJ per million tokens = 1.6667 kWh; × 0.2 = 0.3333
    assert w["wall_cost_per_mtok"] == pytest.approx(6e6 / 3.6e6 * 0.2)
    assert (w["pue"], w["grid_source"]) == (1.5, "France (FR), 2023")
    assert A.wall_for_request(720.0, 180)["pue"] == A.DEFAULT_PUE


def test_pue_is_checked():
    assert A.check_pue(1.2) == 1.2
    for bad in (0.9, 3.5, "x"):
        with pytest.raises(InvalidInputError):
            A.check_pue(bad)


@pytest.fixture(scope="module")
def ranked() -> tuple[pd.DataFrame, pd.DataFrame]:
    kw = {"itl_sla_ms": 100, "candidates": ["A30", "L4"], "gpu_counts": (1,)}
    return (wl.rank_gpus(LLAMA, "server_low", **kw),
            wl.rank_gpus(LLAMA, "server_low", region="FR", pue=1.2, **kw))  # fmt: skip


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
