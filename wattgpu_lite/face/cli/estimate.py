"""``estimate``: energy of one request by component (physical or paper mode).

python -m wattgpu_lite estimate --llm NAME|config.json --gpu NAME|spec.json [--name NAME]
    [--t-in N] [--t-out N] [--workload watt-counts] [--batch 1] [--mode physical|paper] [--num-gpus 1]
    [--weights bf16|fp8|fp4|int4] [--tp N] [--ep N] [--region CODE | --grid-gco2-per-kwh G]
    [--pue 1.58] [--price-per-kwh P] [--plot FILE.png] [--json]

``--json`` prints exactly ``wl.estimate_energy(...).to_json()`` with the same arguments (``kind``
"estimate", numbers rounded as every command's), and under ``wall`` the request's energy at the wall (``total_j`` ×
PUE) per request and per 1,000 generated tokens, its CO2e at the region's or the given grid and
its electricity cost at the price per kWh (each default echoed under ``defaults``); the text output carries the same
content (every input and total, one line each, then the table of terms, the wall accounting and
the notes).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from wattgpu_lite.face.cli import (
    add_gpu_flag,
    add_llm_flag,
    add_output_flags,
    add_token_flags,
    cli_defaults,
    command,
    deliver,
)
from wattgpu_lite.face.cli.explain import wall_lines
from wattgpu_lite.face.cli.layout import (
    add_layout_flags,
    add_num_gpus_flag,
    add_serving_flags,
    add_weights_flag,
    layout_from,
    serving_inputs,
)
from wattgpu_lite.face.cli.output import Result, clean, text_record, text_table
from wattgpu_lite.face.cli.plot import add_plot_flag, save_plot
from wattgpu_lite.face.cli.text import escape_controls
from wattgpu_lite.face.cli.wall import add_wall_flags, cli_wall, wall_inputs

MODES = ("physical", "paper")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``estimate``."""
    p = command(
        sub,
        "estimate",
        "energy of one request, by component (J and Wh)",
        "wattgpu-lite estimate --llm meta-llama/Llama-3.1-8B-Instruct --gpu A30 --t-out 500",
    )
    add_llm_flag(p)
    add_gpu_flag(p)
    add_token_flags(p)
    p.add_argument(
        "--batch",
        type=float,
        default=1.0,
        help="sequences sharing each step, physical mode (default %(default)s)",
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        default="physical",
        help="physical: the kit's model of bytes, FLOPs and static power for any "
        "dense or MoE LLM, weight format and GPU count; paper: the printed "
        "equations of Vartziotis et al. (default %(default)s)",
    )
    add_num_gpus_flag(p, ", physical mode")
    add_weights_flag(p)
    add_serving_flags(p)
    add_layout_flags(p)
    add_wall_flags(p)
    add_plot_flag(p, "the request's energy by component")
    add_output_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from wattgpu_lite.selection.answers import estimate_energy

    est = estimate_energy(
        args.llm,
        args.gpu,
        batch=args.batch,
        t_in=args.t_in,
        t_out=args.t_out,
        mode=args.mode,
        num_gpus=args.num_gpus,
        weights=args.weights,
        parallel=layout_from(args),
        name=args.name,
        workload=args.workload,
        **serving_inputs(args),
        **wall_inputs(args),
    )
    est = replace(est, wall=cli_wall(est.wall, args), defaults=cli_defaults(est.defaults, args))
    if args.plot:
        from wattgpu_lite.face.plots_explain import energy_breakdown

        save_plot(lambda: energy_breakdown(est), args.plot)
    return deliver(Result(clean(est.to_dict()), text_view(est, args.wide, est.wall)), args)


def text_view(est, wide: bool = False, w: dict | None = None) -> str:
    """Every input and total, one line each; the table of terms; the wall accounting; the notes."""
    data = est.to_dict()
    for key in ("terms", "wall", "defaults"):
        data.pop(key, None)  # the table, the wall lines and the defaults line print them below
    notes, components = data.pop("notes"), data.pop("components_j")
    lines = [
        text_record(data | {f"{c}_j": v for c, v in components.items()}),
        "",
        text_table(est.table(), wide),
    ]
    lines += wall_lines(w) if w else []
    return "\n".join(lines + [f"note: {escape_controls(note)}" for note in notes])
