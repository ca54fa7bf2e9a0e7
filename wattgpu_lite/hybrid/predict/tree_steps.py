"""A forest's code tables (:class:`Tables`, :func:`forest_tables`: steps 1-3 of
:mod:`~wattgpu_lite.hybrid.predict.trees`), and the codes one column's splits give its trees, as a
step function of the column's value (:class:`ColumnSteps`).

A split sends a row right when x >= threshold (float32), or by its default branch when x is
missing (:mod:`~wattgpu_lite.hybrid.predict.trees`). On one column the splits that send x right are
those whose threshold is at most x: with the column's distinct thresholds sorted,
θ_1 < θ_2 < ... < θ_u, and j = #{θ_i <= x} (``np.searchsorted(θ, x, side="right")``), the column
adds to tree t's code

    c_t(x) = S[j, t],  S[j, t] = Σ_{splits s on the column, θ_s among θ_1..θ_j} w_{s,t}

(S[u + 1] for a missing x: the splits whose default branch is right), w the powers of two of
:class:`Tables`. The codes are whole numbers, so the table gives exactly what the (rows × splits)
tests and their matrix product give, at one search and one gather per row and column instead of a
test of every split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TABLE_SPLITS = 10  # a tree with at most this many splits is read through a 2^splits-leaf table


@dataclass(frozen=True)
class ColumnSteps:
    """One column's sorted distinct thresholds and the code table S (module docstring)."""

    thresholds: np.ndarray  # (u,) float32, increasing
    codes: np.ndarray  # (u + 2, trees) integers: S[j], j thresholds passed; S[u + 1]: missing

    def passed(self, value: np.ndarray) -> np.ndarray:
        """j per value (float32) of this column: the thresholds at most x (u + 1 for a missing
        x), the row of S (``codes``) that gives its codes c_t(x)."""
        value = np.asarray(value, dtype=np.float32)  # compared in float32, as XGBoost does
        j = np.searchsorted(self.thresholds, value, side="right")
        j[np.isnan(value)] = len(self.thresholds) + 1
        return j


def column_steps(
    feature: np.ndarray,
    threshold: np.ndarray,
    missing_right: np.ndarray,
    weights: np.ndarray,
    *,
    column: int,
    dtype=np.intp,
) -> ColumnSteps:
    """The :class:`ColumnSteps` of ``column`` from a forest's distinct splits (their feature,
    float32 threshold, default branch and (splits × trees) code weights, whole numbers), its
    codes of the integer ``dtype`` (the forest's codes')."""
    mine = feature == column
    thresholds = np.unique(threshold[mine])
    w = np.rint(weights[mine]).astype(dtype)
    table = np.zeros((len(thresholds) + 2, weights.shape[1]), dtype=dtype)
    np.add.at(table, np.searchsorted(thresholds, threshold[mine]) + 1, w)
    table[: len(thresholds) + 1] = np.cumsum(table[: len(thresholds) + 1], axis=0)
    table[-1] = w[missing_right[mine]].sum(axis=0)
    return ColumnSteps(thresholds, table)


@dataclass(frozen=True)
class Tables:
    """The forest as distinct splits, code weights and one leaf table per tree (steps 1-3)."""

    feature: np.ndarray  # (splits,) feature tested by each distinct split
    threshold: np.ndarray  # (splits,) float32
    missing_right: np.ndarray  # (splits,) bool: a missing value goes right
    weights: np.ndarray  # (splits, trees) float32: Σ 2^k over the nodes k of tree t with this split
    leaves: np.ndarray  # (trees · 2^bits,) float32: the leaf of code c of tree t at t·2^bits + c
    offsets: np.ndarray  # (trees,) t · 2^bits, of the codes' dtype (:func:`code_dtype`)
    steps: tuple[ColumnSteps, ...] = ()  # per feature column: its splits' codes by value

    def leaves_of(self, x: np.ndarray) -> np.ndarray:
        """(rows, trees) float32 leaf values of the rows of ``x`` (float32, ≤ a chunk)."""
        return self.leaves_at(self.codes(x))

    def codes(self, x: np.ndarray, splits: np.ndarray | slice = slice(None)) -> np.ndarray:
        """(rows, trees) codes c_t (step 2) of the rows of ``x`` (float32, ≤ a chunk) from the
        distinct splits ``splits`` only (a mask; all by default). The codes of disjoint sets of
        splits add up to the code of their union (whole numbers: exact)."""
        value = x[:, self.feature[splits]]
        right = value >= self.threshold[splits]
        missing = np.isnan(value)
        if missing.any():
            right |= missing & self.missing_right[splits]
        return (right.astype(np.float32) @ self.weights[splits]).astype(self.offsets.dtype)

    def leaves_at(self, code: np.ndarray) -> np.ndarray:
        """(rows, trees) float32 leaf values of whole codes (step 3)."""
        return self.leaves[code + self.offsets]


def forest_tables(forest) -> Tables | None:
    """Steps 1-3 of :mod:`~wattgpu_lite.hybrid.predict.trees` from a ``Forest``'s flat arrays, or
    None if a tree has more than :data:`TABLE_SPLITS` splits. Split k of a tree is its k-th
    internal node in node order."""
    n_trees, width = len(forest.roots), len(forest.feature) // len(forest.roots)
    inner = (forest.left != np.arange(len(forest.left))).reshape(n_trees, width)
    bits = int(inner.sum(axis=1).max())
    if bits > TABLE_SPLITS:
        return None
    k = (np.cumsum(inner, axis=1) - 1).ravel()  # split number of each internal node in its tree
    tree, node = np.nonzero(inner)
    node += tree * width
    keys = np.column_stack(
        [forest.feature[node], forest.threshold[node].view(np.int32), forest.default_left[node]]
    )
    distinct, which = np.unique(keys, axis=0, return_inverse=True)
    weights = np.zeros((len(distinct), n_trees), np.float32)
    np.add.at(weights, (which.ravel(), tree), 2.0 ** k[node])
    code = np.arange(2**bits)
    at = np.broadcast_to(forest.roots[:, None], (n_trees, len(code))).copy()
    for _ in range(forest.depth):
        right = (code >> np.maximum(k[at], 0)) & 1 == 1
        at = np.where(right, forest.right[at], forest.left[at])  # a leaf points to itself
    split = {
        "feature": distinct[:, 0].astype(np.intp),
        "threshold": distinct[:, 1].astype(np.int32).view(np.float32),
        "missing_right": distinct[:, 2] == 0,
        "weights": weights,
    }
    dtype = code_dtype(n_trees, bits)
    steps = tuple(column_steps(**split, column=c, dtype=dtype) for c in range(forest.n_features))
    offsets = np.arange(n_trees, dtype=dtype) << bits
    return Tables(**split, leaves=forest.threshold[at].ravel(), offsets=offsets, steps=steps)


def code_dtype(n_trees: int, bits: int) -> np.dtype:
    """The integer type of a forest's codes and leaf offsets: int32 when every offset plus code
    (below trees · 2^bits) fits it (half the bytes to gather and add), else intp."""
    return np.dtype(np.int32 if n_trees << bits <= np.iinfo(np.int32).max else np.intp)
