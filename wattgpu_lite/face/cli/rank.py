"""``rank``: which GPU serves an LLM within an ITL SLA for the least energy.

python -m wattgpu_lite rank --llm meta-llama/Llama-3.1-8B-Instruct --scenario server_low \
    --itl-sla-ms 30 [--gpus A30,L4,...] [--source predicted|measured|logo|hybrid] [--json]
"""

from __future__ import annotations

import argparse

from wattgpu_lite.face.cli import add_json_flag, emit, resolve_llm

# columns of the readable table (--json prints every column)
TABLE = ["rank", "gpu", "fits", "meets_sla", "power_w", "itl_ms", "energy_per_request_j",
         "energy_per_1k_tokens_j", "kg_co2e_per_mtok", "cost_per_mtok", "why_not"]  # fmt: skip


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``rank``."""
    p = sub.add_parser("rank", help="rank GPUs for an LLM under an ITL SLA, by energy")
    p.add_argument(
        "--llm",
        required=True,
        help="catalog name (see `llms`) or path to a Hugging Face config.json",
    )
    load = p.add_mutually_exclusive_group(required=True)
    load.add_argument(
        "--scenario",
        choices=("offline", "server_low", "server_high"),
        help="a Watt Counts scenario (offline, server_low, server_high)",
    )
    load.add_argument(
        "--rate", type=float, metavar="QPS", help="Poisson request rate in req/s, from 1e-6 to 1000"
    )
    p.add_argument(
        "--itl-sla-ms", type=float, required=True, help="max inter-token latency in ms (e.g. 30)"
    )
    p.add_argument("--gpus", help="comma-separated candidate GPU names (default: see --source)")
    p.add_argument(
        "--source",
        default="predicted",
        choices=("predicted", "measured", "logo", "hybrid"),
        help="where power and ITL come from: predicted (default), measured, logo or hybrid",
    )
    p.add_argument(
        "--grid-gco2-per-kwh",
        type=float,
        help="grid intensity in gCO2e/kWh, 0 to 5000 (default: Ember)",
    )
    p.add_argument(
        "--price-per-kwh",
        type=float,
        help="electricity price per kWh, 0 to 100 (default: EIA, USD)",
    )
    add_json_flag(p)
    p.set_defaults(func=run_rank)


def run_rank(args: argparse.Namespace) -> int:
    from wattgpu_lite.selection.rank import rank_gpus

    extra = {"grid_gco2_per_kwh": args.grid_gco2_per_kwh, "price_per_kwh": args.price_per_kwh}
    gpus = None if args.gpus is None else [g.strip() for g in args.gpus.split(",") if g.strip()]
    table = rank_gpus(
        resolve_llm(args.llm), args.scenario, rate_qps=args.rate, itl_sla_ms=args.itl_sla_ms,
        candidates=gpus, source=args.source, **{k: v for k, v in extra.items() if v is not None},
    )  # fmt: skip
    emit(table if args.json else table[TABLE].round(3), args.json)
    return 0
