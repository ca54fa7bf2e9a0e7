"""wl.WattGPU().fit(runs) and wl.HybridModel().fit(runs) check the runs table before fitting: a
missing or mistyped column, a non-positive or NaN measurement, a misspelt scenario or a blank
name is an InvalidInputError naming the column and the fix (it was a pandas KeyError, a NumPy
TypeError, scikit-learn's '0 sample(s)', or — the scenario — a fit on it, silently)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.runs.training import check_training_runs

FITS = {
    "WattGPU().fit": lambda runs: wl.WattGPU().fit(runs),
    "HybridModel().fit": lambda runs: wl.HybridModel().fit(runs),
}


@pytest.fixture(scope="module")
def runs():
    return wl.measurements()


def _bad(runs):
    first = runs.index[0]
    return {
        "no power_w": (runs.drop(columns=["power_w"]), r"lacks the column\(s\) \['power_w'\]"),
        "text power": (
            runs.assign(power_w=runs["power_w"].astype(str)),
            r"'power_w' must hold numbers",
        ),
        "text dense": (
            runs.assign(dense=runs["dense"].astype(str)),
            r"'dense' must be True or False",
        ),
        "negative": (
            runs.assign(power_w=-runs["power_w"]),
            r"'power_w' must be > 0 and finite; 4748 rows",
        ),
        "nan itl": (
            runs.assign(itl_s=runs["itl_s"].where(runs.index != first, np.nan)),
            r"'itl_s' .* 1 rows are not \(rows \[0\]",
        ),
        "zero itl": (runs.assign(itl_s=0.0), r"'itl_s' must be > 0"),
        "scenario": (runs.assign(scenario="offlin"), r"\['offlin'\] \(did you mean 'offline'\?\)"),
        "blank gpu": (
            runs.assign(gpu=runs["gpu"].where(runs.index != first, None)),
            r"'gpu' is not a name in rows \[0\]",
        ),
        "empty": (runs.iloc[:0], r"no dense row"),
        "no dense": (runs[~runs["dense"]], r"no dense row"),
        "a list": ([1, 2], r"must be a DataFrame, got list"),
    }


@pytest.mark.parametrize("who", FITS)
def test_a_bad_runs_table_is_refused_by_column_before_any_fit(runs, who):
    for frame, message in _bad(runs).values():
        with pytest.raises(InvalidInputError, match=rf"{re.escape(who)}: .*{message}"):
            FITS[who](frame)


def test_the_shipped_table_and_rows_of_it_pass_unchanged(runs):
    assert check_training_runs(runs, "fit") is runs
    one_gpu = runs[runs["gpu"] == "L4"]
    assert check_training_runs(one_gpu, "fit") is one_gpu


def test_the_hybrid_says_how_many_gpus_and_llms_its_protocol_needs(runs):
    one_gpu, llms = runs[runs["gpu"] == "L4"], runs["llm"].unique()
    four_llms = runs[runs["llm"].isin(llms[:4])]
    for frame, counts in ((one_gpu, r"of 1 GPU\(s\)"), (four_llms, r"GPU\(s\) and 4 LLM\(s\)")):
        with pytest.raises(InvalidInputError, match=rf"{counts}.*2 GPUs or more and 5 LLMs"):
            wl.HybridModel().fit(frame)
