"""``evaluate``: WattGPU's cross-validated errors beside the paper's, for one target and strategy.

python -m wattgpu_lite evaluate --target power|itl --strategy cv|logo|lolo|all [--json]
"""

from __future__ import annotations

import argparse

from wattgpu_lite.face.cli import add_json_flag, emit


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``evaluate``."""
    p = sub.add_parser("evaluate", help="WattGPU's MdAPE, r and Kendall tau beside the paper's")
    p.add_argument(
        "--target",
        choices=("power", "itl"),
        default="power",
        help="power (mean GPU power) or itl (inter-token latency); default power",
    )
    p.add_argument(
        "--strategy",
        choices=("cv", "logo", "lolo", "all"),
        default="logo",
        help="cv (5-fold), logo (leave one GPU out, default), lolo (leave one LLM out) or all",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar (stderr)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from wattgpu_lite.wattgpu.evaluation import evaluate

    table = evaluate(args.target, args.strategy, progress=not args.no_progress)
    emit(table if args.json else table.round(3), args.json)
    return 0
