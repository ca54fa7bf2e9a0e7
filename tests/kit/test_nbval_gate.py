"""The notebook gate itself: nbval with our sanitizer must fail on a changed number.

A notebook stores ``0.123456``; re-running it prints either the same value to 3 significant figures
(must pass) or a value whose third figure changed (must fail). This is the check that makes a changed
number in any committed notebook break `make test`. The three cases are three cells of one
notebook, run by one nbval process (one kernel); each cell's own outcome is read from the run's
JUnit report (tests/nbval_runs.py).
"""

from __future__ import annotations

import json

import pytest
from nbval_runs import run_nbval

CASES = [("0.1234", True), ("0.1249", False), ("1.23e-01", True)]  # printed, nbval passes


def _notebook(printed: list[str], stored_text: str) -> dict:
    cells = [{"cell_type": "code", "execution_count": k + 1, "metadata": {},
              "source": f"print({p!r})",
              "outputs": [{"name": "stdout", "output_type": "stream", "text": stored_text}]}
             for k, p in enumerate(printed)]  # fmt: skip
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@pytest.fixture(scope="module")
def gate(tmp_path_factory):
    """nbval's return code and per-cell outcomes on one notebook holding the three cases."""
    folder = tmp_path_factory.mktemp("gate")
    nb = folder / "gate.ipynb"
    nb.write_text(json.dumps(_notebook([p for p, _ in CASES], "0.123456\n")))
    done, outcomes = run_nbval([nb], folder / "report.xml", timeout=120)
    return done.returncode, outcomes


@pytest.mark.parametrize(("cell", "printed", "passes"),
                         [(k, p, ok) for k, (p, ok) in enumerate(CASES)])  # fmt: skip
def test_changed_third_figure_fails_and_noise_passes(gate, cell, printed, passes):
    rc, outcomes = gate
    assert rc == 1  # the changed third figure fails the run
    failure = outcomes["gate", f"Cell {cell}"]
    assert (failure == "") == passes, (printed, failure)
    assert passes or "Cell outputs differ" in failure, failure  # a mismatch, not a crash
