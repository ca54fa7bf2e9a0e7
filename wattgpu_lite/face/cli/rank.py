"""``rank``: which GPU serves an LLM within an ITL SLA for the least energy, and how many of it.

python -m wattgpu_lite rank --llm meta-llama/Llama-3.1-8B-Instruct --rate-qps 2 --itl-sla-ms 30 \
    [--name NAME] [--t-in N --t-out N] [--workload watt-counts] [--gpus A30,L4,...|measured|all]
    [--source hybrid|measured|paper|logo] [--json]
    [--tp 8 --ep 8]    (one layout per replica instead of every layout of --gpu-counts)
    [--level 0.8] [--context-tokens 1024]   (the interval level; the context the fit check reserves)

--json prints exactly ``wl.rank_gpus(...).to_json()`` with the same arguments: every column of
the ranking under ``rows`` (no NaN), the defaults it used under ``defaults``. The text view is the dashboard's table:
the pick in one sentence, the best ``--top`` plans with units and intervals, then why each shown plan
that misses was turned down.
"""

from __future__ import annotations

import argparse

import pandas as pd

from wattgpu_lite.face.cli import (
    add_level_flag,
    add_llm_flag,
    add_load_flags,
    add_output_flags,
    add_token_flags,
    cli_defaults,
    command,
    deliver,
)
from wattgpu_lite.face.cli.layout import (
    add_layout_flags,
    add_serving_flags,
    add_weights_flag,
    layout_from,
    serving_inputs,
)
from wattgpu_lite.face.cli.output import TEXT_WIDTH, Result, fit_width, wrap_line
from wattgpu_lite.face.cli.plot import add_plot_flag, save_plot
from wattgpu_lite.face.cli.text import escape_controls, escape_frame
from wattgpu_lite.face.cli.wall import add_wall_flags, grid_source, wall_inputs

DEFAULT_TOP = 20  # plans the text view shows (--json prints them all)
# the text view's columns left out first when the table is wider than 100 characters (not --wide)
NARROW_DROPS = ("interval from", "electricity per million tokens (USD, wall)",
                "g CO₂e per request (wall)", "wall energy per 1,000 tokens (J)", "power (W)",
                "g CO₂e per 1,000 tokens (wall)")  # fmt: skip
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


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``rank``."""
    p = command(
        sub,
        "rank",
        "rank GPUs for an LLM under an ITL SLA, by energy",
        "wattgpu-lite rank --llm meta-llama/Llama-3.1-8B-Instruct --rate-qps 2 "
        "--itl-sla-ms 30 --gpus 'A30,L4,H100 NVL'",
    )
    add_llm_flag(p)
    add_load_flags(p, batch_note=", hybrid source")
    p.add_argument(
        "--itl-sla-ms",
        type=float,
        required=True,
        help="the most inter-token latency a request may see, ms",
    )
    add_token_flags(p)
    p.add_argument(
        "--gpus",
        help="comma-separated candidate GPUs, 'measured' for the 8 GPUs of "
        "the Watt Counts runs (the ones whose predictions are checked "
        "against their own measurements; marked * in the table) or "
        "'all' for the whole catalog (default: today's GPUs, "
        "data/current_gpus.csv, as the dashboard; the measured 8 for "
        "--source measured|paper|logo)",
    )
    p.add_argument(
        "--gpu-counts",
        default="1,2,4,8",
        help="GPUs per replica to try, comma-separated (hybrid source; default %(default)s)",
    )
    add_weights_flag(p)
    add_serving_flags(p)
    p.add_argument(
        "--source",
        default="hybrid",
        choices=("hybrid", "measured", "paper", "logo"),
        help="where power and ITL come from (default: %(default)s, as `predict`)",
    )
    add_wall_flags(p)
    add_layout_flags(p, unset="every layout of --gpu-counts")
    add_level_flag(p, ", hybrid source")
    p.add_argument(
        "--context-tokens",
        type=int,
        default=None,
        help="tokens of context the memory-fit check reserves, Watt Counts sources "
        "(default: rank_gpus's, 1024, the runs' max_model_len)",
    )
    p.add_argument(
        "--top",
        type=int,
        default=DEFAULT_TOP,
        help=f"plans the text view shows (default {DEFAULT_TOP}; --json prints all)",
    )
    add_plot_flag(p, "the plans figure (ITL and energy per plan, the SLA dashed)")
    add_output_flags(p)
    p.set_defaults(func=run_rank)


def run_rank(args: argparse.Namespace) -> int:
    from wattgpu_lite.selection.rank import rank_gpus

    tokens = {}
    if args.source == "hybrid":
        counts = args.gpu_counts  # "1,2,4": checked by rank_gpus (a whole number each)
        layout = layout_from(args)  # --tp/--ep: that one layout instead of every count's
        tokens = {
            "t_in": args.t_in,
            "t_out": args.t_out,
            "workload": args.workload,
            "gpu_counts": counts,
            "weights": args.weights,
            "layouts": None if layout is None else [layout],
            **serving_inputs(args),
        }
    context = {} if args.context_tokens is None else {"context_tokens": args.context_tokens}
    gpus = None if args.gpus is None else [g.strip() for g in args.gpus.split(",") if g.strip()]
    if gpus is not None and len(gpus) == 1 and gpus[0].lower() in ("all", "measured"):
        gpus = gpus[0].lower()  # the whole catalog, or the 8 measured GPUs
    table = rank_gpus(
        args.llm,
        scenario=args.scenario,
        rate_qps=args.rate_qps,
        batch=args.batch,
        itl_sla_ms=args.itl_sla_ms,
        candidates=gpus,
        source=args.source,
        **tokens,
        level=args.level,
        **context,
        name=args.name,
        **wall_inputs(args),
    )
    table["grid_source"] = [grid_source(args, s) for s in table["grid_source"]]
    table.attrs["defaults"] = cli_defaults(table.attrs["defaults"], args)
    if args.plot:
        from wattgpu_lite.face.plots_selection import plan_bars

        save_plot(lambda: plan_bars(table, args.itl_sla_ms), args.plot)
    text = "" if args.json else text_view(table, args.itl_sla_ms, args.top, args.wide)
    return deliver(Result(table.to_document(), text), args)


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
