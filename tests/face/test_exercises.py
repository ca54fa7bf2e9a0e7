"""The graded exercises' checks (wattgpu_lite.face.exercises): a right answer passes, a wrong one
fails with the input, the expected and the returned value and a hint, an unwritten one (the
student edition's stub) says what to write — never a bare assert."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from wattgpu_lite import metrics
from wattgpu_lite.energy import symbolic as S
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.face import exercises, grading
from wattgpu_lite.face.exercises import ExerciseError
from wattgpu_lite.selection.rank import DEFAULT_GPU_COUNTS, rank_gpus
from wattgpu_lite.selection.study import best_plans


def stub(*_args):
    raise NotImplementedError("write it")


def test_a_right_answer_passes_and_says_on_how_many_inputs():
    result = exercises.check("04.1", metrics.mdape_pct)
    assert result.n_cases == len(exercises.EXERCISES["04.1"].cases()) == 5
    assert repr(result) == (
        "✓ exercise 04.1: my_mdape gives what metrics.mdape_pct gives on 5 inputs"
    )


def test_a_wrong_answer_names_the_input_the_expected_value_what_came_back_and_a_hint():
    def mean_not_median(y_true, y_pred):
        t, p = np.asarray(y_true, float), np.asarray(y_pred, float)
        return float(np.mean(np.abs(p - t) / t) * 100)

    with pytest.raises(ExerciseError) as err:
        exercises.check("04.1", mean_not_median)
    message = str(err.value)
    first = exercises.EXERCISES["04.1"].cases()[0]
    assert "Input: 5 runs (numpy arrays)." in message
    assert f"expected {first.expected!r}" in message
    assert f"got {mean_not_median(*first.args)!r}" in message
    assert "Hint: the median, not the mean" in message
    assert isinstance(err.value, AssertionError)  # an autograder counts it as a failed check


def test_an_unwritten_answer_says_what_to_write():
    with pytest.raises(ExerciseError, match=r"my_gpu_tau is not written yet") as err:
        exercises.check("04.2", stub)
    message = str(err.value)
    assert "replace `raise NotImplementedError`" in message
    assert "def my_gpu_tau(pred)" in message and "Kendall's τ" in message


def test_an_answer_that_raises_is_reported_with_its_error_and_input():
    def broken(frame):
        return frame["no_such_column"]

    with pytest.raises(ExerciseError, match=r"my_cv_test_fold raised KeyError") as err:
        exercises.check("04.3", broken)
    assert "Input: " in str(err.value) and isinstance(err.value.__cause__, KeyError)


def test_a_value_instead_of_a_function_is_refused_with_what_to_pass():
    with pytest.raises(ExerciseError, match=r"wants the function itself, got float"):
        exercises.check("03.1", 0.5)


def test_a_wrong_sympy_expression_shows_the_difference_and_numbers():
    def weights_only():
        return S.K * S.N * S.T_out

    with pytest.raises(ExerciseError) as err:
        exercises.check("01.1", weights_only)
    message = str(err.value)
    assert "yours − kit's = " in message
    difference = sp.factor(sp.expand(S.flops_decode - weights_only()))
    assert str(sp.factor(-difference)) in message  # the attention FLOPs left out
    assert "expected " in message and "got " in message and "sp.summation" in message


def test_a_number_where_a_sympy_expression_is_due_is_refused():
    with pytest.raises(ExerciseError, match=r"returned float .* not a sympy expression"):
        exercises.check("01.2", lambda: 1.0)


def test_a_wrong_shape_fails():
    with pytest.raises(ExerciseError, match=r"expected \[.*got 1\.0"):
        exercises.check("02.1", lambda llm, t_in, t_out, batch: 1.0)


def test_exact_exercises_compare_exactly():
    def one_off(plans, itl_sla_ms):
        return (plans["itl_ms_hi"] < itl_sla_ms).to_numpy()  # a plan at the SLA meets it

    with pytest.raises(ExerciseError, match=r"a plan exactly at it meets it"):
        exercises.check("05.1", one_off)


def test_an_unknown_exercise_names_the_close_ones():
    with pytest.raises(InvalidInputError, match=r"no graded exercise '04\.4'.*'04\.1'"):
        exercises.check("04.4", stub)


def test_the_cases_are_the_same_on_every_call():
    for key, ex in exercises.EXERCISES.items():
        if ex.kind == "sympy":
            continue
        a, b = ex.cases(), ex.cases()
        assert [c.label for c in a] == [c.label for c in b], key
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(np.asarray(x.expected), np.asarray(y.expected))


LAB = Path(__file__).resolve().parents[2] / "notebooks" / "dashboard_lab.md"


def test_the_lab_sheet_asks_the_question_its_check_answers_and_the_course_page_links_it():
    sheet, q = LAB.read_text(), grading.PLAN_QUESTIONS["lab.1"]
    assert f"`{q.llm}`" in sheet
    assert f"SLA of {q.itl_sla_ms:g} ms at {q.rate_qps:g} requests per second" in sheet
    assert 'exercises.check_pick("lab.1", gpu=' in sheet
    assert "(dashboard_lab.md)" in (LAB.parent / "README.md").read_text()


def test_the_lab_check_accepts_the_plan_rank_gpus_puts_first_and_no_other():
    q = grading.PLAN_QUESTIONS["lab.1"]
    table = best_plans(
        rank_gpus(
            q.llm, rate_qps=q.rate_qps, itl_sla_ms=q.itl_sla_ms, gpu_counts=DEFAULT_GPU_COUNTS
        )
    )
    meets = table[table["meets_sla"]]
    first, second = meets.iloc[0], meets.iloc[1]
    assert first["energy_per_1k_tokens_j"] <= meets["energy_per_1k_tokens_j"].min()
    passed = exercises.check_pick("lab.1", first["gpu"], int(first["num_gpus"]))
    assert (
        repr(passed) == f"✓ lab.1: {first['gpu']} ×{int(first['num_gpus'])} is the dashboard's pick"
    )
    with pytest.raises(
        ExerciseError, match=r"is not the pick: 1 plan\(s\) that meet the SLA use less"
    ):
        exercises.check_pick("lab.1", second["gpu"], int(second["num_gpus"]))
    with pytest.raises(ExerciseError, match=r"least-energy count is not"):
        exercises.check_pick("lab.1", first["gpu"], int(first["num_gpus"]) * 2)
    with pytest.raises(ExerciseError, match=r"'H100' is not a GPU of the dashboard's table.*H100"):
        exercises.check_pick("lab.1", "H100", 1)
    with pytest.raises(InvalidInputError, match=r"no lab question 'lab.2'"):
        exercises.check_pick("lab.2", "L4", 1)
