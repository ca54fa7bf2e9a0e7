"""One fold of data/hybrid/calibrated_rows.csv refitted fresh (four least-squares fits: slow).

The fits stop at scipy's default tolerances (relative ~1e-8 on the cost) on well-conditioned
constants, and the CSV keeps six significant figures: a fresh fold must give the stored
predictions and interval ends to rtol 1e-4, no closer."""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.hybrid.report import calibrated as R
from wattgpu_lite.hybrid.report import calibrated_folds as F

COLUMNS = ["measured", "predicted_shipped", "predicted_calibrated", "lo", "hi"]


def test_one_fold_refitted_fresh_gives_the_stored_rows():
    table = R.shipped()
    source = min(table["source"].unique(), key=lambda s: (table["source"] == s).sum())
    stored = table[table["source"] == source].reset_index(drop=True)
    fresh = F.held_out(source)
    assert len(fresh) == len(stored)
    keys = ["row", "quantity"]
    pd.testing.assert_frame_equal(fresh[keys].astype(str), stored[keys].astype(str))
    for col in COLUMNS:
        assert np.allclose(fresh[col], stored[col], rtol=1e-4, equal_nan=True), col
    assert (fresh["regime_depth"].to_numpy() == stored["regime_depth"].to_numpy()).all()
