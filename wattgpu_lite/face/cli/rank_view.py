"""``rank``'s text view: the pick in a sentence, the first plans as the dashboard shows them
(the plan, its verdict, its energy per 1,000 tokens and its ratio to the pick's always; the other
columns that fit the width), how the verdicts are decided, the wall line and the why-nots."""

from __future__ import annotations

import pandas as pd

from wattgpu_lite.face.cli.output import TEXT_WIDTH, fit_width, wrap_line
from wattgpu_lite.face.cli.text import escape_controls, escape_frame

# the text view's columns left out first when the table is wider than 100 characters (not --wide)
NARROW_DROPS = (
    "interval from",
    "electricity per million tokens (USD, wall)",
    "g CO₂e per request (wall)",
    "wall energy per 1,000 tokens (J)",
    "power (W)",
    "g CO₂e per 1,000 tokens (wall)",
)
# the columns the text view never leaves out, whatever the width: the plan, its verdict, the
# sort column (face.explorer names them; short_headers drops the interval's level)
ALWAYS_SHOWN = ("plan", "verdict", "energy per 1,000 tokens (J)")
VS_BEST = "× best"  # energy per token over the pick's, with its interval: the column after energy
UNPAIRED_MARK = "~"  # before a ratio whose interval is the unpaired one (vs_best_interval)


def vs_best_cells(table: pd.DataFrame) -> list[str]:
    """Each plan's ``vs_best_energy_ratio`` as text: "best" for the pick, the ratio with its
    interval "1.32 (1.12–1.55)" (:data:`UNPAIRED_MARK` first when the interval is the unpaired
    one, the ratio alone when there is none), "—" where the plan has no ratio."""
    cells = []
    for ratio, lo, hi, kind in zip(
        table["vs_best_energy_ratio"],
        table["vs_best_energy_ratio_lo"],
        table["vs_best_energy_ratio_hi"],
        table["vs_best_interval"],
        strict=True,
    ):
        if kind == "reference":
            cells.append("best")
        elif pd.isna(ratio):
            cells.append("—")
        elif pd.isna(lo) or pd.isna(hi):
            cells.append(f"{ratio:.3g}")
        else:
            mark = UNPAIRED_MARK if kind == "unpaired" else ""
            cells.append(f"{mark}{ratio:.3g} ({lo:.3g}–{hi:.3g})")
    return cells


def text_view(
    table, itl_sla_ms: float, top: int, wide: bool = False, width: int = TEXT_WIDTH
) -> str:
    """The pick in a sentence, the first ``top`` plans as the dashboard shows them — the plan,
    its verdict and its energy per 1,000 tokens (the sort column) always, the other columns that
    fit ``width`` characters unless ``wide`` —, how the verdicts are decided, the why-nots."""
    from wattgpu_lite.face.explorer import display_table, summary

    shown = short_headers(display_table(table))
    if "vs_best_energy_ratio" in table and table["vs_best_energy_ratio"].notna().any():
        at = list(shown.columns).index(ALWAYS_SHOWN[-1]) + 1  # beside the sort column
        shown.insert(at, VS_BEST, vs_best_cells(table))
    view = escape_frame(shown.head(max(top, 1)))
    pick = escape_controls(summary(table, itl_sla_ms))
    lines = [
        pick if wide else wrap_line(pick, width),
        "",
        fit_width(
            view.drop(columns="why not"), wide, width, drop_first=NARROW_DROPS, keep=ALWAYS_SHOWN
        ),
        *[
            line if wide else wrap_line(line, width)
            for line in [verdict_line(table, itl_sla_ms), *wall_line(table)]
        ],
    ]
    why = [f"  {p}: {w}" for p, w in zip(view["plan"], view["why not"], strict=True) if w]
    why = why if wide else [wrap_line(line, width, indent="    ") for line in why]
    if why:
        lines += ["", "why not:", *why]
    if len(table) > len(view):
        lines += [
            "",
            f"{len(table) - len(view)} more plans: --top {len(table)} or --json shows all.",
        ]
    return "\n".join(lines)


def short_headers(display: pd.DataFrame) -> pd.DataFrame:
    """The dashboard's table with the ITL and energy headers without their ", 80 % interval"
    (:func:`verdict_line` says what the parentheses hold), so the kept columns stay narrow."""
    from wattgpu_lite.face.explorer import ENERGY_HEADER, ITL_HEADER

    short = {
        c: h for c in display.columns for h in (ITL_HEADER, ENERGY_HEADER) if c.startswith(f"{h}, ")
    }
    return display.rename(columns=short)


def verdict_line(table, itl_sla_ms: float) -> str:
    """How the verdicts are decided (:func:`wattgpu_lite.face.explorer.verdict_rule`) and, with
    intervals, what the parentheses of the table hold."""
    from wattgpu_lite.face.explorer import has_intervals, verdict_rule

    line = verdict_rule(table, itl_sla_ms)
    if has_intervals(table):
        line += f" In parentheses: the {table['level'].iloc[0] * 100:.0f} % interval."
    if "vs_best_energy_ratio" in table and table["vs_best_energy_ratio"].notna().any():
        line += (
            f" {VS_BEST}: energy per token over the pick's, its interval paired where "
            f"both plans are calibrated ({UNPAIRED_MARK}: unpaired, wider)."
        )
    return escape_controls(line)


def wall_line(table) -> list[str]:
    """The pick's energy and CO2e at the wall, in one line (none without a pick)."""
    best = table[table["rank"] == 1] if "rank" in table else table.iloc[:0]
    if best.empty or "wall_energy_per_1k_tokens_j" not in table:
        return []
    r = best.iloc[0]
    note = r.get("price_note")
    note = [escape_controls(f"electricity {note}")] if isinstance(note, str) and note else []
    return [
        escape_controls(
            f"at the wall (PUE {r['pue']:g}, grid {r['grid_gco2_per_kwh']:g} gCO2e/kWh, "
            f"{r['grid_source']}): {r['wall_energy_per_1k_tokens_j']:.4g} J and "
            f"{r['g_co2e_per_1k_tokens']:.3g} g CO2e per 1,000 tokens"
        ),
        *note,
    ]
