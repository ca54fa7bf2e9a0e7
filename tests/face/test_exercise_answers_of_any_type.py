"""exercises.check gives a student a message, never a traceback, for an answer of any type: a
ragged list (NumPy's 'inhomogeneous shape' ValueError came out of the grader), a sympy value that
is no real number (1/0 is zoo: 'Cannot convert complex to float'), and a key that is no text
(exercises.check(4.1, f) was difflib's TypeError)."""

from __future__ import annotations

import re

import pytest
import sympy as sp

from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.face import exercises
from wattgpu_lite.face.exercises import ExerciseError


def test_a_ragged_list_is_shown_as_written():
    with pytest.raises(ExerciseError, match=r"expected .*, got \[\[1, 2\], \[3\]\]\nHint"):
        exercises.check("00.2", lambda *args: [[1, 2], [3]])


@pytest.mark.parametrize("value", [sp.zoo, sp.I * 2])
def test_a_sympy_value_that_is_no_real_number_is_shown_as_sympy_writes_it(value):
    with pytest.raises(ExerciseError, match=rf"expected [\d.e+]+, got {re.escape(str(value))}\n"):
        exercises.check("01.1", lambda: value)


@pytest.mark.parametrize("key", [4.1, 4, None])
def test_a_key_that_is_no_text_says_how_to_write_it(key):
    with pytest.raises(InvalidInputError, match=rf"text like '04.1'.*got {key!r} .*in quotes"):
        exercises.check(key, lambda: 1)
