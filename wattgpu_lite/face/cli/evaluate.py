"""``evaluate``: held-out errors beside the paper's — WattGPU as published, or the hybrid.

python -m wattgpu_lite evaluate --target power|itl --strategy cv|logo|lolo|all [--json]
python -m wattgpu_lite evaluate --model hybrid --strategy logo|lolo [--json]

The hybrid's figures come from its nested protocol (data/hybrid/nested_<strategy>.csv): pooled with
a GPU-bootstrap 90 % interval, per held-out group (MdAPE, 80/90 % coverage), and the paper's 7-GPU
reading of power beside our 8-GPU one.
"""

from __future__ import annotations

import argparse
import json

from wattgpu_lite.face.cli import add_json_flag, emit


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``evaluate``."""
    p = sub.add_parser("evaluate", help="held-out MdAPE, r, Kendall tau and coverage")
    p.add_argument(
        "--model",
        choices=("wattgpu", "hybrid"),
        default="wattgpu",
        help="WattGPU as published (refitted here) or the hybrid (nested results)",
    )
    p.add_argument(
        "--target",
        choices=("power", "itl"),
        default="power",
        help="WattGPU model: which target to evaluate",
    )
    p.add_argument(
        "--strategy",
        choices=("cv", "logo", "lolo", "all"),
        default="logo",
        help="held-out groups: 5-fold by pair, one GPU, or one LLM at a time",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar (stderr)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.model == "hybrid":
        return run_hybrid(args)
    from wattgpu_lite.wattgpu.evaluation import evaluate

    table = evaluate(args.target, args.strategy, progress=not args.no_progress)
    emit(table if args.json else table.round(3), args.json)
    return 0


def run_hybrid(args: argparse.Namespace) -> int:
    from wattgpu_lite.errors import InvalidInputError
    from wattgpu_lite.hybrid import report

    if args.strategy not in ("logo", "lolo"):
        raise InvalidInputError("--model hybrid is evaluated by --strategy logo or lolo (nested)")
    res = report.shipped(args.strategy)
    pooled, groups = report.pooled(res), report.per_group(res)
    paper = report.paper_reading(res)
    if args.json:
        doc = {"schema_version": 1, "model": "hybrid", "strategy": args.strategy,
               "pooled": _records(pooled), "per_group": _records(groups),
               "paper_reading": _records(paper)}  # fmt: skip
        print(json.dumps(doc, indent=2, allow_nan=False))
        return 0
    for title, table in (("pooled", pooled), ("per held-out group", groups),
                         ("beside the paper's GPUs", paper)):  # fmt: skip
        print(f"== {title} ==")
        emit(table.round(3), False)
    return 0


def _records(table) -> list[dict]:
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            for row in table.to_dict(orient="records")]  # fmt: skip
