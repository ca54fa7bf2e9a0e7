"""``compare``: GPU against GPU for one LLM and load — energy and ITL ratios with intervals.

python -m wattgpu_lite compare --llm NAME --gpus "A30,A100 SXM4 40GB"
       (--rate-qps QPS | --batch N | --scenario offline|server_low|server_high)
       [--t-in N] [--t-out N] [--workload watt-counts] [--level 0.8] [--num-gpus 1] [--tp N] [--ep N]
       [--weights FORMAT] [--reference GPU] [--json]

``--json`` prints ``wl.compare(...).to_json()`` (a test holds them equal); the text view shows
each GPU's ratios to the reference, the interval's kind (paired, unpaired, none) and the verdict.
"""

from __future__ import annotations

import argparse
import dataclasses
import json

from wattgpu_lite.face.cli import (
    LLM_HELP,
    LOAD_SCENARIOS,
    add_output_flags,
    add_token_flags,
    cli_defaults,
    command,
    deliver,
)
from wattgpu_lite.face.cli.defaults import GIVEN
from wattgpu_lite.face.cli.layout import (
    add_layout_flags,
    add_num_gpus_flag,
    add_weights_flag,
    request_inputs,
)
from wattgpu_lite.face.cli.output import Result, text_table, wrap_line
from wattgpu_lite.face.cli.text import escape_controls

SHOWN = {
    "gpu": "gpu",
    "plan": "plan",
    "energy_ratio": "energy ×",
    "energy_ratio_lo": "lo",
    "energy_ratio_hi": "hi",
    "itl_ratio": "ITL ×",
    "itl_ratio_lo": "ITL lo",
    "itl_ratio_hi": "ITL hi",
    "interval": "interval",
    "verdict": "verdict",
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``compare``."""
    p = command(
        sub,
        "compare",
        "GPU against GPU: energy and ITL ratios with paired intervals",
        "wattgpu-lite compare --llm meta-llama/Llama-3.1-8B-Instruct "
        "--gpus 'A30,A100 SXM4 40GB' --scenario server_low",
    )
    p.add_argument("--llm", required=True, help=LLM_HELP)
    p.add_argument(
        "--gpus",
        help="GPUs to compare, comma-separated catalog names, or 'all' / "
        "'measured' (default: the GPUs rank tries by default)",
    )
    load = p.add_mutually_exclusive_group(required=True)
    load.add_argument(
        "--rate-qps", type=float, help="Poisson arrival rate, requests per second (1e-6 to 1000)"
    )
    load.add_argument("--batch", type=float, help="sequences decoded together, 1 to 4096 (offline)")
    load.add_argument(
        "--scenario", choices=LOAD_SCENARIOS, help="the load of a Watt Counts scenario"
    )
    add_token_flags(p)
    p.add_argument(
        "--level",
        type=float,
        default=0.8,
        help="interval coverage in (0.5, 0.999) (default %(default)s)",
    )
    add_num_gpus_flag(p)
    add_layout_flags(p)
    add_weights_flag(p)
    p.add_argument(
        "--reference",
        default=None,
        help="the GPU the others are divided by (default: the least energy per token)",
    )
    add_output_flags(p)
    p.set_defaults(func=run)


def text_view(c, wide: bool = False) -> str:
    """The reference in a sentence, the ratios table, the notes."""
    i = c.inputs
    load = (
        f"rate {i['rate_qps']:g} req/s"
        if i["rate_qps"] is not None
        else f"batch {i['batch']:g}"
        if i["batch"] is not None
        else "offline"
    )
    head = (
        f"{c.llm}, {load}, {i['t_in']} prompt / {i['t_out']} generated tokens: each GPU's "
        f"energy per token and ITL over the {c.reference}'s, {c.level:.0%} intervals"
    )
    table = text_table(c.to_frame()[list(SHOWN)].rename(columns=SHOWN), wide)
    prose = [f"  {r['gpu']}: {r['note']}" for r in c.rows if r["note"]]
    prose += [f"note: {n}" for n in c.notes]
    fold = [escape_controls(x) if wide else wrap_line(escape_controls(x)) for x in prose]
    return "\n".join(
        [escape_controls(head) if wide else wrap_line(escape_controls(head)), "", table, *fold]
    )


def run(args: argparse.Namespace) -> int:
    from wattgpu_lite.selection.compare import compare

    c = compare(
        args.llm,
        args.gpus,
        **request_inputs(args),
        reference=args.reference,
    )
    # where the counts came from: the workload's (Python's echo), or the environment or file's
    found = {k: v for k, v in args.defaults_used.items() if v["source"] != GIVEN}
    c = dataclasses.replace(c, defaults={**cli_defaults(c.defaults, args), **found})
    return deliver(Result(json.loads(c.to_json()), text_view(c, args.wide)), args)
