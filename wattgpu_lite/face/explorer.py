"""The GPU explorer's logic, free of widgets (``widgets.gpu_explorer()`` reads its controls into
an :class:`ExplorerControls` and shows :func:`explorer_view`): everything worth testing is here."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from wattgpu_lite.errors import WattGPUError
from wattgpu_lite.face.labels import DASH, interval_from
from wattgpu_lite.face.prose import sig
from wattgpu_lite.selection import accounting
from wattgpu_lite.selection.accounting import DEFAULT_REGION, grid_intensities
from wattgpu_lite.selection.rank import DEFAULT_GPU_COUNTS, rank_gpus
from wattgpu_lite.selection.ranked import source_tokens, source_tokens_note
from wattgpu_lite.selection.study import best_plans
from wattgpu_lite.selection.verdict import MAY_MEET, MEETS
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

LOADS: tuple[str, ...] = ("server_low", "server_high", "offline", "custom rate")
GPUS_PER_REPLICA: tuple = ("best", 1, 2, 4, 8)  # "best": each GPU type's least-energy count
# the columns every view shows; the ITL and energy headers gain ", 80 % interval"
PLAN, VERDICT = "plan", "verdict"
ITL_HEADER, ENERGY_HEADER = "ITL (ms)", "energy per 1,000 tokens (J)"
LESSON_HEADERS = (PLAN, VERDICT, ITL_HEADER, ENERGY_HEADER)  # display_columns' default
CUSTOM_GRID = "custom number"  # the region choice that uses the grid intensity box instead
MEASURED_MARK = "*"  # after a GPU's name in the table: one of the 8 measured GPUs
MEASURED_NOTE = (
    f"{MEASURED_MARK} measured: a GPU of the Watt Counts runs, whose predictions are "
    "checked against measurements of its own."
)


@dataclass(frozen=True)
class ExplorerControls:
    """What the controls hold; ``rate_qps`` is used only for a 'custom rate' load, the grid number
    only for :data:`CUSTOM_GRID`, ``t_in``/``t_out`` where the source takes them."""

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
    """The ranking, as readable text, a message, the wall's inputs and the verdicts' rule."""

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
    """(label, code) per grid region ("France (FR), 2023: 56 gCO₂e/kWh"), the world first."""
    table = grid_intensities()
    world = table[table["code"] == DEFAULT_REGION]
    rest = table[table["code"] != DEFAULT_REGION].sort_values("region", key=lambda s: s.str.lower())
    label = "{0.region} ({0.code}), {0.year}: {0.gco2e_per_kwh:g} gCO₂e/kWh"
    rows = pd.concat([world, rest]).itertuples()
    return [(label.format(r), r.code) for r in rows] + [(CUSTOM_GRID, CUSTOM_GRID)]


def region_intensity(region: str) -> float | None:
    """The grid intensity of a region code, gCO₂e/kWh (None for the custom number)."""
    if grid_enabled(region):
        return None
    table = grid_intensities()
    return float(table.loc[table["code"] == region, "gco2e_per_kwh"].iloc[0])


def explorer_ranking(c: ExplorerControls) -> pd.DataFrame:
    """``rank_gpus``'s ranking for the controls, one row per GPU type (its best plan) for "best"."""
    load = {"rate_qps": c.rate_qps} if rate_enabled(c.load) else {"scenario": c.load}
    custom = grid_enabled(c.region)
    grid = {"grid_gco2_per_kwh": c.grid_gco2_per_kwh} if custom else {"region": c.region}
    best = c.gpus_per_replica == "best"
    counts = DEFAULT_GPU_COUNTS if best else (int(c.gpus_per_replica),)
    options = {"candidates": list(c.gpus) or None, "gpu_counts": counts, "source": c.source}
    options |= source_tokens(c.source, t_in=c.t_in, t_out=c.t_out)  # the ones the source takes
    same = {k: getattr(c, k) for k in ("itl_sla_ms", "pue", "price_per_kwh")}  # as the controls
    table = rank_gpus(c.llm, **load, **grid, **options, **same)
    return best_plans(table) if best else table


def plan_labels(table: pd.DataFrame, mark: bool = False) -> list[str]:
    """ "B200 ×2, 3 replicas" per row (:data:`MEASURED_MARK` after a measured GPU if ``mark``)."""
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


def _values(column: pd.Series) -> list[str]:
    return [_value(x) for x in column]


def _with_interval(table: pd.DataFrame, column: str) -> list[str]:
    """ "13,600 (11,400–16,200)": the value and its interval, 3 significant figures."""
    nan = pd.Series(math.nan, index=table.index)
    lo, hi = table.get(f"{column}_lo", nan), table.get(f"{column}_hi", nan)
    cells = []
    for x, a, b in zip(table[column], lo, hi, strict=True):
        ok = math.isfinite(a) and math.isfinite(b) and math.isfinite(x)
        cells.append(f"{_value(x)} ({_value(a)}–{_value(b)})" if ok else _value(x))
    return cells


def has_intervals(table: pd.DataFrame) -> bool:
    """Whether any plan has an ITL interval (the hybrid's; the Watt Counts sources have none)."""
    return "itl_ms_hi" in table and bool(table["itl_ms_hi"].notna().any())


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """The ranking as readable text: headers with units, values to 3 significant figures with
    their intervals, "—" where there is none; the wall columns are the accelerators' × PUE."""
    shown = table["itl_ms_lo"].notna().any()
    level = f", {table['level'].iloc[0] * 100:.0f} % interval" if shown else ""
    power = table["total_power_w"].fillna(table["power_w"])  # a replica's, else the one GPU's
    out = {
        "rank": [DASH if pd.isna(r) else str(int(r)) for r in table["rank"]],
        PLAN: plan_labels(table, mark=True),
        VERDICT: list(table["verdict"]),
        f"{ITL_HEADER}{level}": _with_interval(table, "itl_ms"),
        "power (W)": _values(power),
        f"{ENERGY_HEADER}{level}": _with_interval(table, "energy_per_1k_tokens_j"),
        "wall energy per 1,000 tokens (J)": _values(table["wall_energy_per_1k_tokens_j"]),
        "g CO₂e per request (wall)": _values(table["g_co2e_per_request"]),
        "g CO₂e per 1,000 tokens (wall)": _values(table["g_co2e_per_1k_tokens"]),
        "electricity per million tokens (USD, wall)": _values(table["wall_cost_per_mtok"]),
    }
    if table["basis"].notna().any():  # the hybrid's intervals (the Watt Counts sources have none)
        rows = zip(table["basis"], table["fits"], table["itl_interval_from"], strict=True)
        out["interval from"] = [interval_from(b, f, source) for b, f, source in rows]
    out["why not"] = list(table["why_not"].fillna(""))
    return pd.DataFrame(out)


def display_columns(table: pd.DataFrame, *headers: str) -> pd.DataFrame:
    """:func:`display_table` cut to the columns a lesson reads, in the order given: each header
    names the column whose header is it or starts with it and a comma (``ITL_HEADER`` finds
    "ITL (ms), 80 % interval"); none: :data:`LESSON_HEADERS`. An unknown header: ``KeyError``."""
    shown = display_table(table)
    picked = []
    for header in headers or LESSON_HEADERS:
        found = [c for c in shown.columns if c == header or c.startswith(f"{header},")]
        if not found:
            raise KeyError(f"no column {header!r} in the table: {list(shown.columns)}")
        picked.append(found[0])
    return shown[picked]


def wall_caption(table: pd.DataFrame) -> str:
    """ "At the wall: PUE 1.58, grid 458 gCO₂e/kWh (…), electricity 0.0895 USD/kWh." or ''."""
    if table.empty or "pue" not in table:
        return ""
    r = table.iloc[0]
    note = r.get("price_note")
    note = f", {note}" if isinstance(note, str) and note else ""
    grid = f"grid {r['grid_gco2_per_kwh']:g} gCO₂e/kWh ({r['grid_source']})"
    price = f"electricity {r['price_per_kwh']:g} USD/kWh{note}"
    return f"At the wall: PUE {r['pue']:g}, {grid}, {price}."


def _what(table: pd.DataFrame) -> str:
    """ "plans" when a GPU type appears with several counts per replica, else "GPUs"."""
    return "plans" if table["gpu"].duplicated().any() else "GPUs"


def summary(table: pd.DataFrame, itl_sla_ms: float) -> str:
    """One sentence: the pick (the first plan meeting the SLA) and how many meet or may meet it."""
    ok, sla, n_fit = table[table["meets_sla"]], f"{itl_sla_ms:g} ms", int(table["fits"].sum())
    if ok.empty:
        return f"No GPU meets {sla} ({n_fit} of {len(table)} {_what(table)} hold the model)."
    best, counts = ok.iloc[0], table["verdict"].value_counts()
    n_meet, n_may = int(counts.get(MEETS, 0)), int(counts.get(MAY_MEET, 0))
    may = f", {n_may} may meet it" if n_may else ""
    energy = sig(best["energy_per_1k_tokens_j"])
    pick = f"{plan_labels(ok.head(1))[0]} ({energy} J per 1,000 tokens)"
    meet = f"{n_meet} of {len(table)} {_what(table)} meet {sla}{may}"
    return f"Pick: {pick}, which {best['verdict']} {sla}; {meet}."


def verdict_rule(table: pd.DataFrame, itl_sla_ms: float) -> str:
    """How the verdicts are decided (at the ITL interval's upper end, or the estimate), a note."""
    if table.empty:
        return ""
    sla = f"{itl_sla_ms:g} ms"
    marked = "measured" in table and bool(table["measured"].eq(True).any())
    note = f" {MEASURED_NOTE}" if marked else ""
    if not has_intervals(table):
        source = table["source"].iloc[0] if "source" in table else "this"
        why = f"the {source} source gives no ITL interval, so a plan meets the SLA when its ITL"
        return f"Verdicts at the estimate: {why} is within {sla}.{note}"
    level = f"{table['level'].iloc[0] * 100:.0f} %"
    meets = f"meets = the upper end of the {level} ITL interval is within {sla}"
    misses = f"misses = the estimate is above {sla}"
    return f"Verdicts: {meets}; may meet = only the estimate is; {misses}.{note}"


def explorer_view(c: ExplorerControls) -> ExplorerView:
    """The view for the controls. A user's mistake becomes the message and empty tables."""
    try:
        table = explorer_ranking(c)
    except WattGPUError as err:
        return ExplorerView(pd.DataFrame(), pd.DataFrame(), f"error: {err}")  # empty tables
    message, wall = summary(table, c.itl_sla_ms), wall_caption(table)
    verdicts = verdict_rule(table, c.itl_sla_ms) + source_tokens_note(c.source)
    return ExplorerView(table, display_table(table), message, wall=wall, verdicts=verdicts)


def sla_slider_range(load: str, source: str = "hybrid") -> tuple[float, float, float, float]:
    """(min, max, step, start) of the SLA slider, ms (MLPerf's 30 ms; sub-ms for offline runs)."""
    if load == "offline" and source != "hybrid":
        return (0.02, 2.0, 0.02, 0.5)
    return (1.0, 200.0, 1.0, 30.0)
