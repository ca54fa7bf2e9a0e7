"""Grid intensity and electricity price by region: two cited tables, one lookup.

    grid_table()          # every region: grid_intensity.csv, then grid_intensity_countries.csv
    find_region(t, "fr")  # a code or a name, any case; unknown: InvalidInputError, close matches
    region_price(prices, row)   # the price rows of electricity_factors.csv that are that country's

Two tables, one schema (``code``, ``region``, ``year``, ``gco2e_per_kwh``, ``source``):

- data/grid_intensity.csv: the kit's first regions (WORLD, the default, and 14 countries), each with
  its own cited figure; where a code is in both tables, this row is kept;
- data/grid_intensity_countries.csv: every country of Our World in Data's yearly table (Ember and
  the Energy Institute) at its latest year with a value, by ISO 3166-1 alpha-2 code (with the
  alpha-3 code OWID uses), built by data/scripts/build_grid_countries.py.

Both are read through the kit's checked reader (sha256 against data/MANIFEST.sha256) and then
checked row by row: a code is ``WORLD`` or two capital letters and appears once; a year is a whole
number in [1990, 2100]; an intensity a number in [0, 5000] gCO2e/kWh; every row has a source.
"""

from __future__ import annotations

import difflib
import re

import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv, restore_hint
from wattgpu_lite.errors import DataFileError, InvalidInputError

CURATED, COUNTRIES = "grid_intensity.csv", "grid_intensity_countries.csv"
COLUMNS = ("code", "region", "year", "gco2e_per_kwh", "source")
WORLD = "WORLD"  # the one code that is no ISO 3166-1 alpha-2 code: the world average
CODE = re.compile(r"[A-Z]{2}")  # ISO 3166-1 alpha-2
YEARS = (1990, 2100)
GRID_MAX = 5000.0  # gCO2e/kWh: the dirtiest national grid of the tables is ~1,300 (Turkmenistan)
REGION_CUTOFF = 0.6  # difflib similarity of a close match to an unknown grid region


def _fail(name: str, row: pd.Series | None, column: str, why: str) -> DataFileError:
    where = f"row {row['code']!r}, column {column!r}" if row is not None else f"column {column!r}"
    return DataFileError(f"{name}: {where}: {why}; {restore_hint(name)}")


def check_grid_rows(table: pd.DataFrame, name: str) -> pd.DataFrame:
    """``table`` (one grid file) with its schema held: the columns of :data:`COLUMNS`, unique
    codes, each ``WORLD`` or ISO-shaped, whole years in :data:`YEARS`, intensities in
    [0, 5000] gCO2e/kWh and a source on every row; else DataFileError naming file, row, column."""
    for column in COLUMNS:
        if column not in table.columns:
            raise _fail(name, None, column, f"missing; expected {list(COLUMNS)}")
    if not table["code"].is_unique:
        twice = sorted(set(table.loc[table["code"].duplicated(), "code"]))
        raise _fail(name, None, "code", f"{twice} appear more than once")
    for _, row in table.iterrows():
        _check_row(row, name)
    return table.assign(
        year=table["year"].astype(int), gco2e_per_kwh=table["gco2e_per_kwh"].astype(float)
    )


def _number(value) -> float | None:
    """``value`` as a float when it is a finite number (a number or numeric text), else None."""
    number = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
    return None if pd.isna(number) or isinstance(value, bool) else float(number)


def _check_row(row: pd.Series, name: str) -> None:
    """One row of a grid file (:func:`check_grid_rows`)."""
    code, year, value = str(row["code"]), _number(row["year"]), _number(row["gco2e_per_kwh"])
    if code != WORLD and not CODE.fullmatch(code):
        raise _fail(name, row, "code", "not an ISO 3166-1 alpha-2 code (two capital letters)")
    if year is None or not year.is_integer() or not YEARS[0] <= year <= YEARS[1]:
        raise _fail(name, row, "year", f"{row['year']!r} is not a year in {list(YEARS)}")
    if value is None or not 0 <= value <= GRID_MAX:
        raise _fail(
            name,
            row,
            "gco2e_per_kwh",
            f"{row['gco2e_per_kwh']!r} is not a number in [0, {GRID_MAX:g}]",
        )
    if not str(row["source"]).strip() or not str(row["region"]).strip():
        raise _fail(name, row, "source", "a row needs a region name and a source")


def read_grid_file(name: str) -> pd.DataFrame:
    """One grid file of the data folder, checksum and schema checked."""
    table = read_csv(data_dir() / name, keep_default_na=False, na_values=[""])
    return check_grid_rows(table, name)


def grid_table() -> pd.DataFrame:
    """Every grid region: the rows of data/grid_intensity.csv, then those of
    data/grid_intensity_countries.csv whose code the first lacks (a code's first-table row, its
    source included, wins), with the ISO alpha-3 code of the second ('' for WORLD)."""
    curated, countries = read_grid_file(CURATED), read_grid_file(COUNTRIES)
    alpha3 = dict(zip(countries["code"], countries["iso_alpha3"], strict=True))
    extra = countries[~countries["code"].isin(curated["code"])]
    curated = curated.assign(iso_alpha3=[alpha3.get(c, "") for c in curated["code"]])
    return pd.concat([curated, extra], ignore_index=True)


def find_region(table: pd.DataFrame, region: str) -> pd.Series:
    """The row of ``table`` for a code (``FR``, ``fr``, ``world``), an ISO alpha-3 code
    (``FRA``) or a name (``France``), any case and spacing; else InvalidInputError with the close
    matches (:func:`unknown_region_message`)."""
    typed = str(region).strip().casefold()
    for column in ("code", "iso_alpha3", "region"):
        hit = table[table[column].str.casefold() == typed]
        if len(hit) and typed:
            return hit.iloc[0]
    raise InvalidInputError(unknown_region_message(table, region))


def unknown_region_message(table: pd.DataFrame, region: str) -> str:
    """Why ``region`` is no grid region: its close matches among the codes and names (shown as
    ``France (FR)``), how many regions there are and where they are listed, and the way out (a
    number of your own)."""
    code_of = {c.casefold(): c for c in table["code"]}
    code_of |= {r.casefold(): c for r, c in zip(table["region"], table["code"], strict=True)}
    name_of = dict(zip(table["code"], table["region"], strict=True))
    typed = str(region).strip().casefold()
    close = difflib.get_close_matches(typed, code_of, n=3, cutoff=REGION_CUTOFF)
    near = dict.fromkeys(code_of[n] for n in close)
    hint = " or ".join(f"{name_of[c]} ({c})" for c in near)
    hint = f"did you mean {hint}? " if hint else ""
    return (
        f"unknown grid region {region!r}; {hint}use WORLD or a country's ISO 3166 code "
        f"(FR, GB, JP, ...; {len(table)} regions, listed by "
        "wattgpu_lite.selection.accounting.grid_intensities() and "
        "data/grid_intensity_countries.csv) or pass grid_gco2_per_kwh=, a grid intensity in "
        "gCO2e/kWh (--grid-gco2-per-kwh)"
    )


def country_of(text: str) -> str:
    """The country a price row's ``region`` names: the text before its first comma
    ("United States, Virginia (...)" -> "united states"), case-folded."""
    return str(text).split(",", 1)[0].split("(", 1)[0].strip().casefold()


def region_price(prices: pd.DataFrame, row: pd.Series) -> pd.Series | None:
    """The electricity price of a grid region: among the price rows of
    data/electricity_factors.csv that name its country (:func:`country_of`), the default row if
    it is one of them, else the first; None where the table has no price for that country."""
    mine = prices[[country_of(r) == str(row["region"]).casefold() for r in prices["region"]]]
    if mine.empty:
        return None
    default = mine[mine["is_default"]]
    return (default if len(default) else mine).iloc[0]
