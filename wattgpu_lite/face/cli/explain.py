"""``explain``: one prediction taken apart — bytes and FLOPs per step, the step-time terms, the bound
that binds, idle and busy power, the correction and why, the intervals; energy and CO2e at the wall.

python -m wattgpu_lite explain --llm NAME|config.json --gpu NAME|spec.json
       (--rate-qps QPS | --batch N | --scenario offline|server_low|server_high)
       [--name NAME] [--t-in N] [--t-out N] [--workload watt-counts] [--num-gpus 1 | --tp N --ep N] [--weights FORMAT]
       [--region WORLD|US|FR|... | --grid-gco2-per-kwh G] [--pue 1.58] [--price-per-kwh P]
       [--plot FILE.png] [--json]

--json prints exactly ``wl.explain(...).to_json()`` with the same arguments (``kind`` "explain"):
the prediction, the wall accounting, the defaults, the parts under ``rows``; ``--output
FILE.csv`` saves the parts, one per row.
"""

from __future__ import annotations

import argparse
import math
import textwrap
from dataclasses import replace

from wattgpu_lite.face.cli import (
    add_output_flags,
    add_request_flags,
    cli_defaults,
    command,
    deliver,
)
from wattgpu_lite.face.cli.layout import (
    add_layout_flags,
    add_num_gpus_flag,
    add_serving_flags,
    add_weights_flag,
    request_inputs,
    serving_inputs,
)
from wattgpu_lite.face.cli.output import TEXT_DIGITS, Result, clean, round_sig
from wattgpu_lite.face.cli.plot import add_plot_flag, save_plot
from wattgpu_lite.face.cli.text import escape_controls
from wattgpu_lite.face.cli.wall import add_wall_flags, cli_wall, wall_inputs

SCENARIOS = ("offline", "server_low", "server_high")
WIDTH = 100  # the text view's widest line
NAME = 32  # the part names' column
# unit -> (scale, shown unit) ladders for readable numbers
LADDERS = {
    "B": ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B")),
    "FLOP": ((1e12, "TFLOP"), (1e9, "GFLOP"), (1e6, "MFLOP"), (1.0, "FLOP")),
    "s": ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")),
    "J": ((1e6, "MJ"), (1e3, "kJ"), (1.0, "J"), (1e-3, "mJ")),
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``explain``."""
    p = command(
        sub,
        "explain",
        "a prediction taken apart: the terms it is made of, and why",
        "wattgpu-lite explain --llm meta-llama/Llama-3.1-8B-Instruct --gpu 'H100 NVL' "
        "--rate-qps 0.5 --region FR",
    )
    add_request_flags(p)
    add_num_gpus_flag(p)
    add_layout_flags(p)
    add_weights_flag(p)
    add_serving_flags(p)
    add_wall_flags(p)
    add_plot_flag(p, "the waterfall of the prediction")
    add_output_flags(p)
    p.set_defaults(func=run)


def _human(value: float, unit: str) -> str:
    """``value`` in ``unit`` at TEXT_DIGITS significant figures, scaled to a readable unit."""
    if not math.isfinite(value):
        return f"{value} {unit}"
    for scale, shown in LADDERS.get(unit, ()):
        if abs(value) >= scale or scale == LADDERS[unit][-1][0]:
            return f"{round_sig(value / scale, TEXT_DIGITS):g} {shown}"
    return f"{round_sig(value, TEXT_DIGITS):g} {unit}".rstrip()


def wall_lines(w: dict) -> list[str]:
    """The wall accounting as text lines ≤ WIDTH (``explain`` and ``predict``)."""
    lines = _wrap(
        f"at the wall: PUE {w['pue']:g}; grid {w['grid_gco2_per_kwh']:g} gCO2e/kWh "
        f"({escape_controls(w['grid_source'])})"
    )
    lines += _wrap(
        f"  energy per request {_human(w['wall_energy_per_request_j'], 'J')}, per "
        f"1,000 tokens {_human(w['wall_energy_per_1k_tokens_j'], 'J')}",
        "    ",
    )
    lines += _wrap(
        f"  CO2e per request {_sig(w['g_co2e_per_request'])} g, per 1,000 tokens "
        f"{_sig(w['g_co2e_per_1k_tokens'])} g",
        "    ",
    )
    money = f" {w.get('currency', 'USD')}"
    lines += _wrap(
        f"  electricity at {_sig(w['price_per_kwh'])}{money}/kWh: per request "
        f"{_sig(w['wall_cost_per_request'])}, per 1,000 tokens "
        f"{_sig(w['wall_cost_per_1k_tokens'])}, per million tokens "
        f"{_sig(w['wall_cost_per_mtok'])}{money}",
        "    ",
    )
    if w.get("price_note"):
        lines += _wrap(f"  note: {escape_controls(w['price_note'])}", "    ")
    return lines


def _sig(value: float) -> str:
    return f"{round_sig(value, TEXT_DIGITS):g}"


def _value(value: float, unit: str) -> str:
    if unit in LADDERS:
        return _human(value, unit)
    return f"{round_sig(value, TEXT_DIGITS):g} {unit}".rstrip()


def _wrap(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent) or [""]


def _part_lines(part) -> list[str]:
    """One part as lines ≤ WIDTH: mark, name, value, then its note (and interval), wrapped."""
    mark = "+" if part.in_sum else " "
    note = escape_controls(part.note)
    if part.lo is not None:
        note = f"[{_value(part.lo, part.unit)}, {_value(part.hi, part.unit)}] {note}"
    head = f" {mark} {escape_controls(part.name):<{NAME}} {_value(part.value, part.unit):>12}  "
    room = max(WIDTH - len(head), 20)
    chunks = textwrap.wrap(note, room) or [""]
    return [head + chunks[0]] + [" " * len(head) + c for c in chunks[1:]]


def text_view(x, w: dict) -> str:
    """The parts grouped, one per line, each ≤ 100 columns; then the wall accounting."""
    i, p = x.inputs, x.prediction
    load = f"rate {i.rate_qps:g} req/s" if i.rate_qps is not None else f"batch {i.batch:g}"
    layout = f"{i.num_gpus} GPU" + ("s" if i.num_gpus > 1 else "")
    if i.tp > 1 or i.ep > 1:
        layout += f" (tp {i.tp}, ep {i.ep})"
    lines = _wrap(
        f"{escape_controls(i.llm)} on {escape_controls(i.gpu)}: {load}, {i.t_in} "
        f"prompt / {i.t_out} generated tokens, {layout}, {i.weights}"
    )
    lines += _wrap(f"model {p.model}, basis {x.basis!r}; the step is bound by {x.binding}")
    group = None
    for part in x.parts:
        if part.group != group:
            group = part.group
            lines.append(f"{group}:")
        lines += _part_lines(part)
    lines.append("  (+: the step-time terms that add up to the backbone step time)")
    lines += _wrap(f"correction: {escape_controls(x.corrections['power'].why)}")
    lines += wall_lines(w)
    for n in p.notes:
        lines += _wrap(f"note: {escape_controls(n)}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from wattgpu_lite.selection.answers import explain

    x = explain(
        args.llm,
        args.gpu,
        **request_inputs(args),
        name=args.name,
        **serving_inputs(args),
        **wall_inputs(args),
    )
    p = x.prediction
    p = replace(p, wall=cli_wall(p.wall, args), defaults=cli_defaults(p.defaults, args))
    x = replace(x, prediction=p)
    if args.plot:
        from wattgpu_lite.face.plots_explain import explain_waterfall

        save_plot(lambda: explain_waterfall(x), args.plot)
    text = "" if args.json else text_view(x, x.wall)
    return deliver(Result(clean(x.to_dict()), text), args)
