"""The lesson checks nbval runs in each notebook's own kernel (tests/lesson_kernel.py, wired in
conftest.py): a tiny notebook passes, and fails on a raw column name in a figure, on a knob
exercise that changes nothing, and on a "write it yourself" solution that disagrees with the
library. One execution per notebook serves nbval and these checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _notebook(title: str, knob_value: str, student: str) -> dict:
    code = ["import io\nimport matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
            "import numpy as np\nKNOB = 1",
            f"fig, ax = plt.subplots()\nax.set_title({title!r})\nfig.savefig(io.BytesIO())"]  # fmt: skip
    solutions = (f"**1. Turn it.** Set KNOB.\n\n<details><summary>Solution</summary>\n\n```python\n"
                 f"KNOB = {knob_value}\n```\n\n</details>\n\n**2. Write it.** A mean.\n\n"
                 f"<details><summary>Solution</summary>\n\n```python\ndef my_mean(x):\n"
                 f"    return {student}\n```\n\n</details>\n")  # fmt: skip
    checks = {"1": "KNOB", "2": {"student": "my_mean([1.0, 2.0, 6.0])",
                                 "library": "np.mean([1.0, 2.0, 6.0])"}}  # fmt: skip
    cells = [{"cell_type": "code", "execution_count": k + 1, "metadata": {}, "source": c,
              "outputs": []} for k, c in enumerate(code)]  # fmt: skip
    cells.append({"cell_type": "markdown", "metadata": {"wattgpu_lite": {"checks": checks}},
                  "source": "## Try this\n\n" + solutions})  # fmt: skip
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}}}  # fmt: skip


def _nbval(path: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "--nbval", "--nbval-current-env",
           "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"), str(path)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)


@pytest.mark.parametrize(
    ("title", "knob", "student", "failures"),
    [("power against ITL", "2", "sum(x) / len(x)", []),
     ("server_high", "1", "sum(x) / 2", ["raw column names in figures: ['server_high']",
                                         "exercise 1: KNOB did not change",
                                         "differs from the library's"])],
    ids=["clean", "three-faults"],
)  # fmt: skip
def test_lesson_checks_run_in_the_nbval_kernel(tmp_path, title, knob, student, failures):
    nb = tmp_path / "lesson.ipynb"
    nb.write_text(json.dumps(_notebook(title, knob, student)))
    done = _nbval(nb)
    if not failures:
        assert done.returncode == 0, done.stdout[-3000:]
        assert "3 passed" in done.stdout  # two cells and the lesson checks
    else:
        assert done.returncode == 1, done.stdout[-3000:]
        assert all(f in done.stdout for f in failures), done.stdout[-3000:]
