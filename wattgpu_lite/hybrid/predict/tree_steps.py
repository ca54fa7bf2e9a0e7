"""The codes one column's splits give a forest's trees, as a step function of the column's value.

A split sends a row right when x >= threshold (float32), or by its default branch when x is
missing (:mod:`~wattgpu_lite.hybrid.predict.trees`). On one column the splits that send x right are
those whose threshold is at most x: with the column's distinct thresholds sorted,
θ_1 < θ_2 < ... < θ_u, and j = #{θ_i <= x} (``np.searchsorted(θ, x, side="right")``), the column
adds to tree t's code

    c_t(x) = S[j, t],  S[j, t] = Σ_{splits s on the column, θ_s among θ_1..θ_j} w_{s,t}

(S[u + 1] for a missing x: the splits whose default branch is right), w the powers of two of
:class:`~wattgpu_lite.hybrid.predict.trees.Tables`. The codes are whole numbers, so the table gives
exactly what the (rows × splits) tests and their matrix product give, at one search and one
gather per row and column instead of a test of every split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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


def column_steps(feature: np.ndarray, threshold: np.ndarray, missing_right: np.ndarray,
                 weights: np.ndarray, column: int, dtype=np.intp) -> ColumnSteps:  # fmt: skip
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
