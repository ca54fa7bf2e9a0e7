"""Many calls of the physics over the same rows as ONE call: :func:`physical_evaluate_each`.

    physical_evaluate_each([call_a, call_b])   # == [physical_evaluate(**c) for c in calls]

The calls' arguments are stacked over a (calls, rows) grid (:func:`stacked_calls`), evaluated
once by :func:`~wattgpu_lite.energy.physical.physical_evaluate` (elementwise: the same values,
one call's overhead) and split back into calls (:func:`split_calls`).
"""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy.physical import RECORDS, as_record, physical_evaluate


def physical_evaluate_each(calls: list[dict]) -> list[tuple[dict, dict]]:
    """``[physical_evaluate(**call) for call in calls]`` for calls over the same 1-D rows, from ONE
    call over a (calls, rows) grid (:func:`stacked_calls`). The generated function is
    elementwise: the same values, one call's overhead."""
    return split_calls(physical_evaluate(**stacked_calls(calls)), len(calls))


def stacked_calls(calls: list[dict]) -> dict:
    """physical_evaluate's arguments (model, workload, hardware, kappa, deploy) of calls over the
    same 1-D rows as one call over a (calls, rows) grid: an argument every call passes as the
    same object stays one row, broadcast; the others are stacked."""
    stacked = {}
    for name, record in RECORDS.items():
        fields = zip(*(as_record(name, c[name]) for c in calls), strict=True)
        stacked[name] = record._make(_stacked(list(f)) for f in fields)
    return stacked | {"kappa": _stacked([c["kappa"] for c in calls])}


def split_calls(found: tuple[dict, dict], count: int) -> list[tuple[dict, dict]]:
    """An evaluation of :func:`stacked_calls`' arguments, split into its ``count`` calls."""
    terms, times = found
    return [
        ({k: v[i] for k, v in terms.items()}, {k: v[i] for k, v in times.items()})
        for i in range(count)
    ]


def _stacked(values: list):
    """One argument's values, one per call: the first if all are it, else a (calls, 1) column
    of scalars or a (calls, rows) array."""
    if all(v is values[0] for v in values):
        return values[0]
    out = np.empty((len(values), max(_size(v) for v in values)))
    for i, v in enumerate(values):
        out[i] = v
    return out


def _size(value) -> int:
    """np.size of an argument's value: an array's (or a numpy scalar's) own, 1 for a Python
    number (np.size would build an array of it first)."""
    if isinstance(value, np.ndarray | np.generic):
        return value.size
    return 1 if isinstance(value, float | int) else np.size(value)
