"""The command line: ``python -m wattgpu_lite COMMAND [--json]``.

Each command lives in ``wattgpu_lite/face/cli/<command>.py`` and exposes ``add_parser(subparsers)``, which
registers its arguments and sets ``func`` (``args -> int`` exit code). Errors of the kit are printed as
one line on stderr with exit code 2; no traceback for a user's mistake.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from wattgpu_lite.errors import WattGPUError

# one module per command group, in the order `--help` lists them
COMMAND_MODULES = ("catalogs", "rank", "estimate", "predict", "evaluate")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m wattgpu_lite",
        description="Energy and latency of LLM inference on GPUs (WattGPU + Tokens-to-Watt-hours).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"wattgpu_lite.face.cli.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except WattGPUError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
