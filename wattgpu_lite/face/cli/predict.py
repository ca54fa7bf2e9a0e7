"""``predict``: mean power, ITL and energy per token for one (LLM, GPU) at a load, with intervals.

python -m wattgpu_lite predict --llm NAME|config.json --gpu NAME|spec.json
       (--scenario offline|server_low|server_high | --rate QPS | --batch N)
       [--level 0.8] [--config hybrid|paper] [--json]

The default configuration (hybrid) gives split-conformal [lo, hi] bounds at --level and takes any
load; --config paper is WattGPU exactly as published (three scenarios, point predictions).
"""

from __future__ import annotations

import argparse
import warnings

from wattgpu_lite.face.cli import add_json_flag, emit

SCENARIOS = ("offline", "server_low", "server_high")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``predict``."""
    p = sub.add_parser("predict", help="predicted power, ITL and energy per token (with intervals)")
    p.add_argument(
        "--llm",
        required=True,
        help="catalog name (see `llms`) or path to a Hugging Face config.json",
    )
    p.add_argument(
        "--gpu", required=True, help="catalog name (see `gpus`) or path to a GPU spec .json"
    )
    load = p.add_mutually_exclusive_group(required=True)
    load.add_argument(
        "--scenario",
        choices=SCENARIOS,
        help="a Watt Counts scenario (offline, server_low, server_high)",
    )
    load.add_argument(
        "--rate", type=float, help="Poisson arrival rate in requests/s, from 1e-6 to 1000"
    )
    load.add_argument("--batch", type=float, help="concurrent sequences (a fixed batch), 1 to 4096")
    p.add_argument(
        "--level", type=float, default=0.8, help="interval coverage, 0.5 to 0.999 (default 0.8)"
    )
    p.add_argument(
        "--config",
        choices=("hybrid", "paper"),
        default="hybrid",
        help="hybrid (default: any load, with intervals) or paper (WattGPU as published)",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from wattgpu_lite.hybrid.api import predict

    load = {"rate": args.rate, "batch": args.batch, "level": args.level, "config": args.config}
    with warnings.catch_warnings(record=True):  # extrapolation notes are in the result itself
        warnings.simplefilter("always")
        result = predict(args.llm, args.gpu, args.scenario, **load)
    if not args.json:
        result = {**result, "itl_ms": result["itl_s"] * 1e3}
        result = {k: f"{v:.4g}" if isinstance(v, float) else v for k, v in result.items()}
    emit(result, args.json)
    return 0
