"""One helper for the tamper tests: what a fresh interpreter says when it loads from a data folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from wattgpu_lite import datafiles as D

ROOT = Path(__file__).resolve().parents[1]


def load_in_fresh_interpreter(data: Path, expression: str) -> str:
    """Run ``expression`` (wattgpu_lite imported as ``wl``) in a new interpreter reading ``data``:
    LOADED, or the DataFileError's message."""
    code = (f"import wattgpu_lite as wl\nfrom wattgpu_lite.errors import DataFileError\ntry:\n"
            f"    {expression}\n    print('LOADED')\nexcept DataFileError as e:\n"
            f"    print('DataFileError:', e)\n")  # fmt: skip
    env = {**os.environ, D.ENV_DATA: str(data), "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout.strip()
