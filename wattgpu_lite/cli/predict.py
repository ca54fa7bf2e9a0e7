"""``predict``: WattGPU's mean power, ITL and energy per token for one (LLM, GPU, scenario).

python -m wattgpu_lite predict --llm NAME|config.json --gpu NAME|spec.json
                               --scenario offline|server_low|server_high [--json]
"""

from __future__ import annotations

import argparse

from . import add_json_flag, emit

SCENARIOS = ("offline", "server_low", "server_high")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``predict``."""
    p = sub.add_parser("predict", help="WattGPU's predicted power, ITL and energy per token")
    p.add_argument("--llm", required=True, help="catalog name or path to a config.json")
    p.add_argument("--gpu", required=True, help="catalog name or path to a spec .json")
    p.add_argument("--scenario", required=True, choices=SCENARIOS)
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..predictors import WattGPU

    result = WattGPU.pretrained().predict(args.llm, args.gpu, args.scenario)
    if not args.json:
        result = {**result, "itl_ms": round(result["itl_s"] * 1e3, 4)}
        result = {k: round(v, 6) if isinstance(v, float) else v for k, v in result.items()}
    emit(result, args.json)
    return 0
