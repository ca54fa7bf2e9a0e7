"""Grid intensity and price by region: a cited yearly table of >= 100 countries
by ISO code, the kit's first 15 regions kept, a checked loader, close matches for a typo, and a
price borrowed from another region that says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from fresh_load import load_in_fresh_interpreter

import wattgpu_lite as wl
from wattgpu_lite.errors import DataFileError, InvalidInputError
from wattgpu_lite.selection import accounting as A
from wattgpu_lite.selection import regions as R
from wattgpu_lite.selection import wall as W

ROOT = Path(__file__).resolve().parents[2]
ISO_JSON = Path("/usr/share/iso-codes/json/iso_3166-1.json")  # Debian's iso-codes, if installed
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
# Our World in Data, carbon-intensity-electricity (Ember, Energy Institute), 2024, gCO2e/kWh, as
# read from the chart's download (data/SOURCES.md): United Kingdom 210.891, Japan 482.324
OWID_2024 = {"GB": ("United Kingdom", 210.891), "JP": ("Japan", 482.324)}


def test_the_country_table_has_over_100_unique_iso_codes_each_with_a_year_and_a_source():
    table = R.read_grid_file(R.COUNTRIES)
    assert len(table) >= 100 and table["code"].is_unique and table["iso_alpha3"].is_unique
    assert table["code"].str.fullmatch(r"[A-Z]{2}").all()
    assert table["iso_alpha3"].str.fullmatch(r"[A-Z]{3}").all()
    assert table["year"].between(2000, 2025).all()  # each country's latest year with a value
    assert table["source"].str.contains("ourworldindata.org/grapher/carbon-intensity").all()
    assert table["source"].str.contains("Ember").all()


@pytest.mark.skipif(not ISO_JSON.is_file(), reason="Debian's iso-codes is not installed here")
def test_every_code_pair_is_an_iso_3166_pair():
    iso = {r["alpha_2"]: r["alpha_3"] for r in json.loads(ISO_JSON.read_text())["3166-1"]}
    table = R.read_grid_file(R.COUNTRIES)
    assert {c: iso.get(c) for c in table["code"]} == dict(
        zip(table["code"], table["iso_alpha3"], strict=True)
    )


@pytest.mark.parametrize("code", sorted(OWID_2024))
def test_gb_and_jp_are_the_source_values(code):
    name, value = OWID_2024[code]
    for typed in (code, code.lower(), name, name.upper()):
        row = A.grid_region(typed)
        assert (row["code"], row["region"], row["year"]) == (code, name, 2024)
        assert row["gco2e_per_kwh"] == round(value, 1)  # the table keeps 0.1 gCO2e/kWh
    assert A.grid_region("JPN" if code == "JP" else "GBR")["code"] == code  # alpha-3 too
    assert W.resolve_grid(code.lower(), None) == (round(value, 1), f"{name} ({code}), 2024")


def test_the_first_15_regions_keep_their_rows_and_sources():
    first = R.read_grid_file(R.CURATED)
    table = A.grid_intensities()
    assert table["code"].is_unique and len(table) > len(first) >= 15
    kept = table.set_index("code").loc[first["code"], ["region", "year", "gco2e_per_kwh", "source"]]
    pd.testing.assert_frame_equal(kept.reset_index(drop=True),
                                  first[["region", "year", "gco2e_per_kwh", "source"]])  # fmt: skip
    assert A.grid_region("FR")["gco2e_per_kwh"] == 56  # Ember 2023 via OWID, not the file's 2024
    assert A.grid_region("FRA")["year"] == 2023  # found by alpha-3, the first table's row


@pytest.mark.parametrize(("typed", "near"), [("Japn", "Japan (JP)"),
                                             ("Untied Kingdom", "United Kingdom (GB)"),
                                             ("Frnace", "France (FR)")])  # fmt: skip
def test_an_unknown_region_names_its_close_matches(typed, near):
    with pytest.raises(InvalidInputError) as err:
        A.grid_region(typed)
    message = str(err.value)
    assert f"unknown grid region {typed!r}" in message and f"did you mean {near}" in message
    assert "grid_gco2_per_kwh=" in message  # and the way out


@pytest.mark.parametrize(("change", "words"), [
    ({"code": "gbr"}, ["row 'gbr'", "'code'", "ISO 3166-1 alpha-2"]),
    ({"year": 1850}, ["row 'GB'", "'year'", "1850"]),
    ({"year": "latest"}, ["row 'GB'", "'year'"]),
    ({"gco2e_per_kwh": -3.0}, ["row 'GB'", "'gco2e_per_kwh'"]),
    ({"gco2e_per_kwh": "n/a"}, ["row 'GB'", "'gco2e_per_kwh'"]),
    ({"source": " "}, ["row 'GB'", "'source'"]),
])  # fmt: skip
def test_a_bad_row_is_a_data_file_error_naming_the_file_row_and_column(change, words):
    table = R.read_grid_file(R.COUNTRIES)
    at = table.index[table["code"] == "GB"][0]
    bad = table.astype(object)
    for column, value in change.items():
        bad.loc[at, column] = value
    with pytest.raises(DataFileError) as err:
        R.check_grid_rows(bad, R.COUNTRIES)
    assert all(w in str(err.value) for w in [R.COUNTRIES, *words]), str(err.value)


def test_a_missing_column_or_a_code_twice_is_refused():
    table = R.read_grid_file(R.COUNTRIES)
    with pytest.raises(DataFileError, match="column 'year': missing"):
        R.check_grid_rows(table.drop(columns="year"), R.COUNTRIES)
    with pytest.raises(DataFileError, match=r"\['GB'\] appear more than once"):
        R.check_grid_rows(pd.concat([table, table[table["code"] == "GB"]]), R.COUNTRIES)


def test_a_changed_country_table_is_refused_by_its_checksum(tmp_path):
    copy = tmp_path / "data"
    shutil.copytree(ROOT / "data", copy, ignore=shutil.ignore_patterns("scripts", "__pycache__"))
    path = copy / R.COUNTRIES
    path.write_text(path.read_text().replace("United Kingdom,2024,210.9", "United Kingdom,2024,21"))
    grid = "__import__('wattgpu_lite.selection.accounting', fromlist=['A']).grid_region('GB')"
    said = load_in_fresh_interpreter(copy, grid)
    assert R.COUNTRIES in said and "checksum mismatch" in said


def test_a_region_without_a_price_is_priced_at_the_default_and_says_so():
    price, where, note = W.resolve_price("FR", None)
    assert price == A.DEFAULT_PRICE_PER_KWH and where.startswith("United States, Virginia")
    assert "no electricity price for France (FR)" in note and "price_per_kwh=" in note
    assert W.resolve_price("us", None)[2] == ""  # the US has its own: the default row is it
    assert W.resolve_price(None, None) == (A.DEFAULT_PRICE_PER_KWH, where, "")
    assert W.resolve_price("FR", 0.25) == (0.25, "given", "")
    wall = W.wall_for_request(720.0, 180, region="jp")
    assert wall["price_region"] == where and "Japan (JP)" in wall["price_note"]


def test_a_ranking_carries_where_it_was_priced():
    table = wl.rank_gpus(LLAMA, scenario="server_low", itl_sla_ms=30, candidates=["L4"],
                         gpu_counts=(1,), region="GB")  # fmt: skip
    assert set(table["grid_source"]) == {"United Kingdom (GB), 2024"}
    assert table["price_note"].str.contains("no electricity price for United Kingdom").all()
    us = wl.rank_gpus(LLAMA, scenario="server_low", itl_sla_ms=30, candidates=["L4"],
                      gpu_counts=(1,), region="US")  # fmt: skip
    assert (us["price_note"] == "").all() and us["price_region"].str.contains("Virginia").all()


def test_a_kept_price_is_each_regions_own_and_cleared_with_the_caches(monkeypatch):
    """wall.priced_at keeps each region's price: the same answer after wl.clear_caches,
    never another region's, and read afresh from a changed price table once cleared."""
    kept = {r: W.resolve_price(r, None) for r in (None, "FR", "us", "jp")}
    assert kept["FR"][2] and not kept["us"][2] and kept[None] == (*kept["us"][:2], "")
    wl.clear_caches()
    assert W.priced_at.cache_info().currsize == 0
    assert {r: W.resolve_price(r, None) for r in reversed(kept)} == kept
    prices, default = W.price_rows()
    cheaper = default.copy()
    cheaper["value"] = 0.01
    monkeypatch.setattr(W, "price_rows", lambda: (prices, cheaper))
    assert W.resolve_price(None, None) == kept[None]  # kept until the caches are cleared
    W.priced_at.cache_clear()
    assert W.resolve_price(None, None) == (0.01, kept[None][1], "")
    W.priced_at.cache_clear()  # nothing priced with the stand-in table stays kept
