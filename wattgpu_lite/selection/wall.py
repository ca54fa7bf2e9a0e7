"""Energy, CO2e and cost at the wall (the facility meter, as CodeCarbon and EcoLogits count it).

    wall_for(prediction, region="FR")     # a wl.predict result's wall energy, CO2e and cost
    wall_for_request(energy_j, t_out)     # the same from a request's accelerator energy (J)

Accelerator energy × PUE (default: the Uptime Institute survey's industry average,
data/electricity_factors.csv), and its CO2e at a grid intensity, by region or country code from
data/grid_intensity.csv (Ember), then every country of data/grid_intensity_countries.csv (Our
World in Data); the electricity price is the region's country's row of
data/electricity_factors.csv where it has one, else the default (US, Virginia) with a
``price_note`` saying so. The ``wall_*`` and ``g_co2e_*`` columns are the facility's; the
accelerator-only ones are :mod:`~wattgpu_lite.selection.accounting`'s.
"""

from __future__ import annotations

from functools import cache, lru_cache

import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.selection.accounting import (
    J_PER_KWH,
    default_factor,
    default_pue,
    electricity_factors,
    grid_region,
)
from wattgpu_lite.selection.regions import region_price

PRICED_REGIONS_CACHED = 64  # regions whose price is kept (:func:`priced_at`)


def wall_energy_j(accelerator_energy_j, pue: float | None = None):
    """Energy at the facility meter, J: accelerator energy × PUE (None: the default PUE)."""
    return accelerator_energy_j * (default_pue() if pue is None else pue)


def co2e_g(energy_j, grid_gco2_per_kwh):
    """g CO2e of ``energy_j`` at a grid intensity: E / 3.6e6 J/kWh · I_grid."""
    return energy_j / J_PER_KWH * grid_gco2_per_kwh


def electricity_cost(energy_j, price_per_kwh):
    """Electricity cost of ``energy_j`` (currency of the price): E / 3.6e6 J/kWh · p."""
    return energy_j / J_PER_KWH * price_per_kwh


def wall_accounting(
    energy_per_request_j, energy_per_1k_tokens_j, *, pue, grid_gco2_per_kwh, price_per_kwh
) -> dict:
    """The facility's columns from accelerator energy E: wall energy per request and per 1,000
    tokens (E_wall = E · PUE), their g CO2e (E_wall / 3.6e6 · I_grid) and electricity cost
    (E_wall / 3.6e6 · p) per request, per 1,000 tokens and per 1e6 tokens."""
    per_request = wall_energy_j(energy_per_request_j, pue)
    per_1k = wall_energy_j(energy_per_1k_tokens_j, pue)
    return {
        "pue": pue,
        "wall_energy_per_request_j": per_request,
        "wall_energy_per_1k_tokens_j": per_1k,
        "g_co2e_per_request": co2e_g(per_request, grid_gco2_per_kwh),
        "g_co2e_per_1k_tokens": co2e_g(per_1k, grid_gco2_per_kwh),
        "wall_cost_per_request": electricity_cost(per_request, price_per_kwh),
        "wall_cost_per_1k_tokens": electricity_cost(per_1k, price_per_kwh),
        "wall_cost_per_mtok": electricity_cost(per_1k * 1e3, price_per_kwh),
    }


def check_pue(pue) -> float:
    """A PUE in [1, 3] (1: every joule reaches the IT load; survey averages are 1.5-1.6)."""
    return checks.check_number("pue", pue, 1.0, 3.0, unit="(facility / IT energy)")


def check_grid_gco2_per_kwh(grid_gco2_per_kwh) -> float:
    """A grid intensity in [0, 5000] gCO2e/kWh (0: a carbon-free supply; the dirtiest national
    grid of data/grid_intensity_countries.csv, Turkmenistan's, is about 1,300)."""
    return checks.check_number("grid_gco2_per_kwh", grid_gco2_per_kwh, 0, 5000, unit="gCO2e/kWh")


def check_price_per_kwh(price_per_kwh) -> float:
    """An electricity price in [0, 100] per kWh."""
    return checks.check_number("price_per_kwh", price_per_kwh, 0, 100, unit="per kWh")


def resolve_grid(region: str | None, grid_gco2_per_kwh: float | None) -> tuple[float, str]:
    """(gCO2e/kWh, where it comes from): a region's row, an explicit number, or the default."""
    if region is not None and grid_gco2_per_kwh is not None:
        raise InvalidInputError("give a grid region or a grid intensity in gCO2e/kWh, not both")
    if region is not None:
        row = grid_region(region)
        return float(row["gco2e_per_kwh"]), f"{row['region']} ({row['code']}), {row['year']}"
    if grid_gco2_per_kwh is not None:
        return check_grid_gco2_per_kwh(grid_gco2_per_kwh), "given"
    return default_factor("grid_intensity"), "World (WORLD), 2025 default"


def resolve_price(region: str | None, price_per_kwh: float | None) -> tuple[float, str, str]:
    """(price per kWh, where it was priced, a note): a number given ("given"); else the price
    row of ``region``'s country in data/electricity_factors.csv
    (:func:`wattgpu_lite.selection.regions.region_price`); else the default row (EIA, Virginia),
    with a note saying so when ``region`` names a grid that has no price of its own."""
    if price_per_kwh is not None:
        return check_price_per_kwh(price_per_kwh), "given", ""
    kept = region is None or isinstance(region, str)  # else its own error, from grid_region
    return (priced_at if kept else priced_at.__wrapped__)(region)


@lru_cache(maxsize=PRICED_REGIONS_CACHED)
def priced_at(region: str | None) -> tuple[float, str, str]:
    """:func:`resolve_price` of a region with no price given, kept per region (None: the
    default row): a warm ``wl.predict`` asks it twice, and each answer reads pandas rows."""
    prices, default = price_rows()
    row = None if region is None else grid_region(region)
    own = None if row is None else region_price(prices, row)
    used = default if own is None else own
    note = "" if row is None or own is not None else price_fallback_note(row, default)
    return check_price_per_kwh(used["value"]), str(used["region"]), note


@cache
def price_rows() -> tuple[pd.DataFrame, pd.Series]:
    """(the electricity-price rows of :func:`electricity_factors`, its default price row), read
    once (the table is read once too)."""
    prices = electricity_factors()
    prices = prices[prices["quantity"] == "electricity_price"]
    default = prices[prices["is_default"].astype(bool)].iloc[0]  # one: default_factor checks it
    return prices, default


def price_fallback_note(row: pd.Series, default: pd.Series) -> str:
    """ "priced at the default, United States, Virginia (...) (2023): no electricity price for
    France (FR) in data/electricity_factors.csv; pass price_per_kwh= for your own" """
    return (
        f"priced at the default, {default['region']} ({default['year']}): no electricity "
        f"price for {row['region']} ({row['code']}) in data/electricity_factors.csv; pass "
        "price_per_kwh= (--price-per-kwh) for your own"
    )


def wall_for(
    prediction,
    region: str | None = None,
    pue: float | None = None,
    grid_gco2_per_kwh: float | None = None,
    *,
    price_per_kwh: float | None = None,
) -> dict:
    """Energy, CO2e and cost at the wall of a ``wl.predict`` result (or ``wl.explain``'s
    ``.prediction``): per request (energy per token × T_out) and per 1,000 tokens, × ``pue``
    (default ``DEFAULT_PUE``), at ``region``'s grid (or ``grid_gco2_per_kwh``; default the
    world's), with the inputs echoed."""
    t_out = prediction.inputs.t_out
    return wall_for_request(
        prediction.energy_per_token_j * t_out,
        t_out,
        region,
        pue,
        grid_gco2_per_kwh=grid_gco2_per_kwh,
        price_per_kwh=price_per_kwh,
    )


def wall_for_request(
    energy_per_request_j: float,
    t_out: int,
    region: str | None = None,
    pue: float | None = None,
    *,
    grid_gco2_per_kwh: float | None = None,
    price_per_kwh: float | None = None,
) -> dict:
    """:func:`wall_for` from a request's accelerator energy (J) and its ``t_out`` generated
    tokens (the per-1,000-token figures are per generated token, as ``predict``'s): e.g. an
    ``estimate_energy`` result's ``total_j``."""
    grid, source = resolve_grid(region, grid_gco2_per_kwh)
    pue = default_pue() if pue is None else check_pue(pue)
    price_per_kwh, price_region, price_note = resolve_price(region, price_per_kwh)
    out = wall_accounting(
        energy_per_request_j,
        energy_per_request_j / t_out * 1e3,
        pue=pue,
        grid_gco2_per_kwh=grid,
        price_per_kwh=price_per_kwh,
    )
    return {
        **out,
        "grid_gco2_per_kwh": grid,
        "grid_source": source,
        "price_per_kwh": price_per_kwh,
        "price_region": price_region,
        "price_note": price_note,
    }
