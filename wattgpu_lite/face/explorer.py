"""The GPU explorer's logic, free of widgets: control values in, ranking, readable table and
message out.

``widgets.gpu_explorer()`` reads its controls into an :class:`ExplorerControls` and calls
:func:`explorer_view`; everything worth testing happens here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from wattgpu_lite.errors import WattGPUError
from wattgpu_lite.face.prose import sig
from wattgpu_lite.selection import accounting
from wattgpu_lite.selection.accounting import DEFAULT_REGION, grid_intensities
from wattgpu_lite.selection.rank import DEFAULT_GPU_COUNTS, rank_gpus
from wattgpu_lite.selection.study import best_plans
from wattgpu_lite.selection.verdict import MAY_MEET, MEETS
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

LOADS: tuple[str, ...] = ("server_low", "server_high", "offline", "custom rate")
GPUS_PER_REPLICA: tuple = ("best", 1, 2, 4, 8)  # "best": each GPU type's least-energy count
DASH = "—"  # shown where a value does not exist (no rank, a plan that does not fit)
BASIS = {"cv": "learned, GPU and LLM seen", "new gpu": "learned, new GPU",
         "new llm": "learned, new LLM", "new gpu and llm": "learned, new GPU and LLM",
         "physics": "physics alone"}  # fmt: skip
# the columns every view of a ranking shows (the CLI's text view never drops them): the plan,
# its SLA verdict and the sort column; ITL_HEADER and ENERGY_HEADER gain ", 80 % interval"
PLAN, VERDICT = "plan", "verdict"
ITL_HEADER, ENERGY_HEADER = "ITL (ms)", "energy per 1,000 tokens (J)"
LESSON_HEADERS = (PLAN, VERDICT, ITL_HEADER, ENERGY_HEADER)  # display_columns' default
# the wall columns of display_table (energy per 1,000 tokens is the accelerators', the ranking's)
WALL_ENERGY = "wall energy per 1,000 tokens (J)"
CO2E_PER_REQUEST = "g CO₂e per request (wall)"
CO2E_PER_1K = "g CO₂e per 1,000 tokens (wall)"
WALL_COST = "electricity per million tokens (USD, wall)"
CUSTOM_GRID = "custom number"  # the region choice that uses the grid intensity box instead
MEASURED_MARK = "*"  # after a GPU's name in the table: one of the 8 measured GPUs
MEASURED_NOTE = (f"{MEASURED_MARK} measured: a GPU of the Watt Counts runs, whose predictions are "
                 "checked against measurements of its own.")  # fmt: skip


@dataclass(frozen=True)
class ExplorerControls:
    """What the explorer's controls hold; ``rate_qps`` is used only when load is 'custom rate',
    ``grid_gco2_per_kwh`` only when region is :data:`CUSTOM_GRID` (else the region's row of the
    grid tables decides; ``price_per_kwh`` None: the region's price, else the default with a
    note); ``t_in``/``t_out`` (prompt and generated tokens per request) by the hybrid source
    only; ``pue`` turns accelerator energy into energy at the wall."""

    llm: str
    gpus: tuple[str, ...] = ()
    load: str = "server_low"
    rate_qps: float = 0.1
    itl_sla_ms: float = 30.0
    gpus_per_replica: str | int = "best"
    t_in: int = DEFAULT_T_IN
    t_out: int = DEFAULT_T_OUT
    grid_gco2_per_kwh: float = field(default_factory=lambda: accounting.DEFAULT_GRID_GCO2_PER_KWH)
    price_per_kwh: float | None = None  # None: the region's own price, else the default's
    source: str = "hybrid"
    region: str = DEFAULT_REGION
    pue: float = field(default_factory=accounting.default_pue)


@dataclass(frozen=True)
class ExplorerView:
    """The numeric ranking (one row per GPU type), the same as readable text, a message, the
    wall accounting's inputs in words (:func:`wall_caption`) and how the verdicts are decided
    (:func:`verdict_rule`; both '' without a ranking)."""

    table: pd.DataFrame
    display: pd.DataFrame
    message: str
    wall: str = ""
    verdicts: str = ""


def rate_enabled(load: str) -> bool:
    """The rate box means something only for a custom rate."""
    return load == "custom rate"


def grid_enabled(region: str) -> bool:
    """The grid intensity box means something only for a custom number."""
    return region == CUSTOM_GRID


def region_options() -> list[tuple[str, str]]:
    """(label, code) for each grid region, "France (FR), 2023: 56 gCO₂e/kWh": the world first,
    then the countries by name, then the custom number."""
    table = grid_intensities()
    world = table[table["code"] == DEFAULT_REGION]
    rest = table[table["code"] != DEFAULT_REGION].sort_values("region", key=lambda s: s.str.lower())
    rows = pd.concat([world, rest]).itertuples()
    return [(f"{r.region} ({r.code}), {r.year}: {r.gco2e_per_kwh:g} gCO₂e/kWh", r.code)
            for r in rows] + [(CUSTOM_GRID, CUSTOM_GRID)]  # fmt: skip


def region_intensity(region: str) -> float | None:
    """The grid intensity of a region code, gCO₂e/kWh (None for the custom number)."""
    if grid_enabled(region):
        return None
    table = grid_intensities()
    return float(table.loc[table["code"] == region, "gco2e_per_kwh"].iloc[0])


def explorer_ranking(c: ExplorerControls) -> pd.DataFrame:
    """The ranking for the controls, one row per GPU type (its best plan for "best"), with the
    energy, CO₂e and cost at the wall (``rank_gpus``'s own columns); raises the kit's errors on
    bad input."""
    load = {"rate_qps": c.rate_qps} if rate_enabled(c.load) else {"scenario": c.load}
    custom = grid_enabled(c.region)
    grid = {"grid_gco2_per_kwh": c.grid_gco2_per_kwh} if custom else {"region": c.region}
    best = c.gpus_per_replica == "best"
    counts = DEFAULT_GPU_COUNTS if best else (int(c.gpus_per_replica),)
    table = rank_gpus(
        c.llm, **load, itl_sla_ms=c.itl_sla_ms, candidates=list(c.gpus) or None,
        gpu_counts=counts, t_in=c.t_in, t_out=c.t_out, **grid, pue=c.pue,
        price_per_kwh=c.price_per_kwh, source=c.source,
    )  # fmt: skip
    return best_plans(table) if best else table


def plan_labels(table: pd.DataFrame, mark: bool = False) -> list[str]:
    """ "B200 ×2, 3 replicas" per row: the GPU (with :data:`MEASURED_MARK` after a measured one
    when ``mark``), its count per replica when several, its expert layout ("H100 SXM ×8
    DP8·EP8"), the replicas when several (a table without these columns: the GPU name)."""
    out = []
    for _, r in table.iterrows():
        n, reps, ep = (r.get(k, 1) for k in ("num_gpus", "replicas", "ep"))
        text = r["gpu"] + (MEASURED_MARK if mark and r.get("measured") is True else "")
        text += f" ×{int(n)}" if pd.notna(n) and n > 1 else ""
        text += f" {r['layout']}" if pd.notna(ep) and ep > 1 else ""  # an expert layout
        out.append(text + (f", {int(reps)} replicas" if pd.notna(reps) and reps > 1 else ""))
    return out


def _value(x: float) -> str:
    return DASH if x is None or not math.isfinite(x) else sig(x)


def _with_interval(table: pd.DataFrame, column: str) -> list[str]:
    """ "13,600 (11,400–16,200)": the value and its interval, 3 significant figures."""
    lo, hi = table.get(f"{column}_lo"), table.get(f"{column}_hi")
    cells = []
    for k, x in enumerate(table[column]):
        ends = (lo.iloc[k], hi.iloc[k]) if lo is not None else (math.nan, math.nan)
        ok = all(math.isfinite(e) for e in ends) and math.isfinite(x)
        cells.append(f"{_value(x)} ({_value(ends[0])}–{_value(ends[1])})" if ok else _value(x))
    return cells


def has_intervals(table: pd.DataFrame) -> bool:
    """Whether any plan of a ranking has an ITL interval (the hybrid's; the Watt Counts sources
    have none, and their verdicts are the estimate's)."""
    return "itl_ms_hi" in table and bool(table["itl_ms_hi"].notna().any())


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """The ranking as readable text: headers with units, values to 3 significant figures with
    their intervals, "—" where there is no rank or no value; a measured GPU's name marked
    (:data:`MEASURED_MARK`, :func:`verdict_rule` says so); the SLA verdict in words
    (:mod:`wattgpu_lite.selection.verdict`). Energy per 1,000 tokens (the
    ranking's measure) is the accelerators'; the wall columns count it × PUE, and the CO₂e and
    the electricity cost are the wall's (``rank_gpus``'s ``wall_*`` and ``g_co2e_*`` columns)."""
    level = (f", {table['level'].iloc[0] * 100:.0f} % interval"
             if table["itl_ms_lo"].notna().any() else "")  # fmt: skip
    power = table["total_power_w"].fillna(table["power_w"])  # a replica's, else the one GPU's
    out = {
        "rank": [DASH if pd.isna(r) else str(int(r)) for r in table["rank"]],
        PLAN: plan_labels(table, mark=True),
        VERDICT: list(table["verdict"]),
        f"{ITL_HEADER}{level}": _with_interval(table, "itl_ms"),
        "power (W)": [_value(p) for p in power],
        f"{ENERGY_HEADER}{level}": _with_interval(table, "energy_per_1k_tokens_j"),
        WALL_ENERGY: [_value(x) for x in table["wall_energy_per_1k_tokens_j"]],
        CO2E_PER_REQUEST: [_value(x) for x in table["g_co2e_per_request"]],
        CO2E_PER_1K: [_value(x) for x in table["g_co2e_per_1k_tokens"]],
        WALL_COST: [_value(x) for x in table["wall_cost_per_mtok"]],
    }
    if table["basis"].notna().any():  # the hybrid's intervals (the Watt Counts sources have none)
        out["interval from"] = [BASIS.get(b, DASH) if f else DASH
                                for b, f in zip(table["basis"], table["fits"], strict=True)]  # fmt: skip
    out["why not"] = list(table["why_not"].fillna(""))
    return pd.DataFrame(out)


def display_columns(table: pd.DataFrame, *headers: str) -> pd.DataFrame:
    """:func:`display_table` cut to the columns a lesson reads, in the order given: each header
    names the column whose header is it or starts with it and a comma (``ITL_HEADER`` finds
    "ITL (ms), 80 % interval"); no header: the plan, its verdict, its ITL and its energy
    (:data:`LESSON_HEADERS`). A header no column has raises ``KeyError``."""
    shown = display_table(table)
    picked = []
    for header in headers or LESSON_HEADERS:
        found = [c for c in shown.columns if c == header or c.startswith(f"{header},")]
        if not found:
            raise KeyError(f"no column {header!r} in the table: {list(shown.columns)}")
        picked.append(found[0])
    return shown[picked]


def wall_caption(table: pd.DataFrame) -> str:
    """The wall columns' inputs in words: "At the wall: PUE 1.58, grid 458 gCO₂e/kWh (World
    (WORLD), 2025 default), electricity 0.0895 USD/kWh." and, when the price is another
    region's, the note saying so ('' for an empty table)."""
    if table.empty or "pue" not in table:
        return ""
    r = table.iloc[0]
    note = r.get("price_note")
    note = f", {note}" if isinstance(note, str) and note else ""
    return (f"At the wall: PUE {r['pue']:g}, grid {r['grid_gco2_per_kwh']:g} gCO₂e/kWh "
            f"({r['grid_source']}), electricity {r['price_per_kwh']:g} USD/kWh{note}.")  # fmt: skip


def _what(table: pd.DataFrame) -> str:
    """ "plans" when a GPU type appears with several counts per replica, else "GPUs" (one row each)."""
    return "plans" if table["gpu"].duplicated().any() else "GPUs"


def summary(table: pd.DataFrame, itl_sla_ms: float) -> str:
    """One sentence: the pick (the ranking's first plan meeting the SLA, confident ones first),
    its energy and verdict, and how many plans meet or may meet the SLA; or why there is none."""
    ok, sla, n_fit = table[table["meets_sla"]], f"{itl_sla_ms:g} ms", int(table["fits"].sum())
    if ok.empty:
        return f"No GPU meets {sla} ({n_fit} of {len(table)} {_what(table)} hold the model)."
    best, counts = ok.iloc[0], table["verdict"].value_counts()
    n_meet, n_may = int(counts.get(MEETS, 0)), int(counts.get(MAY_MEET, 0))
    may = f", {n_may} may meet it" if n_may else ""
    return (
        f"Pick: {plan_labels(ok.head(1))[0]} ({sig(best['energy_per_1k_tokens_j'])} J per "
        f"1,000 tokens), which {best['verdict']} {sla}; {n_meet} of {len(table)} "
        f"{_what(table)} meet {sla}{may}."
    )


def verdict_rule(table: pd.DataFrame, itl_sla_ms: float) -> str:
    """How the ranking's verdicts are decided, in a sentence ('' for an empty table): at the
    upper end of the ITL interval, or at the estimate when no plan has an interval; then what
    the mark after a GPU's name means (:data:`MEASURED_NOTE`) when one is marked."""
    if table.empty:
        return ""
    sla = f"{itl_sla_ms:g} ms"
    marked = "measured" in table and bool(table["measured"].eq(True).any())
    note = f" {MEASURED_NOTE}" if marked else ""
    if not has_intervals(table):
        source = table["source"].iloc[0] if "source" in table else "this"
        return (f"Verdicts at the estimate: the {source} source gives no ITL interval, so a plan "
                f"meets the SLA when its ITL is within {sla}.{note}")  # fmt: skip
    level = f"{table['level'].iloc[0] * 100:.0f} %"
    return (f"Verdicts: meets = the upper end of the {level} ITL interval is within {sla}; "
            f"may meet = only the estimate is; misses = the estimate is above "
            f"{sla}.{note}")  # fmt: skip


def explorer_view(c: ExplorerControls) -> ExplorerView:
    """The view for the controls. A user's mistake becomes the message and empty tables."""
    try:
        table = explorer_ranking(c)
    except WattGPUError as err:
        empty = pd.DataFrame()
        return ExplorerView(empty, empty, f"error: {err}")
    return ExplorerView(table, display_table(table), summary(table, c.itl_sla_ms),
                        wall_caption(table), verdict_rule(table, c.itl_sla_ms))  # fmt: skip


def sla_slider_range(load: str, source: str = "hybrid") -> tuple[float, float, float, float]:
    """(min, max, step, start) of the SLA slider in ms: tens of ms (start: MLPerf's 30 ms
    interactive TPOT), except offline from the Watt Counts readings, whose ITL is 1 / throughput,
    a fraction of a ms (the hybrid's offline ITL is what one request sees)."""
    if load == "offline" and source != "hybrid":
        return (0.02, 2.0, 0.02, 0.5)
    return (1.0, 200.0, 1.0, 30.0)
