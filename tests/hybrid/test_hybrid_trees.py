"""The numpy forest evaluator gives XGBoost's own predictions, missing values included."""

from __future__ import annotations

import numpy as np
import pytest
from xgboost import XGBRegressor

from wattgpu_lite.hybrid.predict.trees import Forest


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 5))
    x[rng.random(x.shape) < 0.1] = np.nan
    y = np.nan_to_num(x[:, 0]) * 2 - np.nan_to_num(x[:, 3]) ** 2 + rng.normal(0, 0.1, 600)
    model = XGBRegressor(n_estimators=60, max_depth=5, n_jobs=1, random_state=0).fit(x, y)
    return model, Forest.from_json(model.get_booster().save_raw("json"))


def test_numpy_forest_equals_xgboost_on_new_rows_with_missing_values(fitted):
    model, forest = fitted
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2000, 5))
    x[rng.random(x.shape) < 0.15] = np.nan
    # float32 sums in another order: equal to a few ulps; a wrong branch would be off by O(1)
    assert np.allclose(forest.predict(x), model.predict(x), rtol=1e-5, atol=1e-5)


def test_depth_is_the_longest_path(fitted):
    assert fitted[1].depth == 5


def test_monotone_constraint_survives_the_port():
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 1, size=(500, 2))
    y = x[:, 0] + 0.3 * np.sin(8 * x[:, 0]) + rng.normal(0, 0.05, 500)
    model = XGBRegressor(n_estimators=80, max_depth=3, monotone_constraints=(1, 0), n_jobs=1)
    forest = Forest.from_json(model.fit(x, y).get_booster().save_raw("json"))
    grid = np.column_stack([np.linspace(0, 1, 400), np.full(400, 0.5)])
    assert np.all(np.diff(forest.predict(grid)) >= -1e-6)
