"""``predict``: mean power, ITL and energy per token for one (LLM, GPU) at a load, with intervals.

python -m wattgpu_lite predict --llm NAME|config.json --gpu NAME|spec.json
       (--rate-qps QPS | --batch N | --scenario offline|server_low|server_high)
       [--name NAME] [--t-in N] [--t-out N] [--workload watt-counts] [--level 0.8] [--num-gpus 1] [--tp N] [--ep N]
       [--weights bf16|fp8|fp4|int4|...] [--no-correction] [--model-dir DIR]
       [--region CODE | --grid-gco2-per-kwh G] [--pue 1.58] [--price-per-kwh P]
       [--plot FILE.png] [--json]

--json prints exactly ``wl.predict(...).to_json()`` with the same arguments (``kind`` "predict"):
under ``wall`` the energy, CO2e and cost per request and per 1,000 generated tokens at the wall
(× PUE, at the region's or the given grid, at the price per kWh, its currency and region), each
default echoed under ``defaults``; the text view shows the same fields. ``--plot`` saves power, ITL and energy per token with their intervals.
Every argument of ``wl.predict`` has its flag: ``--num-gpus``, ``--tp``/``--ep`` (``parallel``),
``--weights``, ``--no-correction`` (``correction=False``: the physics backbone alone) and
``--model-dir DIR`` (``model=``: a hybrid saved by ``wl.HybridModel().fit(runs).save(DIR)``).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from wattgpu_lite.face.cli import (
    add_output_flags,
    add_request_flags,
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
    request_inputs,
    serving_inputs,
)
from wattgpu_lite.face.cli.output import Result, clean
from wattgpu_lite.face.cli.plot import add_plot_flag, save_plot
from wattgpu_lite.face.cli.text import escape_controls
from wattgpu_lite.face.cli.wall import add_wall_flags, cli_wall, wall_inputs

SCENARIOS = ("offline", "server_low", "server_high")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``predict``."""
    p = command(
        sub,
        "predict",
        "predicted power, ITL and energy per token, with intervals",
        "wattgpu-lite predict --llm meta-llama/Llama-3.1-8B-Instruct --gpu A30 --rate-qps 0.5",
    )
    add_request_flags(p)
    add_num_gpus_flag(p)
    add_layout_flags(p)
    add_weights_flag(p)
    add_serving_flags(p)
    p.add_argument(
        "--no-correction",
        dest="correction",
        action="store_false",
        help="the physics backbone alone, without the learned correction (sets "
        "correction to False; default: True, the calibrated hybrid)",
    )
    p.add_argument(
        "--model-dir",
        metavar="DIR",
        default=None,
        help="a hybrid model you fitted and saved, wl.HybridModel().fit(runs)"
        ".save(DIR) (default: the shipped model)",
    )
    add_wall_flags(p)
    add_plot_flag(p, "power, ITL and energy per token with their intervals")
    add_output_flags(p)
    p.set_defaults(func=run)


def text_view(p, w: dict | None = None) -> str:
    """The prediction as readable lines: inputs, each quantity with its interval, notes."""
    i = p.inputs
    load = f"rate {i.rate_qps:g} req/s" if i.rate_qps is not None else f"batch {i.batch:g}"
    llm, gpu = escape_controls(i.llm), escape_controls(i.gpu)
    lines = [
        f"{llm} on {gpu}: {load}, {i.t_in} prompt / {i.t_out} generated tokens",
        f"model {p.model}; {i.level:.0%} intervals, basis {p.power_w_interval.basis!r}",
    ]
    for q, v, lo, hi in p.rows():
        lines.append(f"  {q:<20} {v:>11.4g}   [{lo:.4g}, {hi:.4g}]")
    lines += [
        f"  in_flight            {p.in_flight:>11.4g}",
        f"  capacity_qps         {p.capacity_qps:>11.4g}",
        f"  max_batch            {p.max_batch:>11d}",
        f"  nearest scenario     {p.scenario:>11}",
    ]
    lines += wall_lines(w) if w else []
    lines += [f"note: {escape_controls(n)}" for n in p.notes]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from wattgpu_lite.hybrid.predict.model import HybridState
    from wattgpu_lite.selection.answers import predict

    model = HybridState.load(args.model_dir) if args.model_dir is not None else None
    p = predict(
        args.llm,
        args.gpu,
        **request_inputs(args),
        correction=args.correction,
        name=args.name,
        model=model,
        **serving_inputs(args),
        **wall_inputs(args),
    )
    p = replace(p, wall=cli_wall(p.wall, args), defaults=cli_defaults(p.defaults, args))
    if args.plot:
        from wattgpu_lite.face.plots_explain import prediction_bars

        save_plot(lambda: prediction_bars(p), args.plot)
    return deliver(Result(clean(p.to_dict()), text_view(p, p.wall)), args)
