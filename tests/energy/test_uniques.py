"""Distinct objects by identity: in the order they first appear, each row's code the index of its
object, equal objects built apart kept apart; ``take`` gathers objects back by code."""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy.uniques import FEW, take, unique_by_identity


def by_dict(objects: list) -> tuple[list, list[int]]:
    """The definition, one row at a time."""
    index: dict[int, int] = {}
    first: list = []
    for o in objects:
        if id(o) not in index:
            index[id(o)] = len(first)
            first.append(o)
    return first, [index[id(o)] for o in objects]


def test_codes_follow_first_appearance_and_identity():
    rng = np.random.default_rng(0)
    pool = [tuple(["a", 1]), tuple(["a", 1]), ["x"], 2.5, None, "fp8"]  # equal, not one object
    for n in (1, 7, FEW, FEW + 1, 5000):  # both sides of FEW: the dict loop and pandas' factorize
        objects = [pool[k] for k in rng.integers(0, len(pool), n)]
        distinct, codes = unique_by_identity(objects)
        first, expected = by_dict(objects)
        assert codes.dtype == np.int64 and codes.tolist() == expected
        assert len(distinct) == len(first) and all(
            a is b for a, b in zip(distinct, first, strict=True)
        )
    assert len(distinct) == 6
    assert unique_by_identity([])[0] == [] and len(unique_by_identity([])[1]) == 0


def test_take_gathers_the_objects_themselves():
    values = [("tp", 2), ("tp", 4), None]
    out = take(values, np.array([2, 0, 0, 1]))
    assert out == [None, ("tp", 2), ("tp", 2), ("tp", 4)] and out[1] is values[0]
