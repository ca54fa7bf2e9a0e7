"""One nbval process over small generated notebooks, and each item's own outcome (for the tests of
the notebook gate itself: tests/kit/test_nbval_gate.py, tests/kit/test_lesson_kernel.py).

Several notebooks go through one process (a kernel each, one pytest start), so a test reads the
outcome of its own cell from the run's JUnit report rather than from the return code."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_nbval(notebooks: list[Path], report: Path, timeout: float = 300):
    """(the finished process, {(notebook stem, item name): '' if it passed, else its failure or
    error text}) of nbval with the kit's sanitizer and conftest over ``notebooks``."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "--nbval", "--nbval-current-env",
           "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"),
           "-o", "junit_family=xunit1", f"--junitxml={report}", *map(str, notebooks)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        bad = [e for e in case if e.tag in ("failure", "error")]
        stem = Path(case.get("file") or "").stem  # xunit1 names each item's notebook
        text = "".join((e.get("message") or "") + (e.text or "") for e in bad)
        outcomes[stem, case.get("name")] = text
    return done, outcomes
