"""``estimate``: energy of one request by component (physical or paper mode).

python -m wattgpu_lite estimate --llm NAME|config.json [--gpu NAME|spec.json] [--t-in 15]
    [--t-out 180] [--batch 1] [--mode physical|paper] [--num-gpus 1] [--weights bf16|fp8|fp4|int4]
    [--expert-parallel] [--tp N] [--ep N] [--region CODE | --grid-gco2-per-kwh G] [--pue 1.58]
    [--price-per-kwh P] [--plot FILE.png] [--json]

``--json`` prints ``EnergyEstimate.to_dict()`` in the CLI's envelope (``kind`` "estimate", numbers
rounded as every command's), and under ``wall`` the request's energy at the wall (``total_j`` ×
PUE) per request and per 1,000 generated tokens, its CO2e at the region's or the given grid and
its electricity cost at the price per kWh (each default echoed under ``defaults``); the text output carries the same
content (every input and total, one line each, then the table of terms, the wall accounting and
the notes).
"""

from __future__ import annotations

import argparse

from wattgpu_lite.face.cli import (
    GPU_HELP,
    LLM_HELP,
    add_output_flags,
    add_token_flags,
    add_weights_flag,
    command,
    deliver,
    resolve_gpu,
    resolve_llm,
)
from wattgpu_lite.face.cli.explain import add_wall_flags, wall_lines, wall_of_request
from wattgpu_lite.face.cli.layout import add_layout_flags, add_num_gpus_flag, layout_from
from wattgpu_lite.face.cli.output import Result, document, text_record, text_table
from wattgpu_lite.face.cli.plot import add_plot_flag, save_plot
from wattgpu_lite.face.cli.text import escape_controls

DEFAULT_GPU = "H100 NVL"
MODES = ("physical", "paper")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``estimate``."""
    p = command(sub, "estimate", "energy of one request, by component (J and Wh)",
                "wattgpu-lite estimate --llm meta-llama/Llama-3.1-8B-Instruct --gpu A30 --t-out 500")  # fmt: skip
    p.add_argument("--llm", required=True, help=LLM_HELP)
    p.add_argument("--gpu", default=DEFAULT_GPU, help=f"{GPU_HELP} (default %(default)s)")
    add_token_flags(p)
    p.add_argument("--batch", type=float, default=1.0,
                   help="sequences sharing each step, physical mode (default %(default)s)")  # fmt: skip
    p.add_argument("--mode", choices=MODES, default="physical",
                   help="physical: the kit's model of bytes, FLOPs and static power for any "
                        "dense or MoE LLM, weight format and GPU count; paper: the printed "
                        "equations of Vartziotis et al. (default %(default)s)")  # fmt: skip
    add_num_gpus_flag(p, ", physical mode")
    add_weights_flag(p)
    p.add_argument("--expert-parallel", action="store_true",
                   help="spread a mixture-of-experts model's experts over the GPUs "
                        "(default: off)")  # fmt: skip
    add_layout_flags(p)
    add_wall_flags(p)
    add_plot_flag(p, "the request's energy by component")
    add_output_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from wattgpu_lite.energy.estimate import estimate_energy

    est = estimate_energy(resolve_llm(args.llm), resolve_gpu(args.gpu), batch=args.batch,
                          t_in=args.t_in, t_out=args.t_out, mode=args.mode,
                          num_gpus=args.num_gpus, weights=args.weights,
                          expert_parallel=args.expert_parallel, parallel=layout_from(args))  # fmt: skip
    w = wall_of_request(est.total_j, est.t_out, args)
    if args.plot:
        from wattgpu_lite.face.plots_explain import energy_breakdown

        save_plot(lambda: energy_breakdown(est), args.plot)
    doc = document("estimate", {**est.to_dict(), "wall": w})
    return deliver(Result(doc, text_view(est, args.wide, w)), args)


def text_view(est, wide: bool = False, w: dict | None = None) -> str:
    """Every input and total, one line each; the table of terms; the wall accounting; the notes."""
    data = est.to_dict()
    data.pop("terms")  # printed below as the table
    notes, components = data.pop("notes"), data.pop("components_j")
    lines = [text_record(data | {f"{c}_j": v for c, v in components.items()}), "",
             text_table(est.table(), wide)]  # fmt: skip
    lines += wall_lines(w) if w else []
    return "\n".join(lines + [f"note: {escape_controls(note)}" for note in notes])
