"""``evaluate``: held-out errors beside the paper's — WattGPU as published, or the hybrid.

python -m wattgpu_lite evaluate --target power|itl --strategy cv|logo|lolo|all [--json]
python -m wattgpu_lite evaluate --model hybrid --strategy logo|lolo [--json]

The hybrid's figures come from its nested protocol (data/hybrid/nested_<strategy>.csv): pooled with
a GPU-bootstrap 90 % interval, per held-out group (MdAPE, 80/90 % coverage), and the paper's 7-GPU
reading of power beside our 8-GPU one.
"""

from __future__ import annotations

import argparse

import pandas as pd

from wattgpu_lite.face.cli import add_output_flags, command, deliver
from wattgpu_lite.face.cli.output import Result, document, records, table_document, text_table


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``evaluate``."""
    p = command(sub, "evaluate", "held-out MdAPE, r, Kendall tau and coverage",
                "wattgpu-lite evaluate --model hybrid --strategy lolo")  # fmt: skip
    p.add_argument("--model", choices=("wattgpu", "hybrid"), default="wattgpu",
                   help="WattGPU as published (refitted here) or the hybrid (nested results) "
                        "(default %(default)s)")  # fmt: skip
    p.add_argument("--target", choices=("power", "itl"), default="power",
                   help="WattGPU model: which target to evaluate (default %(default)s)")  # fmt: skip
    p.add_argument("--strategy", choices=("cv", "logo", "lolo", "all"), default="logo",
                   help="held-out groups: 5-fold by pair, one GPU, or one LLM at a time "
                        "(default %(default)s)")  # fmt: skip
    p.add_argument("--no-progress", action="store_true",
                   help="hide the progress bar on stderr (default: shown)")  # fmt: skip
    add_output_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.model == "hybrid":
        return run_hybrid(args)
    from wattgpu_lite.wattgpu.evaluation import evaluate

    table = evaluate(args.target, args.strategy, progress=not args.no_progress)
    doc = table_document("evaluate", table, model="wattgpu", target=args.target,
                         strategy=args.strategy)  # fmt: skip
    return deliver(Result(doc, text_table(table, args.wide)), args)


def run_hybrid(args: argparse.Namespace) -> int:
    from wattgpu_lite.errors import InvalidInputError
    from wattgpu_lite.hybrid.report import results as report

    if args.strategy not in ("logo", "lolo"):
        raise InvalidInputError("--model hybrid is evaluated by --strategy logo or lolo (nested)")
    res = report.shipped(args.strategy)
    tables = {"pooled": report.pooled(res), "per_group": report.per_group(res),
              "paper_reading": report.paper_reading(res)}  # fmt: skip
    doc = document("evaluate", {"model": "hybrid", "strategy": args.strategy,
                                **{name: records(t) for name, t in tables.items()}})  # fmt: skip
    return deliver(Result(doc, hybrid_text(tables, args.wide), stacked(tables)), args)


def hybrid_text(tables: dict[str, pd.DataFrame], wide: bool = False) -> str:
    """The three tables under their titles."""
    titles = {"pooled": "pooled", "per_group": "per held-out group",
              "paper_reading": "beside the paper's GPUs"}  # fmt: skip
    return "\n".join(f"== {titles[name]} ==\n{text_table(t, wide)}" for name, t in tables.items())


def stacked(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The three tables as one, for a file: a ``table`` column names each row's table."""
    return pd.concat([t.assign(table=name) for name, t in tables.items()], ignore_index=True)
