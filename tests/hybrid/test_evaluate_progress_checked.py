"""wl.evaluate's progress is True or False: progress="no" was read as true (a progress bar), and
the hybrid's evaluation, whose figures are shipped tables, took progress= silently although its
docstring refuses it."""

from __future__ import annotations

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError


@pytest.mark.parametrize("progress", ["no", 0, 1.0])
def test_progress_that_is_no_boolean_is_refused_by_name(progress):
    with pytest.raises(InvalidInputError, match=r"evaluate: progress must be a boolean, got"):
        wl.evaluate("power", "logo", progress=progress)


@pytest.mark.parametrize("progress", [True, False])
def test_the_hybrid_refuses_progress_as_features_and_reading(progress):
    with pytest.raises(InvalidInputError, match=r"progress= re-score WattGPU"):
        wl.evaluate(model="hybrid", progress=progress)
    assert len(wl.evaluate(model="hybrid")) > 0  # without it: the shipped tables
