"""Notebooks 01 and 02 teach: objectives, prerequisites, time, links, a summary, 3-5 questions, and
"Try this" exercises whose solutions (in collapsed <details> blocks) are run here once each and must
change the output (each solution computes ``before`` and ``after``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
OWN = {"01_energy_model_derivation.ipynb": (4, "02_traffic_breakdown.ipynb"),
       "02_traffic_breakdown.ipynb": (5, "03_dataset_and_features.ipynb")}  # fmt: skip


def _markdown(name: str) -> list[str]:
    cells = json.loads((NOTEBOOKS / name).read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


def _solutions(name: str) -> list[str]:
    return re.findall(r"<details>.*?```python\n(.*?)```.*?</details>", _markdown(name)[-1], re.S)


@pytest.mark.parametrize("name", OWN)
def test_header_says_what_who_how_long_and_where(name):
    head = _markdown(name)[0]
    for part in ("What you will learn", "Prerequisites", "Estimated time", "Previous / next",
                 "The code of this notebook lives in `wattgpu_lite/energy/`"):  # fmt: skip
        assert part in head, part
    assert OWN[name][1] in head and len(re.findall(r"^- ", head, re.M)) >= 3  # objectives


@pytest.mark.parametrize("name", OWN)
def test_ends_with_questions_exercises_and_solutions(name):
    last = _markdown(name)[-1]
    questions = last.split("## Check your understanding")[1].split("## Try this")[0]
    assert 3 <= len(re.findall(r"^\d+\. ", questions, re.M)) <= 5
    exercises = last.split("## Try this")[1].split("<details>")[0]
    assert len(re.findall(r"^\d+\. ", exercises, re.M)) == OWN[name][0] == len(_solutions(name))
    cells = json.loads((NOTEBOOKS / name).read_text())["cells"]
    outputs = json.dumps([c.get("outputs", []) for c in cells])
    assert "**Summary.**" in outputs  # generated from the outputs, not typed in


def _differs(before, after) -> bool:
    if isinstance(before, dict):
        return before.keys() != after.keys() or any(_differs(before[k], after[k]) for k in before)
    if isinstance(before, pd.Series | pd.DataFrame):
        return not before.equals(after)
    if isinstance(before, np.ndarray | float | int):
        return not np.allclose(before, after, equal_nan=True)
    return before != after


@pytest.mark.parametrize(("name", "number"), [(n, i) for n, (k, _) in OWN.items()
                                              for i in range(1, k + 1)])  # fmt: skip
def test_each_try_this_changes_the_output(name, number):
    namespace: dict = {}
    exec(_solutions(name)[number - 1], namespace)  # noqa: S102 - the notebook's own solution
    assert _differs(namespace["before"], namespace["after"])
