"""Evaluating an XGBoost regression forest from its JSON, with numpy alone.

A prediction needs no XGBoost import (which costs about a second on a cold start) and runs all trees
on all rows at once. The nodes of every tree are laid out in one flat array (node ``t·width + j``
of tree ``t``); a leaf points to itself on both sides, so every row simply takes ``depth`` steps
down. XGBoost's rule, in float32 as XGBoost compares: go left when x < threshold, the default branch
when x is missing; the output is base_score + the sum of the leaves.
``tests/hybrid/test_hybrid_trees.py`` checks it against ``XGBRegressor.predict``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Forest:
    """Flat node arrays of every tree (a leaf's children are itself) and the base score."""

    feature: np.ndarray  # (trees · width,) int32
    threshold: np.ndarray  # float32; the leaf value on leaves
    left: np.ndarray  # int32 global ids
    right: np.ndarray
    default_left: np.ndarray  # bool
    roots: np.ndarray  # (trees,) int32 global id of each root
    base_score: float
    depth: int

    @classmethod
    def from_json(cls, text: str | bytes) -> Forest:
        """From the text of ``Booster.save_raw("json")`` / ``save_model("x.json")``."""
        learner = json.loads(text)["learner"]
        trees = learner["gradient_booster"]["model"]["trees"]
        width = max(len(t["left_children"]) for t in trees)
        parts = {k: [] for k in ("feature", "threshold", "left", "right", "default_left")}
        for i, t in enumerate(trees):
            n, base = len(t["left_children"]), i * width
            own = np.arange(n) + base
            left, right = np.asarray(t["left_children"]), np.asarray(t["right_children"])
            leaf = left < 0
            pad = width - n
            parts["feature"].append(np.r_[t["split_indices"], np.zeros(pad, int)])
            parts["threshold"].append(np.r_[t["split_conditions"], np.zeros(pad)])
            parts["left"].append(np.r_[np.where(leaf, own, left + base), own[:1].repeat(pad)])
            parts["right"].append(np.r_[np.where(leaf, own, right + base), own[:1].repeat(pad)])
            parts["default_left"].append(np.r_[t["default_left"], np.zeros(pad, bool)])
        flat = {k: np.concatenate(v) for k, v in parts.items()}
        base = float(np.float32(str(learner["learner_model_param"]["base_score"]).strip("[]")))
        roots = (np.arange(len(trees)) * width).astype(np.int32)
        return cls(flat["feature"].astype(np.int32), flat["threshold"].astype(np.float32),
                   flat["left"].astype(np.int32), flat["right"].astype(np.int32),
                   flat["default_left"].astype(bool), roots, base,
                   _depth(trees))  # fmt: skip

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Sum over trees of the leaf each row reaches, plus the base score (float32 sums)."""
        x = np.ascontiguousarray(x, dtype=np.float32)
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
        leaves = self.threshold[node]
        return leaves.sum(axis=1, dtype=np.float32).astype(float) + self.base_score


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
