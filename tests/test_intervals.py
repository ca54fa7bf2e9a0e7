"""Split-conformal intervals: the quantile by hand, coverage under a known noise law, the basis."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.intervals import (
    basis_for,
    bounds,
    conformal_quantile,
    nested_coverage,
)


def test_conformal_quantile_by_hand():
    # n = 9 scores, level 0.8: k = ceil(10 * 0.8) = 8 -> the 8th smallest
    scores = [0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6]
    assert conformal_quantile(scores, 0.8) == 0.8
    # level 0.95: k = ceil(9.5) = 10 > n -> no finite quantile
    assert conformal_quantile(scores, 0.95) == math.inf


def test_bounds_are_relative_and_symmetric_in_log():
    lo, hi = bounds([100.0, 2.0], math.log(2.0))
    np.testing.assert_allclose(lo, [50.0, 1.0])
    np.testing.assert_allclose(hi, [200.0, 4.0])


def test_bad_level_is_refused():
    with pytest.raises(InvalidInputError, match="level"):
        conformal_quantile([0.1, 0.2], 1.5)


def _grouped_residuals(seed: int) -> pd.DataFrame:
    """20 groups x 50 rows; log residual = group offset N(0, 0.2) + row noise N(0, 0.1)."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(20), 50)
    r = rng.normal(0, 0.2, 20)[groups] + rng.normal(0, 0.1, len(groups))
    scen = np.where(np.arange(len(groups)) % 2 == 0, "offline", "server_low")
    return pd.DataFrame({"fold": groups, "scenario": scen, "log_residual": r})


@pytest.mark.parametrize("level", [0.8, 0.9])
def test_nested_coverage_matches_the_known_noise_law(level):
    # exchangeable groups: averaged over many draws, coverage is at least nominal (minus noise)
    cov = np.mean([nested_coverage(_grouped_residuals(s), level)["coverage"].mean()
                   for s in range(20)])  # fmt: skip
    assert level - 0.03 <= cov <= level + 0.06
    # the interval half-width approaches the normal quantile of sd sqrt(0.2^2 + 0.1^2)
    sd = math.hypot(0.2, 0.1)
    z = {0.8: 1.2816, 0.9: 1.6449}[level]
    q = conformal_quantile(np.abs(_grouped_residuals(0)["log_residual"]), level)
    assert q == pytest.approx(z * sd, rel=0.2)


def test_basis_follows_what_the_training_runs_contain():
    assert basis_for(llm_seen=True, gpu_seen=True) == "cv"
    assert basis_for(llm_seen=True, gpu_seen=False) == "logo"
    assert basis_for(llm_seen=False, gpu_seen=True) == "lolo"
    assert basis_for(llm_seen=False, gpu_seen=False) == "logo+lolo"


def test_shipped_hybrid_names_the_basis_and_brackets_the_prediction():
    from wattgpu_lite.hybrid.model import HybridModel, finite_interval

    m = HybridModel.pretrained()
    seen = m.predict("meta-llama/Llama-3.1-8B-Instruct", "L4", "server_low")
    assert seen["interval_basis"] == "cv"
    assert finite_interval(seen, "power_w") and finite_interval(seen, "itl_s")
    with pytest.warns(UserWarning):
        new_gpu = m.predict("meta-llama/Llama-3.1-8B-Instruct", "B200", rate=0.1)
    assert new_gpu["interval_basis"] == "logo"
    wide = m.predict("meta-llama/Llama-3.1-8B-Instruct", "L4", "server_low", level=0.9)
    assert wide["power_w_hi"] - wide["power_w_lo"] > seen["power_w_hi"] - seen["power_w_lo"]
