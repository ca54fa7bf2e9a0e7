"""Evaluating an XGBoost regression forest from its JSON, with numpy alone.

A prediction needs no XGBoost import (which costs about a second on a cold start). Rows go through
in chunks of :data:`CHUNK_ROWS`, so the work arrays have one size however many rows come, and rows/s
stay flat. XGBoost's rule, in float32 as XGBoost compares: go left when x < threshold, the default
branch when x is missing (NaN). The output is base_score + the sum of the leaves, the leaves summed
in float32 by numpy's ``sum`` over each row's trees (pairwise; XGBoost adds tree by tree, so the two
differ by float32 rounding). A chunk's leaves, when every tree has at most ``TABLE_SPLITS``
splits (the shipped corrections have 7), come from codes and tables:

1. each distinct split (feature, threshold, default branch) of the forest is tested once per row:
   right = x >= threshold, or the default branch when x is missing;
2. the splits of tree t, numbered k = 0, 1, ... in its node order, give the row the code
   c_t = Σ_k 2^k · right_k: one matrix product of the (rows × splits) 0/1 tests with a (splits ×
   trees) matrix of those powers of two (whole numbers below 2^24: exact in float32 in any order);
3. a table per tree, built once by walking the tree for every code, gives the leaf of c_t.

Rows that share all but a few columns (a table's (LLM, GPU) pairs at many loads) take the codes of
the shared columns once (:meth:`Forest.fixed_codes`) and those of each moving column from its step
table: the same codes, one search per column. The tables of steps 1-3 and the step tables are
built in :mod:`~wattgpu_lite.hybrid.predict.tree_steps`.

A forest with a deeper tree is walked instead: the nodes of every tree lie in one flat array (node
``t·width + j`` of tree ``t``), a leaf (and the padding) points to itself on both sides, and every
row takes ``depth`` steps down all trees at once. Both give the same leaves, hence the same
float32 sums. ``tests/hybrid/test_hybrid_trees.py`` checks both against XGBoost and each other.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from wattgpu_lite.energy.uniques import unique_rows
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.predict.tree_steps import Tables, forest_tables

CHUNK_ROWS = 1024  # rows per chunk: the work arrays (~1 MB) stay in cache, rows/s flat in n


@dataclass(frozen=True)
class FixedCodes:
    """Per row, the codes from the splits on the columns that stay fixed
    (:meth:`Forest.fixed_codes`), and the mask of the distinct splits left to test."""

    code: np.ndarray  # (rows, trees) of the codes' dtype (:func:`code_dtype`)
    moving: np.ndarray  # (splits,) bool: the splits on the moving columns
    columns: tuple[int, ...] = ()  # the moving columns


@dataclass(frozen=True, eq=False)
class Forest:
    """Flat node arrays of every tree (a leaf's children are itself), the base score, and the
    same trees as :class:`Tables` (None when a tree has more than ``TABLE_SPLITS`` splits).
    Compared and hashed by identity (its arrays cannot be compared as a whole): one parsed text
    is one forest, a key of the codes kept for it
    (:mod:`~wattgpu_lite.hybrid.predict.correction`)."""

    feature: np.ndarray  # (trees · width,) int32
    threshold: np.ndarray  # float32; the leaf value on leaves
    left: np.ndarray  # int32 global ids
    right: np.ndarray
    default_left: np.ndarray  # bool
    roots: np.ndarray  # (trees,) int32 global id of each root
    base_score: float
    depth: int
    n_features: int  # columns a row must have (num_feature of the model)
    tables: Tables | None = None

    @classmethod
    def from_json(cls, text: str | bytes) -> Forest:
        """From the text of ``Booster.save_raw("json")`` / ``save_model("x.json")``."""
        learner = json.loads(text)["learner"]
        trees = learner["gradient_booster"]["model"]["trees"]
        width = max(len(t["left_children"]) for t in trees)
        parts = {k: [] for k in ("feature", "threshold", "left", "right", "default_left")}
        for i, t in enumerate(trees):
            n, base = len(t["left_children"]), i * width
            own, pad = np.arange(n) + base, np.arange(n, width) + base  # padding: never reached
            left, right = np.asarray(t["left_children"]), np.asarray(t["right_children"])
            leaf = left < 0
            parts["feature"].append(np.r_[t["split_indices"], np.zeros(len(pad), int)])
            parts["threshold"].append(np.r_[t["split_conditions"], np.zeros(len(pad))])
            parts["left"].append(np.r_[np.where(leaf, own, left + base), pad])
            parts["right"].append(np.r_[np.where(leaf, own, right + base), pad])
            parts["default_left"].append(np.r_[t["default_left"], np.zeros(len(pad), bool)])
        flat = {k: np.concatenate(v) for k, v in parts.items()}
        base = float(np.float32(str(learner["learner_model_param"]["base_score"]).strip("[]")))
        roots = (np.arange(len(trees)) * width).astype(np.int32)
        n_features = int(learner["learner_model_param"]["num_feature"])
        forest = cls(
            feature=flat["feature"].astype(np.int32),
            threshold=flat["threshold"].astype(np.float32),
            left=flat["left"].astype(np.int32),
            right=flat["right"].astype(np.int32),
            default_left=flat["default_left"].astype(bool),
            roots=roots,
            base_score=base,
            depth=_depth(trees),
            n_features=n_features,
        )
        return replace(forest, tables=forest_tables(forest))

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Sum over trees of the leaf each row reaches, plus the base score (float32 sums),
        :data:`CHUNK_ROWS` rows at a time."""
        x = np.asarray(x)
        if x.ndim != 2 or x.shape[1] < self.n_features:
            raise InvalidInputError(
                f"forest input x: shape {x.shape}; pass a 2-D array of rows × at least "
                f"{self.n_features} feature columns (the model's num_feature)"
            )
        out = np.empty(len(x))
        for s in range(0, len(x), CHUNK_ROWS):
            chunk = np.ascontiguousarray(x[s : s + CHUNK_ROWS], dtype=np.float32)
            leaves = self.walk(chunk) if self.tables is None else self.tables.leaves_of(chunk)
            out[s : s + CHUNK_ROWS] = leaves.sum(axis=1, dtype=np.float32)
        return out + self.base_score

    def fixed_codes(self, x: np.ndarray, moving: Sequence[int]) -> FixedCodes | None:
        """The part of each row's codes that the columns ``moving`` do not change, for rows that
        are then evaluated many times with only those columns changed (:meth:`predict_at`);
        None for a forest read by walking (no :class:`Tables`)."""
        if self.tables is None:
            return None
        x = np.asarray(x)
        on_moving = np.isin(self.tables.feature, np.asarray(moving, dtype=np.intp))
        code = np.empty((len(x), len(self.roots)), dtype=self.tables.offsets.dtype)
        for s in range(0, len(x), CHUNK_ROWS):
            chunk = np.ascontiguousarray(x[s : s + CHUNK_ROWS], dtype=np.float32)
            code[s : s + CHUNK_ROWS] = self.tables.codes(chunk, ~on_moving)
        return FixedCodes(code, on_moving, tuple(int(c) for c in moving))

    def fixed_codes_of_parts(
        self, parts: Sequence[tuple[np.ndarray, Sequence[int], np.ndarray]], moving: Sequence[int]
    ) -> FixedCodes | None:
        """:meth:`fixed_codes` of rows whose fixed columns come in parts, each ``(x, columns,
        index)``: row r's values of ``columns`` are those of row ``index[r]`` of ``x`` (a few
        distinct LLMs', GPUs' rows). Each part's splits are tested on its own few rows, and a
        row's code is the sum of its parts' codes: the codes of disjoint sets of splits add up
        to the code of their union (whole numbers: exact), so they are :meth:`fixed_codes`'.
        ValueError when a split's column is in no part and not ``moving``, or in two; None for
        a forest read by walking."""
        if self.tables is None:
            return None
        on_moving = np.isin(self.tables.feature, np.asarray(moving, dtype=np.intp))
        covered = on_moving.astype(int)
        code = 0
        for x, columns, index in parts:
            on = np.isin(self.tables.feature, np.asarray(columns, dtype=np.intp))
            covered += on
            part = np.empty((len(x), len(self.roots)), dtype=self.tables.offsets.dtype)
            for s in range(0, len(x), CHUNK_ROWS):
                chunk = np.ascontiguousarray(x[s : s + CHUNK_ROWS], dtype=np.float32)
                part[s : s + CHUNK_ROWS] = self.tables.codes(chunk, on)
            code = code + part[index]
        if (covered != 1).any():
            raise ValueError("every split's column must be in exactly one part or moving")
        return FixedCodes(code, on_moving, tuple(int(c) for c in moving))

    def predict_at(
        self, fixed: FixedCodes, rows: np.ndarray, values: dict[int, np.ndarray]
    ) -> np.ndarray:
        """:meth:`predict` of rows whose columns are those of rows ``rows`` of
        :meth:`fixed_codes` but the moving ones, given alone (``values``: column -> one value per
        row): their codes are read from each column's step table (:mod:`tree_steps`), the same
        codes, hence the same leaves and sums, as :meth:`predict`. A row's sum depends on its
        fixed row and, per moving column, on how many thresholds its value passes alone: more
        than :data:`CHUNK_ROWS` rows are summed once per distinct such key and gathered (a long
        table's loads pass a few dozen thresholds: most rows share a key)."""
        split = [c for c in fixed.columns if len(self.tables.steps[c].thresholds)]  # others add 0
        if len(rows) == 1:  # one row (a single predict's): its codes as one row of trees
            return (
                np.array([float(self._summed_one(fixed, rows[0], values, split))]) + self.base_score
            )
        passed = {c: self.tables.steps[c].passed(values[c]) for c in split}
        if len(rows) <= CHUNK_ROWS:
            return self._summed(fixed, rows, passed) + self.base_score
        key, first = unique_rows([rows, *passed.values()])
        once = self._summed(fixed, rows[first], {c: j[first] for c, j in passed.items()})
        return once[key] + self.base_score

    def _summed(
        self, fixed: FixedCodes, rows: np.ndarray, passed: dict[int, np.ndarray]
    ) -> np.ndarray:
        """The float32 sums over trees of the leaves of rows ``rows`` of ``fixed`` whose moving
        columns pass ``passed`` thresholds (:meth:`ColumnSteps.passed`), a chunk at a time."""
        out = np.empty(len(rows))
        for s in range(0, len(rows), CHUNK_ROWS):
            code = fixed.code[rows[s : s + CHUNK_ROWS]]
            for c, j in passed.items():
                code += self.tables.steps[c].codes[j[s : s + CHUNK_ROWS]]
            out[s : s + CHUNK_ROWS] = self.tables.leaves_at(code).sum(axis=1, dtype=np.float32)
        return out

    def _summed_one(self, fixed: FixedCodes, row, values: dict, split: list) -> np.float32:
        """:meth:`_summed` of one row ``row`` of ``fixed`` (``values``: each column's one value):
        the same codes, leaves and float32 sum, on the row's (trees,) codes."""
        code = fixed.code[row]
        for c in split:  # ColumnSteps.passed of one value: the float32 thresholds at most it
            steps, value = self.tables.steps[c], float(np.float32(values[c][0]))
            j = bisect_right(steps.thresholds.tolist(), value) if value == value else -1
            code = code + steps.codes[j]  # -1: the last row, a missing value's
        return self.tables.leaves_at(code).sum(dtype=np.float32)

    def walk(self, x: np.ndarray) -> np.ndarray:
        """(rows, trees) float32 leaf values of the rows of ``x`` (float32), every row taking
        ``depth`` steps down all trees at once."""
        n_rows, n_cols = x.shape
        flat_x = x.ravel()
        offset = (np.arange(n_rows, dtype=np.int64) * n_cols)[:, None]
        node = np.broadcast_to(self.roots, (n_rows, len(self.roots))).copy()
        missing = bool(np.isnan(flat_x).any())
        for _ in range(self.depth):
            value = flat_x[offset + self.feature[node]]
            go_left = value < self.threshold[node]
            if missing:
                go_left = np.where(np.isnan(value), self.default_left[node], go_left)
            node = np.where(go_left, self.left[node], self.right[node])
        return self.threshold[node]


def _depth(trees: list[dict]) -> int:
    """Levels to walk: the longest root-to-leaf path of any tree."""
    best = 0
    for t in trees:
        depth = {0: 0}
        for j, (a, b) in enumerate(zip(t["left_children"], t["right_children"], strict=True)):
            if a >= 0:
                depth[a] = depth[b] = depth[j] + 1
        best = max(best, max(depth.values()))
    return best
