"""Notebooks 01, 01b, 02 and the advanced A1 as lessons, beyond what tests/kit/test_lessons.py checks of every notebook (the
layout, each "Try this" run against the notebook's own state, the numbers in prose): the header
points at the energy chapter and the next notebook, the exercises the course page counts on are all
there, and each one turns a knob the notebook defines — an UPPER_CASE name assigned in one of its
code cells — instead of rebuilding the computation on the side (the "write it yourself"
exercises are graded cells, checked by tests/kit/test_student_edition.py)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import lessons
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
# "Try this" count and next notebook (their "write it yourself" exercises are graded cells now)
OWN = {"01_energy_model_derivation.ipynb": (2, "01b_physical_model.ipynb"),
       "01b_physical_model.ipynb": (2, "02_traffic_breakdown.ipynb"),
       "02_traffic_breakdown.ipynb": (2, "03_dataset_and_features.ipynb"),
       "A1_moe_fp8_several_gpus.ipynb": (4, "03_dataset_and_features.ipynb")}  # fmt: skip


def _notebook(name: str) -> dict:
    return json.loads((NOTEBOOKS / name).read_text())


def _knobs(nb: dict) -> set[str]:
    """UPPER_CASE names assigned at the top level of the notebook's code cells."""
    names = set()
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        code = "\n".join(x for x in "".join(cell["source"]).splitlines() if not x.startswith("%"))
        for node in ast.parse(code).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return {n for n in names if n.isupper()}


def _rebound(code: str) -> set[str]:
    """The names the first statement of a solution assigns, imports aside (its knob)."""
    body = [s for s in ast.parse(code).body if not isinstance(s, ast.Import | ast.ImportFrom)]
    first = body[0]
    assert isinstance(first, ast.Assign), "a solution starts by rebinding its knob"
    return {n.id for t in first.targets for n in ast.walk(t) if isinstance(n, ast.Name)}


@pytest.mark.parametrize("name", OWN)
def test_header_points_at_the_energy_code_and_the_next_notebook(name):
    head = lessons.markdown(_notebook(name))[0]
    assert "lives in `wattgpu_lite/energy/`" in head
    assert re.search(rf"\*\*Next:\*\* \[[^\]]+\]\({re.escape(OWN[name][1])}\)", head)


@pytest.mark.parametrize("name", OWN)
def test_each_try_this_turns_a_knob_of_the_notebook(name):
    nb = _notebook(name)
    found, knobs = lessons.exercises(nb), _knobs(nb)
    assert [e.number for e in found] == list(range(1, OWN[name][0] + 1))
    for e in (e for e in found if not e.writes_it_yourself):  # those write a function instead
        rebound = _rebound(e.code)
        assert rebound and all(n.isupper() for n in rebound), (e.number, rebound)
        assert rebound <= knobs, f"exercise {e.number} rebinds {rebound - knobs}, not a knob"


def test_knob_reader_sees_only_top_level_upper_case_assignments():
    nb = {"cells": [{"cell_type": "code", "source": ["%matplotlib inline\nA_B, c = 1, 2\n"
                                                     "for X in range(2):\n    Y = X\n"]}]}  # fmt: skip
    assert _knobs(nb) == {"A_B"}
    with pytest.raises(AssertionError):
        _rebound("import math\nprint(math.pi)\nA = 2")
    assert _rebound("import math\nA, B = 1, 2\nprint(A)") == {"A", "B"}


def test_the_advanced_notebook_says_it_is_optional_and_what_it_extends():
    """An advanced notebook: its title is a question, it says it is optional
    and which core notebooks it extends, and 02 points at it."""
    head = lessons.markdown(_notebook("A1_moe_fp8_several_gpus.ipynb"))[0]
    title = head.splitlines()[0]
    assert title.startswith("# A1 · Advanced: ") and title.endswith("?")
    assert (
        "**Optional.**" in head
        and "extends [01b" in head
        and "(02_traffic_breakdown.ipynb)" in head
    )
    assert (
        "(A1_moe_fp8_several_gpus.ipynb)"
        in lessons.markdown(_notebook("02_traffic_breakdown.ipynb"))[0]
    )
