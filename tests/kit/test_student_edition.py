"""`make student`: the student edition written from the committed (instructor)
notebooks holds no solution, and every graded exercise's check passes on the instructor's answer
and fails, saying what to write, on the student's stub. Each answer and check cell is run on its
own in a fresh namespace (nbval already runs the whole notebooks once)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import lessons
import pytest

from wattgpu_lite.face import exercises, student
from wattgpu_lite.face.exercises import ExerciseError, Passed

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
# the lessons with 2 to 4 graded exercises each
GRADED_LESSONS = ("00_", "01_", "01b_", "02_", "03_", "04_", "05_", "06_")
CHECK_CELL = re.compile(
    r'from wattgpu_lite\.face import exercises\n\nexercises\.check\("([\w.]+)", (my_\w+)\)\n?'
)


def _nb(path: Path) -> dict:
    return json.loads(path.read_text())


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _key(check: dict) -> str:
    m = CHECK_CELL.fullmatch(_source(check))
    assert m, f"a check cell calls the checker only, got {_source(check)!r}"
    return m.group(1)


INSTRUCTOR = {p.name: _nb(p) for p in NOTEBOOKS}
GRADED = [(name, answer, check) for name, nb in INSTRUCTOR.items()
          for answer, check in lessons.graded(nb)]  # fmt: skip


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    """The student edition, written by the command `make student` runs."""
    dest = tmp_path_factory.mktemp("edition") / "student"
    subprocess.run([sys.executable, "-m", "wattgpu_lite.face.student", str(FOLDER), str(dest)],
                   cwd=ROOT, check=True, capture_output=True, text=True)  # fmt: skip
    return dest


def test_each_lesson_has_two_to_four_graded_exercises_and_each_exercise_is_used_once():
    keys = [_key(check) for _, _, check in GRADED]
    assert sorted(keys) == sorted(exercises.EXERCISES)
    for prefix in GRADED_LESSONS:
        name = next(n for n in INSTRUCTOR if n.startswith(prefix))
        mine = [k for n, _, c in GRADED if n == name for k in [_key(c)]]
        assert 2 <= len(mine) <= 4, (name, mine)
        assert all(k.startswith(prefix.rstrip("_") + ".") for k in mine), (name, mine)


def test_each_answer_sits_under_its_task_and_is_tagged_as_the_editions_expect():
    for name, nb in INSTRUCTOR.items():
        cells = nb["cells"]
        for answer, check in lessons.graded(nb):
            task = _source(cells[cells.index(answer) - 1])
            assert task.startswith(f"### Exercise {_key(check)} · "), (name, task[:60])
            assert f"`{exercises.EXERCISES[_key(check)].name}(" in task, (name, _key(check))


@pytest.mark.parametrize(("name", "answer", "check"), GRADED,
                         ids=[_key(check) for _, _, check in GRADED])  # fmt: skip
def test_the_answer_passes_its_check_and_the_stub_fails_saying_what_to_write(name, answer, check):
    key, function = CHECK_CELL.fullmatch(_source(check)).groups()
    namespace: dict = {}
    exec(compile(_source(answer), f"<{name} answer {key}>", "exec"), namespace)
    assert function in namespace, f"{name}: the answer cell of {key} defines no {function}"
    passed = eval(compile(_source(check).splitlines()[-1], "<check>", "eval"),
                  {**namespace, **_imports(check)})  # fmt: skip
    assert isinstance(passed, Passed) and passed.key == key

    fresh: dict = {}
    exec(compile(student.stub(_source(answer)), f"<{name} stub {key}>", "exec"), fresh)
    with pytest.raises(ExerciseError) as err:
        exec(compile(_source(check), f"<{name} check {key}>", "exec"), fresh)
    message = str(err.value)
    assert f"{function} is not written yet" in message
    assert f"def {exercises.EXERCISES[key].signature}" in message and "Hint:" in message


def _imports(check: dict) -> dict:
    namespace: dict = {}
    exec(_source(check).split("\n\n")[0], namespace)
    return namespace


def test_the_student_edition_has_no_solution_no_answer_and_no_output(edition):
    written = sorted(p.name for p in edition.glob("*.ipynb"))
    assert written == [p.name for p in NOTEBOOKS]
    assert (edition / "README.md").read_text() == (FOLDER / "README.md").read_text()
    for path in edition.glob("*.ipynb"):
        nb, original = _nb(path), INSTRUCTOR[path.name]
        assert nb["metadata"]["wattgpu_lite"]["edition"] == "student"
        answers = {c["id"]: _source(c) for c, _ in lessons.graded(original)}
        for cell in nb["cells"]:
            text, tags = _source(cell), cell["metadata"].get("tags", [])
            assert not re.search(r"<summary>\s*(Solution|Answer)", text, re.I), (
                path.name,
                text[:80],
            )
            if cell["cell_type"] == "markdown":
                assert "solution" not in tags, path.name
                assert "checks" not in cell["metadata"].get("wattgpu_lite", {}), path.name
                continue
            assert cell["outputs"] == [] and cell["execution_count"] is None, path.name
            if "solution" in tags:
                body = _body_lines(answers[cell["id"]])
                assert body and not body & set(text.splitlines()), (
                    path.name,
                    body & set(text.splitlines()),
                )
                assert student.STUB_BODY in text and "raise NotImplementedError" in text
            if "check" in tags:
                assert student.RAISES in tags
        kept = [c["id"] for c in original["cells"]
                if "solution" not in c["metadata"].get("tags", []) or c["cell_type"] == "code"]  # fmt: skip
        assert [c["id"] for c in nb["cells"]] == kept, path.name


def _body_lines(source: str) -> set[str]:
    """The lines of an answer's function bodies, docstrings left out (they stay in the stub)."""
    lines, out = source.splitlines(), set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            body = node.body[1:] if isinstance(node.body[0], ast.Expr) else node.body
            out |= {ln for b in body for ln in lines[b.lineno - 1 : b.end_lineno] if ln.strip()}
    return out


def test_the_student_edition_is_the_same_bytes_every_time(edition, tmp_path):
    again = student.write_student_edition(FOLDER, tmp_path / "again")
    assert [p.read_bytes() for p in again] == [(edition / p.name).read_bytes() for p in again]


def test_the_markdown_loses_solutions_and_answers_but_keeps_the_questions():
    text = ("**1. A question.** Why?\n\n<details><summary>Answer</summary>\n\nBecause.\n\n</details>\n\n"
            "**2. A task.** Do it.\n\n<details><summary>Solution</summary>\n\n```python\nx = 1\n```\n"
            "\n</details>\n\n<details><summary>More</summary>\n\nkept\n\n</details>")  # fmt: skip
    out = student.student_markdown(text)
    assert "Because" not in out and "x = 1" not in out
    assert "**1. A question.** Why?\n\n**2. A task.** Do it.\n\n<details><summary>More" in out
    assert student.student_markdown("a\n\n\n\nb") == "a\n\n\n\nb"  # nothing removed: untouched


def test_a_stub_keeps_imports_signature_and_docstring():
    source = ('import numpy as np\n\n\ndef my_f(x, y=2):\n    """Doc."""\n    z = x * y\n'
              "    return np.sqrt(z)\n")  # fmt: skip
    assert student.stub(source) == (
        'import numpy as np\n\n\ndef my_f(x, y=2):\n    """Doc."""\n    # YOUR CODE HERE\n'
        '    raise NotImplementedError("write my_f")\n'
    )


def test_an_answer_cell_with_more_than_imports_and_functions_is_refused():
    with pytest.raises(ValueError, match=r"imports and function definitions only, found Assign"):
        student.stub("x = 1\n\ndef my_f():\n    return x\n", "02, cell 5")


def test_the_edition_never_overwrites_the_instructor_notebooks():
    with pytest.raises(ValueError, match=r"would overwrite the instructor edition"):
        student.write_student_edition(FOLDER, FOLDER)
