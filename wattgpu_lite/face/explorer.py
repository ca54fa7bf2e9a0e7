"""The GPU explorer's logic, free of widgets: control values in, ranking table and message out.

``widgets.gpu_explorer()`` reads its controls into a :class:`ExplorerControls` and calls
:func:`explorer_view`; everything worth testing happens here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from wattgpu_lite.errors import WattGPUError
from wattgpu_lite.selection.accounting import DEFAULT_GRID_GCO2_PER_KWH, DEFAULT_PRICE_PER_KWH
from wattgpu_lite.selection.rank import rank_gpus

LOADS: tuple[str, ...] = ("server_low", "server_high", "offline", "custom rate")
# columns the explorer shows, in order
VIEW_COLUMNS = ["rank", "gpu", "meets_sla", "itl_ms", "power_w", "energy_per_1k_tokens_j",
                "kg_co2e_per_mtok", "cost_per_mtok", "why_not"]  # fmt: skip


# decimals shown per column (offline ITLs are fractions of a millisecond)
SERVER_DECIMALS = {"itl_ms": 1, "power_w": 1, "energy_per_1k_tokens_j": 0,
                   "kg_co2e_per_mtok": 3, "cost_per_mtok": 3}  # fmt: skip
OFFLINE_DECIMALS = {**SERVER_DECIMALS, "itl_ms": 4, "energy_per_1k_tokens_j": 1}


@dataclass(frozen=True)
class ExplorerControls:
    """What the explorer's controls hold; ``rate_qps`` is used only when load is 'custom rate'."""

    llm: str
    gpus: tuple[str, ...] = ()
    load: str = "server_low"
    rate_qps: float = 0.1
    itl_sla_ms: float = 30.0
    grid_gco2_per_kwh: float = DEFAULT_GRID_GCO2_PER_KWH
    price_per_kwh: float = DEFAULT_PRICE_PER_KWH
    source: str = "hybrid"


def explorer_ranking(c: ExplorerControls) -> pd.DataFrame:
    """The full ranking table for the controls (raises the kit's errors on bad input)."""
    load = {"rate_qps": c.rate_qps} if c.load == "custom rate" else {"scenario": c.load}
    return rank_gpus(
        c.llm, **load, itl_sla_ms=c.itl_sla_ms, candidates=list(c.gpus) or None,
        grid_gco2_per_kwh=c.grid_gco2_per_kwh, price_per_kwh=c.price_per_kwh, source=c.source,
    )  # fmt: skip


def summary(table: pd.DataFrame, itl_sla_ms: float) -> str:
    """One sentence: the pick and its energy, or why there is none."""
    ok = table[table["meets_sla"]]
    n_fit = int(table["fits"].sum())
    if ok.empty:
        return f"No GPU meets {itl_sla_ms:g} ms ({n_fit} of {len(table)} hold the model)."
    best = ok.iloc[0]
    return (
        f"Pick: {best['gpu']} ({best['energy_per_1k_tokens_j']:,.0f} J per 1,000 tokens); "
        f"{len(ok)} of {len(table)} GPUs meet {itl_sla_ms:g} ms."
    )


def explorer_view(c: ExplorerControls) -> tuple[pd.DataFrame, str]:
    """(table to show, message). A user's mistake becomes the message and an empty table."""
    try:
        table = explorer_ranking(c)
    except WattGPUError as err:
        return pd.DataFrame(columns=VIEW_COLUMNS), f"error: {err}"
    decimals = OFFLINE_DECIMALS if c.load == "offline" else SERVER_DECIMALS
    return table[VIEW_COLUMNS].round(decimals), summary(table, c.itl_sla_ms)


def sla_slider_range(load: str) -> tuple[float, float, float, float]:
    """(min, max, step, start) of the SLA slider in ms; offline ITLs are sub-millisecond
    (1/throughput), server ones tens of ms (start: MLPerf's 30 ms interactive TPOT)."""
    return (0.02, 2.0, 0.02, 0.5) if load == "offline" else (1.0, 150.0, 1.0, 30.0)
