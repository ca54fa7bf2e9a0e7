"""How an answer to a graded exercise is graded: called on each input, compared with the kit's.

An answer is compared with the kit's function on each of the exercise's cases (numbers to
:data:`RTOL`, labels exactly, sympy expressions by their difference); a wrong, unwritten or
failing answer is an :class:`ExerciseError` (an ``AssertionError``) that says which input, what
was expected, what came back, and a hint; a passing one is :class:`Passed`. The dashboard lab
sheet (notebooks/dashboard_lab.md) is graded by :func:`check_pick`: a plan read off the dashboard,
checked against the dashboard's own pick (``exercises.check_pick`` re-exports it).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import sympy as sp

from wattgpu_lite.energy import symbolic, symbolic_physical
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.face import explorer
from wattgpu_lite.face.exercise_cases import Case

RTOL = 1e-9  # the answers are the same arithmetic as the kit's: they agree to rounding
# values at which two sympy expressions are compared when they differ (typical sizes of an 8 B
# model at 500 prompt and 300 output tokens; the paper's Table 2 constants are mere test points)
_POINT = {symbolic.K: 2, symbolic.N: 8e9, symbolic.n_l: 32, symbolic.d: 4096, symbolic.T_in: 500,
          symbolic.T_out: 300, symbolic.B: 16, symbolic.alpha: 1e-12, symbolic.e_mem: 1e-11,
          symbolic.b_w: 16, symbolic.b_kv: 16, symbolic.N0: 1e9, symbolic.gamma0: 0.5,
          symbolic.gamma_exp: 0.1, symbolic.s_coef: 0.2, symbolic.s_exp: 0.3,
          symbolic.eta_coef: 0.1, symbolic.eta_exp: 0.2, symbolic_physical.N_all: 7.5e9, symbolic_physical.E: 8, symbolic_physical.k: 2,
          symbolic_physical.L_moe: 32, symbolic_physical.N_exp: 1.2e8, symbolic_physical.b_e: 16}  # fmt: skip


class ExerciseError(AssertionError):
    """A graded answer that does not pass: which input, expected, got, and a hint."""


@dataclass(frozen=True)
class Exercise:
    """A graded exercise: the function the student writes and the kit's function it must equal."""

    key: str  # "NN.k": notebook NN, exercise k
    signature: str  # what the student writes, e.g. "my_mdape(y_true, y_pred)"
    library: str  # the kit's function the answer is compared with
    task: str  # one sentence: what the function returns
    hint: str  # what a wrong answer most often misses
    cases: Callable[[], list[Case]]
    kind: str = "number"  # "number" (arrays, rtol 1e-9), "exact" (labels, booleans) or "sympy"

    @property
    def name(self) -> str:
        return self.signature.split("(")[0]


@dataclass(frozen=True)
class Passed:
    """A passing answer; a notebook shows it as one line."""

    key: str
    name: str
    library: str
    n_cases: int

    def __repr__(self) -> str:
        if self.key.startswith("lab."):
            return f"✓ {self.key}: {self.name} is {self.library}"
        inputs = "one input" if self.n_cases == 1 else f"{self.n_cases} inputs"
        return f"✓ exercise {self.key}: {self.name} gives what {self.library} gives on {inputs}"


def _call(ex: Exercise, answer: Callable, case: Case) -> Any:
    try:
        return answer(*case.args)
    except NotImplementedError:  # the student edition's stub
        raise ExerciseError(
            f"Exercise {ex.key}: {ex.name} is not written yet. In the answer cell above, replace "
            f"`raise NotImplementedError` with the body of `def {ex.signature}`: {ex.task}. Run "
            f"that cell, then this one.\nHint: {ex.hint}."
        ) from None
    except Exception as err:  # the student's code failed: say where, keep the cause
        raise ExerciseError(
            f"Exercise {ex.key}: {ex.name} raised {type(err).__name__}: {err}\n"
            f"Input: {case.label}.\nThe exercise asks for `def {ex.signature}`: {ex.task}.\n"
            f"Hint: {ex.hint}."
        ) from err


def _show(value: Any) -> str:
    try:
        ndim = np.ndim(value)
    except ValueError:  # not one array: a ragged list ([[1, 2], [3]]) is shown as written
        return repr(value)
    return np.array2string(np.asarray(value), precision=6, threshold=12) if ndim else repr(value)


def _same_numbers(expected: Any, got: Any, exact: bool) -> bool:
    try:
        e, g = np.asarray(expected), np.asarray(got)
        if exact or e.shape != g.shape:
            return e.shape == g.shape and bool(np.array_equal(e, g))
        close = np.allclose(g.astype(float), e.astype(float), rtol=RTOL, atol=0, equal_nan=True)
        return bool(close)
    except (TypeError, ValueError):
        return False


def _sympy_problem(ex: Exercise, case: Case, got: Any) -> str | None:
    """None if ``got`` equals the expected expression; else what differs, at :data:`_POINT`."""
    if not isinstance(got, sp.Expr):
        build = "build it from the symbols of S (and SP)"
        return f"{ex.name} returned {type(got).__name__} {got!r}, not a sympy expression: {build}"
    difference = sp.simplify(sp.expand(got - case.expected))
    if difference == 0:
        return None
    at = {s: v for s, v in _POINT.items() if s in case.expected.free_symbols | got.free_symbols}
    unknown = sorted(map(str, got.free_symbols - case.expected.free_symbols))
    extra = f" It uses symbols the kit's does not: {unknown}." if unknown else ""
    expected = f"expected {float(case.expected.subs(at)):.6g}"
    yours = _number(got.subs(at)) if not unknown else "?"
    return f"yours − kit's = {sp.factor(difference)}.{extra}\nAt {at}: {expected}, got {yours}"


def _number(value: sp.Expr) -> float | str:
    """``value`` as a float where it is a real number, else as sympy writes it (zoo, 2*I)."""
    try:
        return float(value)
    except TypeError:
        return str(value)


def grade(ex: Exercise, answer: Callable) -> Passed:
    """Run the graded exercise ``ex`` on ``answer`` (the student's function): :class:`Passed`,
    or :class:`ExerciseError` saying which input, expected, got, and a hint."""
    if not callable(answer):
        raise ExerciseError(
            f"Exercise {ex.key}: check() wants the function itself, got {type(answer).__name__} "
            f"{answer!r}. Write `def {ex.signature}:` in the answer cell and pass {ex.name}."
        )
    cases = ex.cases()
    for case in cases:
        got = _call(ex, answer, case)
        if ex.kind == "sympy":
            problem = _sympy_problem(ex, case, got)
        else:
            same = _same_numbers(case.expected, got, exact=ex.kind == "exact")
            problem = None if same else f"expected {_show(case.expected)}, got {_show(got)}"
        if problem:
            raise ExerciseError(
                f"Exercise {ex.key}: {ex.name} differs from the kit's {ex.library}.\n"
                f"Input: {case.label}.\n{problem}\nHint: {ex.hint}."
            )
    return Passed(ex.key, ex.name, ex.library, len(cases))


@dataclass(frozen=True)
class PlanQuestion:
    """A question the dashboard answers: the cheapest plan that meets an SLA at a rate."""

    key: str
    llm: str
    rate_qps: float
    itl_sla_ms: float


PLAN_QUESTIONS = {"lab.1": PlanQuestion("lab.1", "meta-llama/Llama-3.1-8B-Instruct", 2.0, 50.0)}


def dashboard_ranking(q: PlanQuestion) -> pd.DataFrame:
    """The dashboard's table for the question, as its controls would hold it (a custom rate, every
    default GPU, "best" GPUs per replica, the default tokens): :func:`explorer.explorer_ranking`."""
    controls = explorer.ExplorerControls(
        llm=q.llm, load="custom rate", rate_qps=q.rate_qps, itl_sla_ms=q.itl_sla_ms
    )
    return explorer.explorer_ranking(controls)


def check_pick(key: str, gpu: str, num_gpus: int) -> Passed:
    """Check a plan read off the dashboard (GPU type, GPUs per replica) against the dashboard's
    own pick for the question ``key``: the first plan of its ranking that meets the SLA."""
    if key not in PLAN_QUESTIONS:
        raise InvalidInputError(f"no lab question {key!r}; there are {sorted(PLAN_QUESTIONS)}")
    q = PLAN_QUESTIONS[key]
    table = dashboard_ranking(q)
    pick = table[table["meets_sla"]].iloc[0]
    if gpu == pick["gpu"] and int(num_gpus) == int(pick["num_gpus"]):
        return Passed(key, f"{gpu} ×{int(num_gpus)}", "the dashboard's pick", 1)
    sla = f"{q.rate_qps:g} req/s under an ITL SLA of {q.itl_sla_ms:g} ms"
    where = f"the question: {q.llm} at {sla}, 'best' GPUs per replica"
    if gpu not in set(table["gpu"]):
        close = difflib.get_close_matches(gpu, table["gpu"].tolist(), n=3, cutoff=0.4)
        not_in = f"{gpu!r} is not a GPU of the dashboard's table for {where}"
        raise ExerciseError(f"Lab {key}: {not_in}; close: {close}.")
    row = table[table["gpu"] == gpu].iloc[0]
    if int(num_gpus) != int(row["num_gpus"]):
        count = f"the dashboard's least-energy count is not {int(num_gpus)} GPUs per replica"
        raise ExerciseError(f"Lab {key}: for {gpu} {count}; read the plan column of {where}.")
    less = table["energy_per_1k_tokens_j"] < row["energy_per_1k_tokens_j"]
    cheaper = f"{int((table['meets_sla'] & less).sum())} plan(s) that meet the SLA use less energy"
    hint = "a plan that misses the SLA never wins; among those that meet it, the least energy"
    plan = f"{gpu} ×{int(num_gpus)} ({row['verdict']} the SLA)"
    raise ExerciseError(
        f"Lab {key}: {plan} is not the pick: {cheaper} per 1,000 tokens ({where}).\n"
        f"Hint: {hint} per 1,000 tokens does."
    )
