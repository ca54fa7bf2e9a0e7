"""``evaluate``: held-out errors beside the paper's — WattGPU as published, or the hybrid.

python -m wattgpu_lite evaluate --target power|itl --strategy cv|logo|lolo|all [--json]
python -m wattgpu_lite evaluate --model hybrid --strategy logo|lolo|loso [--json]

The hybrid's figures come from its nested protocol (data/hybrid/nested_<strategy>.csv): pooled with
a GPU-bootstrap 90 % interval, per held-out group (MdAPE, 80/90 % coverage), and the paper's 7-GPU
reading of power beside our 8-GPU one; ``loso``: the backbone calibrated across harnesses, one
published source held out at a time (pooled, per source, per regime, the goals met).
"""

from __future__ import annotations

import argparse

import pandas as pd

from wattgpu_lite.face.cli import add_output_flags, command, deliver
from wattgpu_lite.face.cli.output import Result, text_table


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``evaluate``."""
    p = command(
        sub,
        "evaluate",
        "held-out MdAPE, r, Kendall tau and coverage",
        "wattgpu-lite evaluate --model hybrid --strategy lolo",
    )
    p.add_argument(
        "--model",
        choices=("wattgpu", "hybrid"),
        default="wattgpu",
        help="WattGPU as published (refitted here) or the hybrid (nested results) "
        "(default %(default)s)",
    )
    p.add_argument(
        "--target",
        choices=("power", "itl"),
        default=None,
        help="which target to evaluate (default: power for WattGPU, both for the hybrid)",
    )
    p.add_argument(
        "--strategy",
        choices=("cv", "logo", "lolo", "all", "loso"),
        default="logo",
        help="held-out groups: 5-fold by pair, one GPU, or one LLM at a time; loso: one published "
        "source of another harness at a time (--model hybrid) (default %(default)s)",
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="hide the progress bar on stderr (default: shown; --quiet hides it too)",
    )
    add_output_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``wl.evaluate`` (:mod:`wattgpu_lite.hybrid.report.evaluation`), the one place both use."""
    from wattgpu_lite.hybrid.report import evaluation

    if args.model == "hybrid":
        return run_hybrid(args, evaluation)
    table = evaluation.evaluate(
        args.target or "power", args.strategy, progress=not (args.no_progress or args.quiet)
    )
    # its to_document() is the JSON: wl.evaluate(...).to_json() is `evaluate --json`
    return deliver(Result(table.to_document(), text_table(table, args.wide)), args)


def run_hybrid(args: argparse.Namespace, evaluation) -> int:
    stacked = evaluation.evaluate(args.target, args.strategy, model="hybrid")
    tables = evaluation.hybrid_tables(args.strategy, args.target)
    return deliver(
        Result(stacked.to_document(), hybrid_text(tables, args.wide), pd.DataFrame(stacked)), args
    )


def hybrid_text(tables: dict[str, pd.DataFrame], wide: bool = False) -> str:
    """The tables under their titles, each source by a short label (the JSON keeps its title)."""
    titles = {
        "pooled": "pooled",
        "per_group": "per held-out group",
        "paper_reading": "beside the paper's GPUs",
        "per_source": "per held-out source (every constant refitted without it)",
        "per_regime": "per regime",
        "per_configuration": "per configuration (where the runs never cover one, the shipped ITL interval is built so)",
        "goals_per_source": "issue 28's goals met, per source (cells of >= 20 rows)",
        "goals_per_regime": "issue 28's goals met, per regime (cells of >= 20 rows)",
    }
    short = {name: _short_sources(t) for name, t in tables.items()}
    return "\n".join(f"== {titles[name]} ==\n{text_table(t, wide)}" for name, t in short.items())


def _short_sources(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its ``source`` titles as short, distinct labels (none: unchanged)."""
    from wattgpu_lite.hybrid.report.external_per_gpu import source_labels

    if "source" not in table:
        return table
    return table.assign(source=table["source"].map(source_labels(table["source"], width=56)))
