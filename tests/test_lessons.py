"""Every notebook is a lesson (issue 14), by the conventions of notebooks/README.md:

(a) objectives, prerequisites, time, previous/next links and the code's folder at the top; a
    summary, 3-5 check-your-understanding questions and "Try this" exercises at the end, each
    answer and solution in a collapsed <details> block;
(b) every "Try this" solution runs once, here, against the notebook's own state, and changes
    what its "# check:" expression shows;
(c) every number in markdown prose is in an output of the notebook (at 3 significant figures,
    as nbval compares them) or on the notebook's short, explained allow-list.

Notebooks not yet converted are listed in PENDING, one entry per (notebook, check), as strict
xfails: when a notebook lands its conversion, its entry must go (an unexpected pass fails).
"""

from __future__ import annotations

import json
from pathlib import Path

import lessons
import nbformat
import pytest
from jupyter_client import KernelManager
from nbclient import NotebookClient
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, NbvalKernelspecManager

FOLDER = Path(__file__).resolve().parents[1] / "notebooks"
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
    assert all(s in stems and c in {"structure", "exercises", "numbers"} for s, c in PENDING)


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


_HELPER = r"""
import contextlib as _cl, copy as _copy, io as _io, json as _json
import numpy as _np, pandas as _pd

def _lesson_snapshot(value):
    try:
        return _copy.deepcopy(value)
    except Exception:
        return repr(value)

def _lesson_differs(a, b):
    if isinstance(a, (_pd.DataFrame, _pd.Series)) or isinstance(b, (_pd.DataFrame, _pd.Series)):
        return not (type(a) is type(b) and a.shape == b.shape and a.equals(b))
    try:
        x, y = _np.asarray(a, dtype=float), _np.asarray(b, dtype=float)
        return x.shape != y.shape or not _np.allclose(x, y, rtol=1e-9, atol=0, equal_nan=True)
    except (TypeError, ValueError):
        return repr(a) != repr(b)

def _lesson_run(number, check, code):
    import traceback as _tb
    import matplotlib.pyplot as _plt
    namespace, out = dict(globals()), _io.StringIO()
    try:
        before = _lesson_snapshot(eval(check, namespace))
        with _cl.redirect_stdout(out):
            exec(compile(code, f"<solution {number}>", "exec"), namespace)
        after = eval(check, namespace)
        result = {"changed": bool(_lesson_differs(before, after)), "after": repr(after)[:20000]}
    except Exception:
        result = {"error": _tb.format_exc(limit=-3)}
    _plt.close("all")
    print(_json.dumps({"number": number, "stdout": out.getvalue(), **result}))
"""


def _run_exercises(path: Path, found: list[lessons.Exercise]) -> list[dict]:
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    cells.append(nbformat.v4.new_code_cell(_HELPER))
    marker = len(cells)
    for e in found:
        cells.append(nbformat.v4.new_code_cell(f"_lesson_run({e.number}, {e.check!r}, {e.code!r})"))
    nb.cells = cells
    km = KernelManager(
        kernel_name=CURRENT_ENV_KERNEL_NAME, kernel_spec_manager=NbvalKernelspecManager()
    )
    NotebookClient(nb, km=km, timeout=900, resources={"metadata": {"path": str(FOLDER)}}).execute()
    results = []
    for cell in nb.cells[marker:]:
        text = "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")
        results.append(json.loads(text.strip().splitlines()[-1]))
    return results


@pytest.mark.parametrize("path", _cases(LESSONS, "exercises"))
def test_b_every_exercise_runs_and_changes_what_it_checks(path):
    nb = _read(path)
    found = lessons.exercises(nb)
    assert len(found) >= 2 and all(e.check for e in found), (
        f"{path.name}: exercises without a '# check:' solution block"
    )
    outputs = lessons.output_numbers(lessons.outputs_text(nb))
    for e, result in zip(found, _run_exercises(path, found), strict=True):
        assert "error" not in result, (
            f"{path.name} exercise {e.number} raised:\n{result.get('error')}"
        )
        assert result["changed"], f"{path.name} exercise {e.number}: `{e.check}` did not change"
        seen = outputs | lessons.output_numbers(result["stdout"] + "\n" + result["after"])
        missing = lessons.unmatched_numbers(e.solution_prose, seen, lessons.allowed_numbers(nb))
        assert not missing, (
            f"{path.name} exercise {e.number}: solution numbers in no output: {missing}"
        )
