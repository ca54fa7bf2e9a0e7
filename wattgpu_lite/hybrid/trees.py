"""Evaluating an XGBoost regression forest from its JSON, with numpy alone.

A prediction needs no XGBoost import (which costs about a second on a cold start) and runs all trees
on all rows at once: the trees are padded into (trees × nodes) arrays, and every row walks its node
index down one level per iteration. XGBoost's rule, in float32 as XGBoost compares: go left when
x < threshold, the default branch when x is missing; the output is base_score + the sum of the
leaves. ``tests/test_hybrid_trees.py`` checks it against ``XGBRegressor.predict``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Forest:
    """Padded node arrays of every tree (leaf: left = -1) and the base score."""

    left: np.ndarray  # (trees, nodes) int
    right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray  # float32; the leaf value on leaves
    default_left: np.ndarray  # bool
    base_score: float
    depth: int

    @classmethod
    def from_json(cls, text: str | bytes) -> Forest:
        """From the text of ``Booster.save_raw("json")`` / ``save_model("x.json")``."""
        learner = json.loads(text)["learner"]
        trees = learner["gradient_booster"]["model"]["trees"]
        width = max(len(t["left_children"]) for t in trees)

        def pad(key: str, fill, dtype) -> np.ndarray:
            out = np.full((len(trees), width), fill, dtype=dtype)
            for i, t in enumerate(trees):
                out[i, : len(t[key])] = t[key]
            return out

        left = pad("left_children", -1, np.int64)
        base = str(learner["learner_model_param"]["base_score"]).strip("[]")
        return cls(left, pad("right_children", -1, np.int64), pad("split_indices", 0, np.int64),
                   pad("split_conditions", 0.0, np.float32), pad("default_left", 0, bool),
                   float(np.float32(base)), _depth(left, pad("right_children", -1, np.int64)))  # fmt: skip

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Sum over trees of the leaf each row reaches, plus the base score (float32 sums)."""
        x = np.asarray(x, dtype=np.float32)
        n_trees = self.left.shape[0]
        node = np.zeros((x.shape[0], n_trees), dtype=np.int64)
        tree = np.arange(n_trees)[None, :]
        for _ in range(self.depth):
            value = np.take_along_axis(x, self.feature[tree, node], axis=1)
            go_left = np.where(np.isnan(value), self.default_left[tree, node],
                               value < self.threshold[tree, node])  # fmt: skip
            child = np.where(go_left, self.left[tree, node], self.right[tree, node])
            node = np.where(self.left[tree, node] < 0, node, child)
        leaves = self.threshold[tree, node]
        return leaves.sum(axis=1, dtype=np.float32).astype(float) + self.base_score


def _depth(left: np.ndarray, right: np.ndarray) -> int:
    """Levels to walk: the longest root-to-leaf path of any tree (children come after parents)."""
    depth = np.zeros(left.shape, dtype=np.int64)
    for j in range(left.shape[1]):
        inner = np.nonzero(left[:, j] >= 0)[0]
        for child in (left, right):
            depth[inner, child[inner, j]] = depth[inner, j] + 1
    return int(depth.max())
