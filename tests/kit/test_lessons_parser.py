"""The lesson reader of tests/lessons.py on hand-made text: what counts as a prose number, how
numbers match outputs at 3 significant figures, and how exercises are found."""

from __future__ import annotations

import lessons
import pytest


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("ours 207 % vs the paper's 190.1 %", ["207", "190.1"]),
        ("≈1,560× more, and 0.0206 J", ["1,560", "0.0206"]),
        ("the H100, Qwen3-8B, Llama-3.1-8B, FP16, 2N and 10⁹", []),
        ("a 16-bit weight, a 90-minute lab, 5-fold CV, 8 GPUs, in 2026", []),
        ("notebook 03, Table 3, §5, arXiv 2607.02391, vLLM 0.14.1", []),
        ("`evaluate(level=0.95)` and $2 N T_{in}$ and [link](http://x.org/v1.5)", []),
        ("## 3. Table 2 — mean power\nuses −57.8 % more", ["−57.8"]),
        ("ends a sentence with 13.5.", ["13.5"]),
        ("**Time.** about 45 minutes; a 3 weeks module", []),
    ],
)
def test_prose_numbers(text, numbers):
    assert lessons.prose_numbers(text) == numbers


@pytest.mark.parametrize(
    ("token", "digits"),
    [("0.0206", 3), ("1,560", 3), ("13.50", 4), ("730", 2), ("4.4", 2), ("186.5", 4)],
)
def test_significant_digits(token, digits):
    assert lessons.significant_digits(token) == digits


@pytest.mark.parametrize(
    ("token", "outputs", "ok"),
    [
        ("207", {206.867}, True),  # 3 figures
        ("4.4", {4.352}, True),  # prose at 2 figures
        ("4.4", {4.35}, True),  # output already rounded to 3 figures: half-up
        ("730", {731.2}, True),
        ("1,560", {1560.4}, True),
        ("186.5", {186.459}, True),  # compared at 3 figures, as nbval does
        ("58", {-57.8}, True),  # "58 % less" against −57.8
        ("1.13", {1.19}, False),
        ("100", {1560.4}, False),
        ("1.5", {1.19}, False),
        ("0.3", {0.33}, False),  # one written figure is matched at two
        ("400", {400.0}, True),
    ],
)
def test_matches(token, outputs, ok):
    assert lessons.matches(token, outputs) is ok


def test_output_numbers_skip_names_and_read_exponents():
    got = lessons.output_numbers("H100 NVL  0.02059  1.56e+03  4,163 runs  Qwen3-8B")
    assert {0.02059, 1560.0, 4163.0} <= got and 100.0 not in got and 3.0 not in got


NB = {
    "metadata": {},
    "cells": [
        {"cell_type": "markdown", "source": "# 09 · x\n\n**What you will learn.** a\n\n"
         "**Prerequisites.** b\n\n**Time.** 30 minutes.\n\n**Previous:** [00](00_start_here.ipynb)"
         " · **Next:** [01](01_energy_model_derivation.ipynb)\n\nThe code lives in `x/`."},
        {"cell_type": "code", "source": "print(13.5)", "outputs": [{"text": "13.5\n"}]},
        {"cell_type": "markdown", "source": "## Summary\n\nIt is 13.5.\n\n"
         "## Check your understanding\n\n"
         + "".join(f"**{k}.** Q?\n\n<details><summary>Answer</summary>\n\nA.\n\n</details>\n\n"
                   for k in (1, 2, 3))},
        {"cell_type": "markdown", "source": "## Try this\n\n"
         + "".join(f"**{k}. Do.** Text.\n\n<details><summary>Solution</summary>\n\nIt moves to 9.9."
                   f"\n\n```python\nx = 2\n```\n\n</details>\n\n" for k in (1, 2)),
         "metadata": {"wattgpu_lite": {"checks": {"1": "x + 1", "2": {"student": "f(2)",
                                                                      "library": "2"}}}}},
    ],
}  # fmt: skip


def test_a_complete_lesson_has_no_structure_problem(tmp_path):
    for name in ("00_start_here.ipynb", "01_energy_model_derivation.ipynb"):
        (tmp_path / name).write_text("{}")
    assert lessons.structure_problems(NB, tmp_path) == []


def test_a_missing_part_is_named(tmp_path):
    broken = {**NB, "cells": NB["cells"][:2]}
    problems = " ".join(lessons.structure_problems(broken, tmp_path))
    assert "Summary" in problems and "0 check-your-understanding" in problems
    assert "missing file" in problems


def test_exercises_carry_check_and_code_and_solution_prose_is_kept_apart():
    found = lessons.exercises(NB)
    assert [(e.number, e.check, e.code) for e in found] == [
        (1, "x + 1", "x = 2\n"),
        (2, {"student": "f(2)", "library": "2"}, "x = 2\n"),
    ]
    assert [e.writes_it_yourself for e in found] == [False, True]
    assert "9.9" in found[0].solution_prose and "9.9" not in lessons.checked_prose(NB)
    assert lessons.unmatched_numbers(lessons.checked_prose(NB), {13.5}, {}) == []


def test_an_exercise_without_its_check_in_the_metadata_is_named(tmp_path):
    for name in ("00_start_here.ipynb", "01_energy_model_derivation.ipynb"):
        (tmp_path / name).write_text("{}")
    cells = [*NB["cells"][:-1], {**NB["cells"][-1], "metadata": {}}]
    problems = lessons.structure_problems({**NB, "cells": cells}, tmp_path)
    assert problems[:2] == [f"exercise {k} has no check in the Try this cell's metadata "
                            "(wattgpu_lite.checks)" for k in (1, 2)]  # fmt: skip


def test_the_rerun_tool_names_a_stale_number_with_its_sentence_and_nearest_outputs():
    import prose_numbers

    nb = {**NB, "cells": [*NB["cells"][:2], {"cell_type": "markdown", "metadata": {},
                                             "source": "The ITL is 14.1 ms here."}]}  # fmt: skip
    nb["cells"][1] = {**nb["cells"][1], "outputs": [{"text": "13.5 ms, 140 W, 1.41\n"}]}
    [(token, where, near)] = prose_numbers.stale(nb)
    assert token == "14.1" and "ITL is 14.1 ms" in where
    assert near[0] == 13.5 and set(near) == {13.5, 1.41, 140.0}


def test_a_lesson_without_a_write_it_yourself_exercise_is_named(tmp_path):
    for name in ("00_start_here.ipynb", "01_energy_model_derivation.ipynb"):
        (tmp_path / name).write_text("{}")
    knobs_only = {"wattgpu_lite": {"checks": {"1": "x + 1", "2": "x + 2"}}}
    cells = [*NB["cells"][:-1], {**NB["cells"][-1], "metadata": knobs_only}]
    problems = lessons.structure_problems({**NB, "cells": cells}, tmp_path)
    assert problems == [
        "no 'write it yourself' exercise (a check with 'student' and 'library', "
        "or a graded exercise: a code cell tagged 'solution')"
    ]
    answer = {"cell_type": "code", "metadata": {"tags": ["solution"]}, "source": "def my_f():\n"}
    check = {"cell_type": "code", "metadata": {"tags": ["check"]}, "source": "check(my_f)"}
    graded = [*cells[:-1], answer, check, cells[-1]]
    assert lessons.structure_problems({**NB, "cells": graded}, tmp_path) == []


def test_a_solution_cell_without_its_check_right_after_it_is_refused():
    answer = {"cell_type": "code", "id": "a1", "metadata": {"tags": ["solution"]}, "source": ""}
    other = {"cell_type": "code", "id": "c1", "metadata": {}, "source": ""}
    with pytest.raises(ValueError, match=r"solution cell a1 is not followed by a check cell"):
        lessons.graded({"cells": [answer, other]})


def test_the_pacing_rule_counts_words_outside_details_code_cells_and_one_exercise():
    words = " ".join(["word"] * 300)  # 2 minutes at 150 words a minute
    hidden = "<details><summary>Answer</summary>\n\n" + " ".join(["x"] * 3000) + "\n\n</details>"
    nb = {"cells": [{"cell_type": "markdown", "source": [words, hidden]}]
          + [{"cell_type": "code", "source": ["1"]}] * 6}  # fmt: skip
    assert lessons.pace_minutes(nb) == 20  # 2 + 6 + 8 = 16, rounded up to 20
    nb["cells"] = nb["cells"][:1] + nb["cells"][2:]  # 2 + 5 + 8 = 15: already a multiple of 5
    assert lessons.pace_minutes(nb) == 15
