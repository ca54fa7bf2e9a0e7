"""Energy, carbon and cost accounting for serving an LLM on a GPU, and the memory need of a ranking.

Every function is one quantity, SI inside (J, s, B), units in the name. The grid intensity and
electricity price defaults come from data/electricity_factors.csv (a source per row; see
data/SOURCES.md), never from Python literals.

Accounting (accelerator energy; no host CPU):

- server (Poisson arrivals at rate λ): the GPU is held, and draws P̄, for the whole interval
  between requests, so energy per request = P̄ / λ, and per generated token = P̄ / (λ · T_out).
- offline (a batch of requests at once): ITL = 1/throughput, energy per token = P̄ · ITL.
- at the wall (the facility meter): accelerator energy × PUE, its CO2e and electricity cost, in
  :mod:`~wattgpu_lite.selection.wall`. The ``kg_co2e_per_mtok`` and ``cost_per_mtok`` columns
  stay accelerator-only.
"""

from __future__ import annotations

from functools import cache, lru_cache

import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.errors import DataFileError
from wattgpu_lite.hybrid.predict.chain import memory_need_bytes, memory_why_not
from wattgpu_lite.selection.regions import find_region, grid_table

J_PER_KWH = 3.6e6
# vLLM max_model_len of every Watt Counts run (WattGPU §3): the context a fit check assumes
WATT_COUNTS_CONTEXT_TOKENS = 1024


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
_DEFAULTS = {
    "DEFAULT_GRID_GCO2_PER_KWH": "grid_intensity",
    "DEFAULT_PRICE_PER_KWH": "electricity_price",
    "DEFAULT_PUE": "pue",
}
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
