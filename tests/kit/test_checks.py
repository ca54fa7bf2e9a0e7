"""The strict checks: real, finite, not bool, inside bounds; the message names the field and the fix."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from wattgpu_lite import checks as C
from wattgpu_lite.errors import InvalidInputError, SpecError


@pytest.mark.parametrize(
    ("value", "words"),
    [(True, "must be a number, got True (bool)"), ("700", "must be a number, got '700' (str)"),
     (None, "must be a number"), ([700], "must be a number"), (math.inf, "must be finite"),
     (math.nan, "must be finite"), (-math.inf, "must be finite"), (9.0, "from 10 to 5000 W"),
     (5000.5, "from 10 to 5000 W"), (1e308, "from 10 to 5000 W")],
)  # fmt: skip
def test_check_number_refuses(value, words):
    with pytest.raises(SpecError, match=re.escape(words)) as err:
        C.check_number("tdp_w", value, 10, 5000, unit="W", error=SpecError)
    assert str(err.value).startswith("tdp_w ") and "pass tdp_w as a number" in str(err.value)
    assert err.value.field == "tdp_w"


@pytest.mark.parametrize("value", [10, 700, 700.0, np.float32(700), np.int64(5000)])
def test_check_number_accepts_and_returns_a_float(value):
    out = C.check_number("tdp_w", value, 10, 5000, unit="W")
    assert type(out) is float and out == float(value)


def test_check_count_wants_whole_numbers():
    assert C.check_count("n", 8.0) == 8 and type(C.check_count("n", np.int32(8))) is int
    with pytest.raises(InvalidInputError, match="n must be a whole number, got 2.5"):
        C.check_count("n", 2.5)
    with pytest.raises(InvalidInputError, match="must be a number, got False"):
        C.check_count("n", False)


@pytest.mark.parametrize("value", ["false", "False", 0, 1, None, "yes", [True]])
def test_check_flag_takes_only_booleans(value):
    with pytest.raises(InvalidInputError, match="measured must be a boolean.*true or false"):
        C.check_flag("measured", value)


def test_check_flag_keeps_real_booleans():
    assert C.check_flag("m", np.bool_(True)) is True and C.check_flag("m", False) is False


@pytest.mark.parametrize(
    ("check", "good", "bad", "words"),
    [(C.check_level, [0.5, 0.8, 0.999], [0.4999, 0.9999, 1, 0, "0.8", True], "level"),
     (C.check_rate_qps, [1e-6, 0.017, 1000], [0, -0.1, 1e-7, 1001, math.inf, "0.1"], "rate_qps"),
     (C.check_batch, [1, 8, 4096.0], [0, 0.5, 4097, 1e8, True, "8"], "batch"),
     (C.check_itl_sla_ms, [0.01, 30, 1e6], [0, -1, 1e7, math.nan, "abc"], "itl_sla_ms")],
)  # fmt: skip
def test_workload_checks_take_the_range_and_refuse_the_rest(check, good, bad, words):
    for value in good:
        assert check(value) == pytest.approx(float(value))
    for value in bad:
        with pytest.raises(InvalidInputError, match=f"^{words} .*; pass {words}"):
            check(value)


def test_tokens_must_fit_the_context():
    assert C.check_tokens(500, 300, context_length=800) == (500, 300)
    with pytest.raises(InvalidInputError, match="t_out \\+ t_in = 801 tokens exceeds .* 800"):
        C.check_tokens(500, 301, context_length=800)
    with pytest.raises(InvalidInputError, match="t_in must be .* got 0"):
        C.check_tokens(0, 10)
    with pytest.raises(InvalidInputError, match="t_out must be from 1 to 1e\\+07"):
        C.check_tokens(10, 1_000_000_000)


def test_check_count_defaults_span_one_to_two_to_the_31_minus_one_and_say_so():
    assert C.check_count("n", 1) == 1 and C.check_count("n", 2**31 - 1) == 2**31 - 1
    for bad in (0, 2**31):
        with pytest.raises(
            InvalidInputError, match="pass n as a whole number from 1 to 2,147,483,647"
        ):
            C.check_count("n", bad)


def test_one_token_in_and_out_is_the_smallest_request_and_the_sum_must_fit():
    assert C.check_tokens(1, 1) == (1, 1) and C.check_tokens(1, 1, context_length=2) == (1, 1)
    with pytest.raises(InvalidInputError, match="t_out \\+ t_in = 1,001 tokens exceeds .* 1,000"):
        C.check_tokens(300, 701, context_length=1000)


def test_a_long_bad_token_value_is_shown_cut_at_20_characters():
    """The message shows a bad value whole up to a 40-character repr, else its first 20
    characters, an ellipsis and its type."""
    from wattgpu_lite.errors import InvalidInputError as Bad

    with pytest.raises(Bad, match="got 'x{38}' \\(str\\); "):
        C.check_tokens("x" * 38, 10)  # repr: 40 characters
    with pytest.raises(Bad, match=r"got 'x{19}… \(str\); "):
        C.check_tokens("x" * 39, 10)  # repr: 41 characters
    with pytest.raises(Bad, match=r"^t_out must be from 1 to 1e\+07, got 10{19}… \(int\); "):
        C.check_tokens(10, 10**40)


def test_a_40_character_value_is_shown_whole_in_a_range_message():
    """A value whose repr is exactly 40 characters (a 40-digit integer) is shown whole."""
    with pytest.raises(InvalidInputError, match=r"^t_out must be from 1 to 1e\+07, got 10{39}; "):
        C.check_tokens(10, 10**39)


def test_a_bad_t_out_is_named_beside_the_smallest_t_in():
    """t_in = 1 is valid, so a refused pair with t_in = 1 names t_out."""
    with pytest.raises(InvalidInputError) as err:
        C.check_tokens(1, 0)
    assert err.value.field == "t_out"
