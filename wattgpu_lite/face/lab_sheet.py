"""The dashboard lab sheet's check (notebooks/dashboard_lab.md): a plan read off the dashboard,
checked against the dashboard's own pick (``exercises.check_pick`` re-exports :func:`check_pick`)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import pandas as pd

from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.face import explorer
from wattgpu_lite.face.grading import ExerciseError, Passed


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
