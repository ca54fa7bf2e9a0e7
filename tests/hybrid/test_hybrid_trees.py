"""The numpy forest evaluator gives XGBoost's own predictions, missing values included; its tables
give the leaves the walk down the trees gives (the evaluator the kit had before them), so the
output is the same to the bit; memory stays a chunk's however many rows come."""

from __future__ import annotations

import tracemalloc
from dataclasses import replace

import numpy as np
import pytest
from xgboost import Booster, XGBRegressor

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.predict import tree_steps, trees
from wattgpu_lite.hybrid.predict.trees import Forest

SHIPPED = ("wattgpu_hybrid/itl", "wattgpu_hybrid/power", "wattgpu/itl", "wattgpu/power")
U32 = 2.0**-24  # float32 unit roundoff


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 5))
    x[rng.random(x.shape) < 0.1] = np.nan
    y = np.nan_to_num(x[:, 0]) * 2 - np.nan_to_num(x[:, 3]) ** 2 + rng.normal(0, 0.1, 600)
    models = {}
    for depth in (3, 5):
        model = XGBRegressor(n_estimators=60, max_depth=depth, n_jobs=1, random_state=0).fit(x, y)
        models[depth] = model, Forest.from_json(model.get_booster().save_raw("json"))
    return models


@pytest.fixture(scope="module")
def shipped():
    """The shipped forests (the hybrid's corrections, the paper's model) as XGBoost JSON text."""
    return {name: (data_dir() / "models" / f"{name}.json").read_text() for name in SHIPPED}


def rows_at_the_splits(forest: Forest, n: int, seed: int) -> np.ndarray:
    """Random float32 rows: normal values, values exactly at a split threshold and one float32
    step either side of it, and 10 % missing (NaN)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 3, size=(n, forest.n_features)).astype(np.float32)
    inner = forest.left != np.arange(len(forest.left))
    for f in range(forest.n_features):
        at = forest.threshold[inner & (forest.feature == f)]
        if len(at):
            near = np.r_[at, np.nextafter(at, -np.inf), np.nextafter(at, np.inf)]
            pick = rng.random(n) < 0.6
            x[pick, f] = rng.choice(near, pick.sum())
    x[rng.random(x.shape) < 0.1] = np.nan
    return x


def old_predict(forest: Forest, x: np.ndarray) -> np.ndarray:
    """The evaluator as it was: all rows down all trees at once, then the float32 sum."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    return forest.walk(x).sum(axis=1, dtype=np.float32).astype(float) + forest.base_score


@pytest.mark.parametrize("depth", [3, 5])
def test_numpy_forest_equals_xgboost_on_new_rows_with_missing_values(fitted, depth):
    model, forest = fitted[depth]
    assert (forest.tables is not None) == (depth == 3)  # 7 splits a tree: tables; 31: the walk
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2000, 5))
    x[rng.random(x.shape) < 0.15] = np.nan
    # float32 sums in another order: equal to a few ulps; a wrong branch would be off by O(1)
    assert np.allclose(forest.predict(x), model.predict(x), rtol=1e-5, atol=1e-5)


def test_depth_is_the_longest_path(fitted):
    assert fitted[5][1].depth == 5
    assert fitted[3][1].depth == 3


def test_monotone_constraint_survives_the_port():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, size=(500, 2))
    y = x[:, 0] + 0.3 * np.sin(8 * x[:, 0]) + rng.normal(0, 0.05, 500)
    model = XGBRegressor(n_estimators=80, max_depth=3, monotone_constraints=(1, 0), n_jobs=1)
    forest = Forest.from_json(model.fit(x, y).get_booster().save_raw("json"))
    grid = np.column_stack([np.linspace(0, 1, 400), np.full(400, 0.5)])
    assert np.all(np.diff(forest.predict(grid)) >= -1e-6)


def test_codes_are_int32_where_every_offset_fits_and_intp_beyond():
    assert (
        tree_steps.code_dtype(150, 7) == np.int32
        and tree_steps.code_dtype(2**21 - 1, 10) == np.int32
    )
    assert tree_steps.code_dtype(2**21, 10) == np.intp  # 2^31: one beyond int32


def test_the_shipped_forests_codes_are_int32(shipped):
    forest = Forest.from_json(shipped["wattgpu_hybrid/itl"])
    x = np.random.default_rng(3).normal(size=(50, forest.n_features))
    fixed = forest.fixed_codes(x, [0, 1])
    assert forest.tables.offsets.dtype == fixed.code.dtype == np.int32
    assert all(s.codes.dtype == np.int32 for s in forest.tables.steps)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_forest_predicts_bit_for_bit_what_the_old_evaluator_did(shipped, name):
    forest = Forest.from_json(shipped[name])
    x = rows_at_the_splits(forest, 3 * trees.CHUNK_ROWS + 17, seed=3)
    old = old_predict(forest, x)
    assert np.array_equal(forest.predict(x), old)
    assert np.array_equal(replace(forest, tables=None).predict(x), old)  # the walk, in chunks


def test_the_corrections_are_read_through_tables_the_paper_model_walked(shipped):
    for name in SHIPPED:
        forest = Forest.from_json(shipped[name])
        assert (forest.tables is not None) == name.startswith("wattgpu_hybrid/"), name
    forest = Forest.from_json(shipped["wattgpu_hybrid/itl"])
    inner = (forest.left != np.arange(len(forest.left))).reshape(len(forest.roots), -1)
    weights = forest.tables.weights
    # far fewer distinct splits than split nodes (XGBoost's histogram bins are shared by trees):
    # what keeps the one matrix product small
    assert weights.shape == (71, 150) and inner.sum() == 967
    # split k of a tree weighs 2^k, once: a tree's weights sum to 2^splits - 1
    assert np.array_equal(weights.sum(axis=0), 2.0 ** inner.sum(axis=1) - 1)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_forest_equals_xgboost_inplace_predict_to_float32_rounding(shipped, name):
    forest = Forest.from_json(shipped[name])
    booster = Booster()
    booster.load_model(bytearray(shipped[name].encode()))
    booster.set_param({"nthread": 1})
    x = rows_at_the_splits(forest, 5000, seed=4)
    ours, theirs = forest.predict(x), booster.inplace_predict(x).astype(float)
    # both sum the same float32 leaves in another order; each sum's error is at most
    # gamma_n · Σ|leaf| (n additions, Higham, Accuracy and Stability of Numerical Algorithms,
    # 2nd ed., §4.2), and XGBoost adds the base score in float32 too
    n = len(forest.roots) + 1
    gamma = n * U32 / (1 - n * U32)
    size = np.abs(forest.walk(x)).sum(axis=1) + abs(forest.base_score)
    assert np.all(np.abs(ours - theirs) <= 2 * gamma * size + U32 * np.abs(theirs))


def test_chunks_do_not_change_a_row(shipped, monkeypatch):
    forest = Forest.from_json(shipped["wattgpu_hybrid/power"])
    x = rows_at_the_splits(forest, 2000, seed=5)
    whole = forest.predict(x)
    monkeypatch.setattr(trees, "CHUNK_ROWS", 7)
    assert np.array_equal(forest.predict(x), whole)
    assert np.array_equal(forest.predict(x[1234:1235]), whole[1234:1235])


@pytest.mark.parametrize("name", SHIPPED[:2])
def test_fixed_codes_and_moving_columns_give_the_predictions_bit_for_bit(shipped, name):
    """The ranking's load search (hybrid.predict.sla) tests only the splits on the columns that
    move: the fixed columns' codes of each base row, computed once, plus the moving splits' codes
    at every row, give exactly what :meth:`Forest.predict` gives (missing values included)."""
    forest = Forest.from_json(shipped[name])
    base = rows_at_the_splits(forest, 40, seed=7)
    moving = [forest.n_features - 3, forest.n_features - 1]
    fixed = forest.fixed_codes(base, moving)
    rows = np.random.default_rng(8).integers(0, len(base), 1500)  # > a chunk
    x = base[rows].copy()
    x[:, moving] = rows_at_the_splits(forest, len(rows), seed=9)[:, moving]
    moved = {c: x[:, c] for c in fixed.columns}
    assert np.array_equal(forest.predict_at(fixed, rows, moved), forest.predict(x))
    assert forest.fixed_codes(base, []).moving.sum() == 0  # nothing moves: every split fixed
    assert replace(forest, tables=None).fixed_codes(base, moving) is None  # walked: no codes


@pytest.mark.parametrize("name", SHIPPED[:2])
def test_one_row_at_a_time_gives_the_many_rows_values_bit_for_bit(shipped, name):
    """A single predict's row (``Forest.predict_at`` of one row: its codes as one row of trees,
    their float32 sum) gives what the same row among many gives, at loads at and beside the
    splits and missing."""
    forest = Forest.from_json(shipped[name])
    base = rows_at_the_splits(forest, 40, seed=10)
    moving = [forest.n_features - 3, forest.n_features - 2, forest.n_features - 1]
    fixed = forest.fixed_codes(base, moving)
    rows = np.random.default_rng(11).integers(0, len(base), 400)
    loads = rows_at_the_splits(forest, len(rows), seed=12)[:, moving].astype(float)
    many = forest.predict_at(fixed, rows, {c: loads[:, k] for k, c in enumerate(moving)})
    one = [
        forest.predict_at(
            fixed, rows[i : i + 1], {c: loads[i : i + 1, k] for k, c in enumerate(moving)}
        )
        for i in range(len(rows))
    ]
    assert np.array_equal(np.concatenate(one), many)


def test_memory_is_a_chunks_not_the_rows(shipped):
    """Beyond its output (8 bytes a row) the evaluator holds one chunk's arrays: the traced peak
    of 200,000 rows is the peak of 20,000 rows plus the larger output."""
    forest = Forest.from_json(shipped["wattgpu_hybrid/itl"])
    peaks = {}
    for n in (20_000, 200_000):
        x = np.zeros((n, forest.n_features))
        tracemalloc.start()
        forest.predict(x)
        peaks[n] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    # the old evaluator's (rows × trees) arrays: ≥ 150 · 8 bytes a row more, 216 MB here
    assert peaks[200_000] - peaks[20_000] <= 2 * 8 * 180_000


def test_rows_without_every_feature_are_refused(shipped):
    forest = Forest.from_json(shipped["wattgpu_hybrid/itl"])
    with pytest.raises(InvalidInputError, match=r"shape \(4, 14\).*at least 15 feature columns"):
        forest.predict(np.zeros((4, 14)))
    with pytest.raises(InvalidInputError, match=r"shape \(15,\).*2-D array"):
        forest.predict(np.zeros(15))
