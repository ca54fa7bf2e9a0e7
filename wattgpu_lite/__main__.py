"""``python -m wattgpu_lite``: the command line (:mod:`wattgpu_lite.face.cli.main`)."""

from __future__ import annotations

import sys

from wattgpu_lite.face.cli.main import COMMAND_MODULES, build_parser, main

__all__ = ["COMMAND_MODULES", "build_parser", "main"]

if __name__ == "__main__":
    sys.exit(main())
