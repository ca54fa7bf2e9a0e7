"""Strict checks of the numbers users pass: real, finite, not bool, inside physical bounds.

Every check names the field, says what it got and what to pass instead, and returns the value
as the type the kit computes with. The bounds are wide (a typo or a unit slip lands outside them,
a real workload or spec sheet never does):

    check_number("tdp_w", 700, 10, 5000, unit="W", error=SpecError)   # -> 700.0
    check_count("n_heads", 32, 1, 1024)                          # -> 32 (integer-valued)
    check_flag("measured", False)                                # real booleans only
    check_level(0.8); check_rate_qps(0.1); check_batch(8)
    check_tokens(500, 300, context_length=131072)                # -> (500, 300)
    check_counts("mlp_only_layers", [0, 5], 0, 47)               # -> (0, 5)

This is the one conversion of a number the kit reads (config.json fields, GPU spec fields,
arguments): bools, strings, lists, None, NaN/inf and integers too large for a float (a
401-digit integer) are each an error of the caller's class naming the field, never a
TypeError, ValueError or OverflowError.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from wattgpu_lite.errors import InvalidInputError, WattGPUError

LEVEL = (0.5, 0.999)  # interval coverage: below 0.5 is not an interval; 0.9999 needs 10^4 scores
RATE_QPS = (1e-6, 1e3)  # req/s: one request in ~12 days .. far beyond any single GPU
BATCH_MAX = 4096  # concurrent sequences (vLLM's default max_num_seqs is 256)
TOKENS_MAX = 10_000_000  # tokens of one request when the model's context length is unknown
ITL_SLA_MS = (0.01, 1e6)  # ms: 10 µs .. 17 minutes per token


def _fail(
    error: type[WattGPUError], field: str, problem: str, fix: str, *, label: str | None = None
) -> WattGPUError:
    err = error(f"{label or field} {problem}; {fix}")
    err.field = field  # type: ignore[attr-defined]
    return err


def shown(value: Any) -> str:
    """``repr(value)`` for a message: whole up to 40 characters, else its first 20, an ellipsis
    and the type (a megabyte string or a 401-digit integer never floods a message)."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}… ({type(value).__name__})"


def is_real(value: Any) -> bool:
    """A real number that is not a bool (``True`` is not 1 W), nor a string."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def is_nan(value: Any) -> bool:
    """True only for a float NaN (never raises: a huge integer is not NaN)."""
    return isinstance(value, float | np.floating) and math.isnan(value)


def _within(value: Any, lo: float, hi: float) -> float | None:
    """``float(value)`` when it is a finite real number with lo <= value <= hi, else None: the
    path of a valid value, which builds no message (the checks below say why a value fails)."""
    if not is_real(value):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) and lo <= number <= hi else None


def check_number(
    field: str,
    value: Any,
    lo: float,
    hi: float,
    *,
    unit: str = "",
    error: type[WattGPUError] = InvalidInputError,
    fix: str = "",
    label: str | None = None,
) -> float:
    """``value`` as a float if it is a finite real number with lo <= value <= hi.

    ``label`` replaces the field's name at the head of the message (``err.field`` stays ``field``).
    """
    number = _within(value, lo, hi)
    if number is not None:
        return number
    span = f"from {lo:g} to {hi:g}{' ' + unit if unit else ''}"
    fix = fix or f"pass {field} as a number {span}"
    if not is_real(value):
        typed = shown(value) if len(repr(value)) > 40 else f"{value!r} ({type(value).__name__})"
        problem = f"must be a number, got {typed}"
        raise _fail(error, field, problem, fix, label=label)
    try:
        number = float(value)
    except OverflowError:
        digits = len(str(abs(int(value)))) if isinstance(value, numbers.Integral) else "many"
        problem = f"is too large to be a number here (an integer of {digits} digits)"
        raise _fail(error, field, problem, fix, label=label) from None
    if not math.isfinite(number):
        raise _fail(error, field, f"must be finite, got {value!r}", fix, label=label)
    if not lo <= number <= hi:
        raise _fail(error, field, f"must be {span}, got {shown(value)}", fix, label=label)
    return number


def check_count(
    field: str,
    value: Any,
    lo: int = 1,
    hi: int = 2**31 - 1,
    *,
    error: type[WattGPUError] = InvalidInputError,
    fix: str = "",
    label: str | None = None,
) -> int:
    """``value`` as an int if it is a whole number with lo <= value <= hi (2.0 is 2; 2.5 fails)."""
    number = _within(value, lo, hi)
    if number is not None and number.is_integer():
        return int(number)
    fix = fix or f"pass {field} as a whole number from {lo:,} to {hi:,}"
    number = check_number(field, value, lo, hi, error=error, fix=fix, label=label)
    if not number.is_integer():
        raise _fail(error, field, f"must be a whole number, got {shown(value)}", fix, label=label)
    return int(number)


def check_counts(
    field: str,
    value: Any,
    lo: int = 0,
    hi: int = 2**31 - 1,
    *,
    error: type[WattGPUError] = InvalidInputError,
    fix: str = "",
    label: str | None = None,
) -> tuple[int, ...]:
    """A list of whole numbers, each with lo <= n <= hi (a layer list, a block shape)."""
    fix = fix or f"write {field} as a list of whole numbers from {lo:,} to {hi:,}, e.g. [{lo}]"
    if not isinstance(value, list | tuple):
        problem = f"must be a list of whole numbers, got {value!r:.80} ({type(value).__name__})"
        raise _fail(error, field, problem, fix, label=label)
    return tuple(check_count(field, v, lo, hi, error=error, fix=fix, label=label) for v in value)


def check_flag(
    field: str,
    value: Any,
    *,
    error: type[WattGPUError] = InvalidInputError,
    label: str | None = None,
) -> bool:
    """A real boolean: ``"false"``, 0 and 1 are errors, not guesses."""
    if not isinstance(value, bool | np.bool_):
        fix = f"write {field} as true or false (JSON) / True or False (Python), not in quotes"
        problem = f"must be a boolean, got {value!r} ({type(value).__name__})"
        raise _fail(error, field, problem, fix, label=label)
    return bool(value)


def check_level(level: Any, field: str = "level") -> float:
    """An interval coverage level with 0.5 <= level <= 0.999 (0.8 means 80 %); a float in range
    is returned as it is, without the message :func:`check_number` would build."""
    if type(level) is float and LEVEL[0] <= level <= LEVEL[1]:
        return level
    return check_number(
        field,
        level,
        lo=LEVEL[0],
        hi=LEVEL[1],
        error=InvalidInputError,
        fix=f"pass {field} from {LEVEL[0]} to {LEVEL[1]}, e.g. 0.8 or 0.9",
    )


def check_rate_qps(rate: Any, field: str = "rate_qps") -> float:
    """A Poisson request rate in req/s, 1e-6 <= rate <= 1000."""
    low_qps, high_qps = RATE_QPS
    number = _within(rate, low_qps, high_qps)
    if number is not None:
        return number
    fix = f"pass {field} in requests per second, from {low_qps:g} to {high_qps:g} (e.g. 0.1)"
    return check_number(field, rate, low_qps, high_qps, unit="req/s", fix=fix)


def check_batch(batch: Any, field: str = "batch") -> float:
    """Concurrent sequences: a whole number from 1 to 4096, returned as a float — the type of
    ``batch`` everywhere in the kit (``predict``, ``predict_many``, ``estimate_energy``,
    ``rank_gpus``, the results), since an offline load's batch is a mean in flight."""
    number = _within(batch, 1, BATCH_MAX)
    if number is not None and number.is_integer():
        return float(int(number))
    return float(
        check_count(
            field,
            batch,
            1,
            BATCH_MAX,
            fix=f"pass {field} as a whole number from 1 to {BATCH_MAX}, e.g. {field}=8",
        )
    )


def check_itl_sla_ms(sla: Any, field: str = "itl_sla_ms") -> float:
    """An inter-token latency target in ms, 0.01 <= sla <= 1e6."""
    low_ms, high_ms = ITL_SLA_MS
    fix = f"pass {field} in ms, e.g. 30 or 50"
    return check_number(field, sla, low_ms, high_ms, unit="ms", fix=fix)


def check_tokens(t_in: Any, t_out: Any, context_length: Any = None) -> tuple[int, int]:
    """(t_in, t_out) as whole numbers >= 1 whose sum fits the model's context length: the kit's
    one token check (``predict``, ``predict_many``'s rows, ``estimate_energy``, ``rank_gpus``)."""
    limit = TOKENS_MAX if context_length is None else int(context_length)
    n_in, n_out = _within(t_in, 1, limit), _within(t_out, 1, limit)
    if n_in is not None and n_out is not None and n_in.is_integer() and n_out.is_integer():
        if context_length is None or int(n_in) + int(n_out) <= limit:
            return int(n_in), int(n_out)
    within = "" if context_length is None else " within the model's context length"
    t_in = check_count(
        "t_in",
        t_in,
        1,
        limit,
        fix=f"pass t_in as a whole number of prompt tokens{within}, e.g. t_in=500",
    )
    t_out = check_count(
        "t_out",
        t_out,
        1,
        limit,
        fix=f"pass t_out as a whole number of generated tokens{within}, e.g. t_out=500",
    )
    if context_length is not None and t_in + t_out > limit:
        raise beyond_context(t_in + t_out, limit)
    return t_in, t_out


def beyond_context(total: int, limit: int) -> InvalidInputError:
    """:func:`check_tokens`' error for whole t_in + t_out = ``total`` > the context ``limit``."""
    problem = f"+ t_in = {total:,} tokens exceeds the model's context length {limit:,}"
    fix = "shorten the prompt (t_in) or the output (t_out)"
    return _fail(InvalidInputError, "t_out", problem, fix)
