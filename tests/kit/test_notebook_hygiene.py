"""Every committed notebook: executed top to bottom on a fresh kernel, no stored error, no huge output,
and the shape every notebook of the kit promises (what you will learn ... try this)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
MAX_OUTPUT_BYTES = 1_000_000


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def test_the_kit_has_its_notebooks():
    assert NOTEBOOKS[0].name == "00_start_here.ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_executed_top_to_bottom_without_errors(path):
    code = [c for c in _cells(path) if c["cell_type"] == "code"]
    assert [c.get("execution_count") for c in code] == list(range(1, len(code) + 1))
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{path.name} has a stored error: {errors[0].get('ename')}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_output_larger_than_one_megabyte(path):
    sizes = [len(json.dumps(o)) for c in _cells(path) for o in c.get("outputs", [])]
    assert max(sizes, default=0) < MAX_OUTPUT_BYTES


@pytest.mark.parametrize(
    "path", [p for p in NOTEBOOKS if p.stem != "dashboard"], ids=lambda p: p.name
)
def test_opens_with_what_you_will_learn_and_ends_with_try_this(path):
    markdown = ["".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown"]
    assert "what you will learn" in markdown[0].lower()
    assert "try this" in markdown[-1].lower()
