"""Energy, carbon and cost accounting for serving an LLM on a GPU, and the memory need of a ranking.

Every function is one quantity, SI inside (J, s, B), units in the name. The grid intensity and
electricity price defaults come from data/electricity_factors.csv (a source per row; see
data/SOURCES.md), never from Python literals.

Accounting (accelerator energy; no host CPU):

- server (Poisson arrivals at rate λ): the GPU is held, and draws P̄, for the whole interval
  between requests, so energy per request = P̄ / λ, and per generated token = P̄ / (λ · T_out).
- offline (a batch of requests at once): ITL = 1/throughput, energy per token = P̄ · ITL.
- at the wall (the facility meter, as CodeCarbon and EcoLogits count it): accelerator energy ×
  PUE (default: the Uptime Institute survey's industry average, data/electricity_factors.csv),
  and its CO2e at a grid intensity, by region or country code from data/grid_intensity.csv
  (Ember), then every country of data/grid_intensity_countries.csv (Our World in Data); the
  electricity price is the region's country's row of data/electricity_factors.csv where it has
  one, else the default (US, Virginia) with a ``price_note`` saying so. The ``kg_co2e_per_mtok``
  and ``cost_per_mtok`` columns stay accelerator-only; the ``wall_*`` and ``g_co2e_*`` columns
  are the facility's.
"""

from __future__ import annotations

from functools import cache, lru_cache

import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.errors import DataFileError, InvalidInputError
from wattgpu_lite.hybrid.predict.chain import memory_need_bytes, memory_why_not
from wattgpu_lite.selection import regions
from wattgpu_lite.selection.regions import find_region, grid_table, region_price

J_PER_KWH = 3.6e6
# vLLM max_model_len of every Watt Counts run (WattGPU §3): the context a fit check assumes
WATT_COUNTS_CONTEXT_TOKENS = 1024
PRICED_REGIONS_CACHED = 64  # regions whose price is kept (:func:`priced_at`)


def memory_need_gb(llm, context_tokens: int = WATT_COUNTS_CONTEXT_TOKENS) -> float:
    """GB (1e9 B) one GPU holds for the model's weights at their own format and the KV cache of
    one sequence of the context (:func:`wattgpu_lite.energy.occupancy.memory_need_bytes`)."""
    return memory_need_bytes(llm, 1, None, context_tokens) / 1e9


def why_not_fits(llm, gpu, context_tokens: int = WATT_COUNTS_CONTEXT_TOKENS) -> str:
    """'' when the weights and one sequence's KV cache fit in 90 % of one GPU's memory, else the
    reason in words: the kit's one memory-fit check
    (:func:`wattgpu_lite.energy.occupancy.memory_why_not`), at one GPU and the model's format."""
    return memory_why_not(llm, gpu, 1, None, kv_tokens=context_tokens)


def server_energy_per_request_j(power_w, rate_qps):
    """Server energy per request, J: P̄ / λ (the GPU draws P̄ for the whole interval 1/λ)."""
    return power_w / rate_qps


def offline_energy_per_token_j(power_w, itl_s):
    """Offline energy per generated token, J: P̄ · ITL (ITL = 1/throughput)."""
    return power_w * itl_s


def co2e_kg_per_million_tokens(energy_per_token_j, grid_gco2_per_kwh):
    """kg CO2e per 1e6 generated tokens: E_token · 1e6 / 3.6e6 J/kWh · I_grid / 1000 g/kg."""
    return energy_per_token_j * 1e6 / J_PER_KWH * grid_gco2_per_kwh / 1000.0


def cost_per_million_tokens(energy_per_token_j, price_per_kwh):
    """Electricity cost per 1e6 generated tokens (currency of the price): E · 1e6 / 3.6e6 · p."""
    return energy_per_token_j * 1e6 / J_PER_KWH * price_per_kwh


def saving_pct(energy_low, energy_high):
    """How much less the lower-energy option uses, % of the higher: (E_hi − E_lo) / E_hi · 100."""
    return (energy_high - energy_low) / energy_high * 100.0


def extra_pct(energy_low, energy_high):
    """How much more the higher-energy option uses, % of the lower: (E_hi − E_lo) / E_lo · 100."""
    return (energy_high - energy_low) / energy_low * 100.0


@cache
def electricity_factors() -> pd.DataFrame:
    """data/electricity_factors.csv: grid intensities and electricity prices, one source a row."""
    path = data_dir() / "electricity_factors.csv"
    table = read_csv(path)  # the checked reader: digest, size, missing file
    needed = {"key", "quantity", "value", "unit", "is_default", "source"}
    if not needed <= set(table.columns):
        raise DataFileError(f"{path.name}: missing columns {sorted(needed - set(table.columns))}")
    return table


@lru_cache(maxsize=8)  # one value per quantity of electricity_factors.csv
def default_factor(quantity: str) -> float:
    """The default value of ``quantity`` ('grid_intensity' or 'electricity_price')."""
    table = electricity_factors()
    hits = table[(table["quantity"] == quantity) & table["is_default"]]
    if len(hits) != 1:
        raise DataFileError(f"electricity_factors.csv: need one default row for {quantity!r}")
    return float(hits["value"].iloc[0])


# the defaults of data/electricity_factors.csv, read when first asked (importing reads no file):
# DEFAULT_GRID_GCO2_PER_KWH (Ember, world 2025), DEFAULT_PRICE_PER_KWH (EIA, Virginia commercial,
# USD), DEFAULT_PUE (Uptime Institute, industry average 2023)
_DEFAULTS = {"DEFAULT_GRID_GCO2_PER_KWH": "grid_intensity",
             "DEFAULT_PRICE_PER_KWH": "electricity_price", "DEFAULT_PUE": "pue"}  # fmt: skip
DEFAULT_REGION = "WORLD"


def __getattr__(name: str) -> float:
    """``DEFAULT_GRID_GCO2_PER_KWH``, ``DEFAULT_PRICE_PER_KWH`` and ``DEFAULT_PUE``, read from
    data/electricity_factors.csv when first used (:func:`default_factor`)."""
    if name in _DEFAULTS:
        return default_factor(_DEFAULTS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_pue() -> float:
    return default_factor("pue")


@cache
def grid_intensities() -> pd.DataFrame:
    """Every grid region, location-based intensity (gCO2e/kWh), one cited source a row:
    data/grid_intensity.csv (``WORLD``, the default, and 14 countries), then every other country
    of data/grid_intensity_countries.csv (Our World in Data: Ember, Energy Institute), by ISO
    3166-1 alpha-2 code (:func:`wattgpu_lite.selection.regions.grid_table`)."""
    return grid_table()


def grid_region(region: str) -> pd.Series:
    """The grid row of a code (``FR``, ``fr``, ``world``), an ISO alpha-3 code (``FRA``) or a name
    (``France``); InvalidInputError with the close matches otherwise."""
    return find_region(grid_intensities(), region)


def unknown_region_message(region: str) -> str:
    """Why ``region`` is no grid region, its close matches and the way out
    (:func:`wattgpu_lite.selection.regions.unknown_region_message`)."""
    return regions.unknown_region_message(grid_intensities(), region)


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
