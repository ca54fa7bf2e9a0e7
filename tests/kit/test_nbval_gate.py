"""The notebook gate itself: nbval with our sanitizer must fail on a changed number.

A notebook stores ``0.123456``; re-running it prints either the same value to 3 significant figures
(must pass) or a value whose third figure changed (must fail). This is the check that makes a changed
number in any committed notebook break `make test`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _notebook(code: str, stored_text: str) -> dict:
    cell = {
        "cell_type": "code",
        "execution_count": 1,
        "metadata": {},
        "source": code,
        "outputs": [{"name": "stdout", "output_type": "stream", "text": stored_text}],
    }
    return {
        "cells": [cell],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _run_nbval(path: Path) -> int:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "--nbval", "--nbval-current-env"]
    cmd += ["--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"), str(path)]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120).returncode


@pytest.mark.parametrize(
    ("printed", "expected_rc"),
    [("0.1234", 0), ("0.1249", 1), ("1.23e-01", 0)],
)
def test_changed_third_figure_fails_and_noise_passes(tmp_path, printed, expected_rc):
    nb = tmp_path / "gate.ipynb"
    nb.write_text(json.dumps(_notebook(f"print({printed!r})", "0.123456\n")))
    assert _run_nbval(nb) == expected_rc
