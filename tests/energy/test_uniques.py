"""Distinct objects by identity: in the order they first appear, each row's code the index of its
object, equal objects built apart kept apart; ``take`` gathers objects back by code."""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy.uniques import (
    FEW,
    Coded,
    Hashed,
    hashed_at,
    narrow,
    subset,
    take,
    unhashed,
    unique_by_identity,
    unique_rows,
)


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


def test_unique_rows_groups_equal_rows_in_order_of_first_appearance():
    """The groups of np.unique(axis=0), renumbered by first row; blanks (-1) and codes near the
    row count do not collide."""
    rng = np.random.default_rng(1)
    n = 3000
    cols = [rng.integers(-1, 3, n), rng.integers(0, n, n) % 7, rng.integers(0, 2, n) * (n - 1)]
    group, first = unique_rows(cols)
    key = np.column_stack(cols)
    _, expected_first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    assert sorted(first.tolist()) == sorted(expected_first.tolist()) and np.all(np.diff(first) > 0)
    assert np.array_equal(key[first[group]], key)  # each row in the group of an equal row
    assert len(first) == len(expected_first) and group.max() == len(first) - 1
    assert np.array_equal(group[first], np.arange(len(first)))  # numbered by first appearance
    assert np.array_equal(inverse.reshape(-1)[first][group], inverse.reshape(-1))


def test_hashed_stands_for_its_object_in_a_key_and_each_distinct_object_is_hashed_once():
    """A Hashed key finds the entry another Hashed of an equal object made (built apart
    included), with its object's hash; hashed_at wraps each distinct object once, and leaves
    unhashable ones."""
    a, b, other = ("tp", 2, (1.0, 2.0)), ("tp", 2, (1.0, 2.0)), ("tp", 4, (1.0, 2.0))
    kept = {(Hashed(a), "fp8"): 1}
    assert kept[(Hashed(b), "fp8")] == 1 and (Hashed(other), "fp8") not in kept
    assert Hashed(a) == Hashed(b) and Hashed(a) != Hashed(other) and hash(Hashed(a)) == hash(b)
    assert Hashed(b).value is b
    rows = Coded([a, other], np.array([1, 0, 0, 1, 0]))
    got = hashed_at(rows, np.array([4, 0, 1, 2]))
    assert [unhashed(x) for x in got] == [a, other, a, a] and got[2] is got[0] is got[3]
    assert unhashed(got[1]) is other and unhashed("fp8") == "fp8"
    loose = [[1], [2]]
    assert hashed_at(loose, np.array([1, 0])) == [[2], [1]]  # unhashable: the objects themselves


def test_by_value_codes_equal_values_as_one_object():
    from wattgpu_lite.energy.uniques import by_value
    from wattgpu_lite.specs.layout import Parallel

    values = [Parallel(1), Parallel(2), Parallel(1), "fp8", None]
    coded = by_value(values, np.array([4, 0, 2, 1, 3, 2]))
    assert list(coded) == [None, Parallel(1), Parallel(1), Parallel(2), "fp8", Parallel(1)]
    assert coded.distinct == [Parallel(1), Parallel(2), "fp8", None] and coded[1] is coded[2]
    assert coded.distinct[0] is values[0] and coded.code.tolist() == [3, 0, 0, 1, 2, 0]


def test_a_narrowed_coded_sequence_keeps_its_objects_and_int32_codes_through_subsets():
    objects = [("a",), ("b",), ("c",)]
    wide = Coded(objects, np.array([2, 0, 2, 1, 0]))
    thin = narrow(wide)
    assert wide.code.dtype == np.int64 and thin.code.dtype == np.int32
    assert list(thin) == list(wide) and all(a is b for a, b in zip(thin, wide, strict=True))
    part = subset(thin, np.array([4, 0]))
    assert part.code.dtype == np.int32 and list(part) == [objects[0], objects[2]]
    distinct, code = unique_by_identity(thin)
    assert code.dtype == np.int64 and [distinct[k] for k in code] == list(wide)
