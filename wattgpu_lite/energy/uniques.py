"""Distinct objects of a long list, by identity: the kit's tables name a few LLMs and GPUs many
times, and hashing a frozen dataclass field by field for every row would cost more than the
prediction."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def unique_by_identity(objects: Sequence) -> tuple[list, np.ndarray]:
    """Distinct objects (the same object, by ``id``: no hashing of dataclass fields) and each
    row's index into them. Equal objects built apart are simply computed twice."""
    index: dict[int, int] = {}
    first: list = []
    codes = np.empty(len(objects), dtype=np.int64)
    for i, o in enumerate(objects):
        k = index.get(id(o))
        if k is None:
            k = index[id(o)] = len(first)
            first.append(o)
        codes[i] = k
    return first, codes
