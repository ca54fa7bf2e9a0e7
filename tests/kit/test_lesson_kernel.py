"""The lesson checks nbval runs in each notebook's own kernel (tests/lesson_kernel.py, wired in
conftest.py): a tiny notebook passes, and fails on a raw column name in a figure, on a knob
exercise that changes nothing, and on a "write it yourself" solution that disagrees with the
library. One execution per notebook serves nbval and these checks. Both notebooks go through one
nbval process; each item's outcome is read from the run's JUnit report (tests/nbval_runs.py)."""

from __future__ import annotations

import json

import pytest
from nbval_runs import run_nbval

ITEMS = ("Cell 0", "Cell 1", "lesson checks")  # two cells and the lesson checks
CASES = {
    "clean": ("power against ITL", "2", "sum(x) / len(x)", []),
    "three-faults": ("server_high", "1", "sum(x) / 2", ["raw column names in figures: ['server_high']",
                                                        "exercise 1: KNOB did not change",
                                                        "differs from the library's"]),
}  # fmt: skip


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


@pytest.fixture(scope="module")
def lessons_run(tmp_path_factory):
    """nbval over both notebooks: the finished process and each item's outcome."""
    folder = tmp_path_factory.mktemp("lessons")
    paths = [folder / f"{case}.ipynb" for case in CASES]
    for path, (title, knob, student, _) in zip(paths, CASES.values(), strict=True):
        path.write_text(json.dumps(_notebook(title, knob, student)))
    return run_nbval(paths, folder / "report.xml")


@pytest.mark.parametrize("case", list(CASES))
def test_lesson_checks_run_in_the_nbval_kernel(lessons_run, case):
    done, outcomes = lessons_run
    mine = {item: text for (stem, item), text in outcomes.items() if stem == case}
    assert set(mine) == set(ITEMS), done.stdout[-3000:]  # two cells and the lesson checks
    failures = CASES[case][3]
    if not failures:
        assert all(text == "" for text in mine.values()), mine
    else:
        assert done.returncode == 1, done.stdout[-3000:]
        assert mine["Cell 0"] == mine["Cell 1"] == "", mine  # the cells run; the checks fail
        assert all(f in mine["lesson checks"] for f in failures), mine["lesson checks"][-3000:]
