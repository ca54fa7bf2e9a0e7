"""Every notebook is a lesson, by the conventions of CONTRIBUTING.md:

(a) objectives, prerequisites, time, previous/next links and the code's folder at the top; a
    summary, 3-5 check-your-understanding questions and "Try this" exercises at the end, each
    answer and solution in a collapsed <details> block, each exercise with its check in the
    "Try this" cell's metadata;
(b) every "Try this" solution runs against the notebook's own state and changes what its check
    shows (or, written by the student, gives what the library gives): run by nbval in the
    notebook's own kernel after its last cell (tests/lesson_kernel.py), not here, so that
    `make test` executes each notebook once;
(c) every number in markdown prose is in an output of the notebook (at 3 significant figures,
    as nbval compares them) or on the notebook's short, explained allow-list. Read from the
    committed outputs, which nbval checks against a fresh run.

Notebooks not yet converted are listed in PENDING, one entry per (notebook, check), as strict
xfails: when a notebook lands its conversion, its entry must go (an unexpected pass fails).
"""

from __future__ import annotations

import json
from pathlib import Path

import lessons
import pytest

FOLDER = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
LESSONS = [p for p in NOTEBOOKS if p.stem != "dashboard"]  # the dashboard is an app, not a lesson
# (notebook, check) -> why it is not met yet: a strict xfail (empty: every lesson meets every check)
PENDING: dict[tuple[str, str], str] = {}


def _cases(paths, check):
    """One pytest param per notebook; a strict xfail where (notebook, check) is PENDING."""

    def marks(p):
        reason = PENDING.get((p.stem, check))
        return [pytest.mark.xfail(reason=reason, strict=True)] if reason else []

    return [pytest.param(p, id=p.stem, marks=marks(p)) for p in paths]


def _read(path: Path) -> dict:
    return json.loads(path.read_text())


def test_pending_names_real_notebooks_and_checks():
    stems = {p.stem for p in NOTEBOOKS}
    assert all(s in stems and c in {"structure", "numbers"} for s, c in PENDING)


@pytest.mark.parametrize("path", _cases(LESSONS, "structure"))
def test_a_lesson_layout(path):
    problems = lessons.structure_problems(_read(path), FOLDER)
    assert not problems, f"{path.name}: " + "; ".join(problems)


@pytest.mark.parametrize("path", _cases(NOTEBOOKS, "numbers"))
def test_c_prose_numbers_are_outputs_or_allowed(path):
    nb = _read(path)
    allowed = lessons.allowed_numbers(nb)
    assert len(allowed) <= lessons.MAX_ALLOWED, f"{len(allowed)} allowed numbers: too many"
    assert all(isinstance(why, str) and len(why) > 10 for why in allowed.values()), (
        "every allowed number needs its reason (what it is, and its source)"
    )
    prose = lessons.checked_prose(nb)
    solutions = "\n".join(e.solution_prose for e in lessons.exercises(nb))
    used = {lessons.to_float(t) for t in lessons.prose_numbers(prose + "\n" + solutions)}
    stale = [k for k in allowed if lessons.to_float(k) not in used]
    assert not stale, f"{path.name}: allowed numbers no longer in the prose: {stale}"
    missing = lessons.unmatched_numbers(
        prose, lessons.output_numbers(lessons.outputs_text(nb)), allowed
    )
    assert not missing, (
        f"{path.name}: prose numbers in no output and not allowed: {missing}. Print "
        "them (face/prose.py writes sentences from numbers) or allow-list them."
    )
