"""``rank``: which GPU serves an LLM within an ITL SLA for the least energy, and how many of it.

python -m wattgpu_lite rank --llm meta-llama/Llama-3.1-8B-Instruct --rate-qps 2 --itl-sla-ms 30 \
    [--name NAME] [--t-in N --t-out N] [--workload watt-counts] [--gpus A30,L4,...|measured|all]
    [--source hybrid|measured|paper|logo] [--json]
    [--tp 8 --ep 8]    (one layout per replica instead of every layout of --gpu-counts)
    [--level 0.8] [--context-tokens 1024]   (the interval level; the context the fit check reserves)

--json prints exactly ``wl.rank_gpus(...).to_json()`` with the same arguments: every column of
the ranking under ``rows`` (no NaN), the defaults it used under ``defaults``. The text view is the dashboard's table:
the pick in one sentence, the best ``--top`` plans with units and intervals, then why each shown plan
that misses, is not answered (the source refused it: no number) or does not fit was turned down.
"""

from __future__ import annotations

import argparse

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
from wattgpu_lite.face.cli.output import Result
from wattgpu_lite.face.cli.plot import add_plot_flag, save_plot
from wattgpu_lite.face.cli.rank_view import text_view
from wattgpu_lite.face.cli.wall import add_wall_flags, grid_source, wall_inputs

DEFAULT_TOP = 20  # plans the text view shows (--json prints them all)


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

    # the tokens and the plan go to every source: a Watt Counts source refuses those it cannot
    # answer for (it knows one GPU, 16-bit weights and vLLM's defaults)
    tokens = {"t_in": args.t_in, "t_out": args.t_out, "workload": args.workload}
    layout = layout_from(args)  # --tp/--ep: that one layout instead of every count's
    tokens |= {
        "gpu_counts": args.gpu_counts,  # "1,2,4": checked by rank_gpus (a whole number each)
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
