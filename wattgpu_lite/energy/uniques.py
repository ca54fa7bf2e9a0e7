"""Distinct objects of a long list, by identity: the kit's tables name a few LLMs and GPUs many
times, and hashing a frozen dataclass field by field for every row would cost more than the
prediction."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

FEW = 64  # objects: below this, unique_by_identity's dict loop beats pandas' factorize


class Coded(Sequence):
    """A long sequence of few distinct objects, held as the objects and each row's index into
    them (``distinct[code[i]]`` is row i): :func:`unique_by_identity` and :func:`subset` read
    the codes, never a row's object. The codes are int64, or int32 when given so (a long
    table's, held narrow: :func:`narrow`)."""

    def __init__(self, distinct: Sequence, code: np.ndarray) -> None:
        code = np.asarray(code)
        self.distinct = list(distinct)
        self.code = code if code.dtype == np.int32 else np.asarray(code, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.code)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Coded(self.distinct, self.code[i])
        return self.distinct[self.code[i]]

    def __iter__(self):
        return iter(take(self.distinct, self.code))


def narrow(coded: Coded) -> Coded:
    """``coded`` with int32 codes (half the memory of a long table's; fewer than 2^31 distinct
    objects), the same objects row for row."""
    return Coded(coded.distinct, coded.code.astype(np.int32))


class Hashed(tuple):
    """(hash, object): an object with its hash computed once, standing for it in a cache's key (a
    table's ~10^3 configurations would hash their frozen LLM and GPU field by field, ~0.5 µs
    each, at every lookup). Two are equal when their objects are, compared by the tuple's own C
    code (the same object: no call of its ``__eq__``)."""

    __slots__ = ()

    def __new__(cls, value) -> Hashed:
        return super().__new__(cls, (hash(value), value))

    def __hash__(self) -> int:
        return self[0]

    @property
    def value(self):
        return self[1]


def hashed_at(objects: Sequence, rows) -> list:
    """``[objects[i] for i in rows]``, each distinct object (by identity) wrapped once in a
    :class:`Hashed`; the objects themselves when one cannot be hashed (its cache's own
    TypeError path then builds it afresh). A :class:`Coded` sequence's own codes are read at
    ``rows`` alone (each distinct object it holds wrapped once)."""
    if isinstance(objects, Coded):
        distinct, code = objects.distinct, objects.code[rows]
    else:
        distinct, code = unique_by_identity(objects)
        code = code[rows]
    try:
        kept = [Hashed(o) for o in distinct]
    except TypeError:
        kept = distinct
    return [kept[k] for k in code.tolist()]


def unhashed(value):
    """The object a :class:`Hashed` stands for (any other value as it is)."""
    return value.value if isinstance(value, Hashed) else value


def by_value(values: Sequence, code: np.ndarray) -> Coded:
    """``Coded(values, code)`` with equal values (hashable ones) one object: a table's groups of
    rows each check their own layout and formats, mostly equal to the others', so a few distinct
    objects reach what follows, not one per group. The same object is hashed once
    (:func:`unique_by_identity` first)."""
    distinct, at = unique_by_identity(values)
    index: dict = {}
    remap = np.array([index.setdefault(v, len(index)) for v in distinct], dtype=np.int64)
    return Coded(list(index), remap[at][code])


def subset(objects: Sequence, rows: np.ndarray) -> Sequence:
    """The rows ``rows`` (indices) of ``objects``: a :class:`Coded` keeps its codes."""
    if isinstance(objects, Coded):
        return Coded(objects.distinct, objects.code[rows])
    return [objects[i] for i in rows]


def unique_by_identity(objects: Sequence) -> tuple[list, np.ndarray]:
    """Distinct objects (the same object, by ``id``: no hashing of dataclass fields), in the order
    they first appear, and each row's index into them. Equal objects built apart are simply
    computed twice. The ids are factorised by pandas (a hash table in C, codes in order of first
    appearance), so a code's first row is where the running maximum of the codes rises. Up to
    :data:`FEW` objects (a single prediction, a ranking's rows) a dict does it: pandas' call
    costs more than the loop there. A :class:`Coded` sequence gives its codes, renumbered."""
    if isinstance(objects, Coded):
        code, used = pd.factorize(objects.code)
        return [objects.distinct[k] for k in used], code.astype(np.int64)
    if len(objects) <= FEW:
        code_of: dict[int, int] = {}
        distinct: list = []
        for o in objects:
            if id(o) not in code_of:
                code_of[id(o)] = len(distinct)
                distinct.append(o)
        return distinct, np.array([code_of[id(o)] for o in objects], dtype=np.int64)
    ids = np.fromiter(map(id, objects), dtype=np.uint64, count=len(objects))
    codes = pd.factorize(ids)[0].astype(np.int64)
    rises = np.ones(len(codes), dtype=bool)
    rises[1:] = codes[1:] > np.maximum.accumulate(codes)[:-1]
    return [objects[i] for i in np.flatnonzero(rises)], codes


def unique_rows(columns: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of equal-length integer code columns: each row's group, numbered in the
    order of the groups' first rows, and each group's first row. The columns are paired one at a
    time, g · (max c + 1) + c factorised again by pandas (a hash table in C: no sort, as
    ``np.unique(axis=0)`` needs; both factors stay below the row count, so no overflow)."""
    group = np.zeros(len(columns[0]), dtype=np.int64)
    for c in columns:
        c = np.asarray(c, dtype=np.int64)
        c = c - c.min() if len(c) else c  # pandas codes a blank -1
        group = pd.factorize(group * (int(c.max(initial=0)) + 1) + c)[0].astype(np.int64)
    rises = np.ones(len(group), dtype=bool)
    rises[1:] = group[1:] > np.maximum.accumulate(group)[:-1]
    return group, np.flatnonzero(rises)


def dense_groups(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's group renumbered from 0, in the order of the groups' own codes, and one row of
    each group (any: the caller's groups are of equal rows), from an array as long as the
    codes reach, not a hash table: codes from 0 to a few times the row count (a checked frame's
    groups); any others through :func:`unique_rows`."""
    groups = np.asarray(groups, dtype=np.int64)
    if not len(groups) or groups.min() < 0 or groups.max() > 4 * len(groups):
        return unique_rows([groups])
    row = np.zeros(int(groups.max()) + 1, dtype=np.int64)
    row[groups] = np.arange(len(groups))  # a repeated code keeps one of its rows
    used = np.zeros(len(row), dtype=bool)
    used[groups] = True
    return (np.cumsum(used) - 1)[groups], row[used]


def take(values: Sequence, codes: np.ndarray) -> list:
    """``[values[k] for k in codes]``, gathered by numpy (objects kept, not converted)."""
    box = np.empty(len(values), dtype=object)
    for k, v in enumerate(values):
        box[k] = v
    return box[codes].tolist()


def frame_key(frame: pd.DataFrame, columns: Sequence[str]) -> tuple:
    """``frame``'s ``columns`` as an exact, hashable key that holds their values (a cache's key
    a frame can be rebuilt from, :func:`key_frame`): a number column's bytes, a text column's
    lengths and its joined text (a fraction of a millisecond for 1,500 rows, where a tuple of the
    rows takes 7); a table with any other column: its rows as tuples."""
    parts = []
    for col in columns:
        values = frame[col].to_numpy()
        texts = values.tolist() if values.dtype.kind == "O" else None
        if values.dtype.kind in "biuf":
            parts.append((values.dtype.str, values.tobytes()))
        elif texts is not None and all(type(t) is str for t in texts):
            lengths = np.array([len(t) for t in texts], dtype=np.int64)
            parts.append(("text", lengths.tobytes(), "".join(texts)))
        else:
            return ("rows", tuple(frame[list(columns)].itertuples(index=False, name=None)))
    return ("columns", tuple(parts))


def key_frame(key: tuple, columns: Sequence[str]) -> pd.DataFrame:
    """The frame of ``columns`` a :func:`frame_key` key holds (index 0 to n − 1)."""
    if key[0] == "rows":
        return pd.DataFrame(list(key[1]), columns=list(columns))
    out = {}
    for col, (kind, data, *text) in zip(columns, key[1], strict=True):
        if kind == "text":
            ends = np.cumsum(np.frombuffer(data, dtype=np.int64)).tolist()
            starts = [0, *ends][:-1]
            out[col] = [text[0][a:b] for a, b in zip(starts, ends, strict=True)]
        else:
            out[col] = np.frombuffer(data, dtype=np.dtype(kind))
    return pd.DataFrame(out)
