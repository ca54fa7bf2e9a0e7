"""The three non-learning baselines WattGPU is compared against (WattGPU §5).

- TDP: P = TDP (the spec-sheet power limit).
- Load-scaled TDP: P = rho(scenario) * TDP, rho = 0.9 offline, 0.2 server_low, 0.6 server_high.
- Roofline ITL: T = 2 N[B params] / BW[GB/s] / B, with B = 256 offline (vLLM's max_num_seqs) and
  B = 1 server: the time to stream the FP16 weights once, shared by a batch of B sequences.

rho and B live in data/baseline_load_factors.csv (with their source). All functions take a
feature frame (``wattgpu_lite.wattgpu.features``) and return a numpy array, one value per row.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.errors import DataFileError
from wattgpu_lite.wattgpu.features import bandwidth_latency_s, check_scenario

FACTORS_NAME = "baseline_load_factors.csv"


@cache
def load_factors() -> pd.DataFrame:
    """data/baseline_load_factors.csv indexed by scenario: load_factor (rho), roofline_batch."""
    try:
        table = read_csv(data_dir() / FACTORS_NAME).set_index("scenario")
    except KeyError as err:
        raise DataFileError(
            f"{FACTORS_NAME}: cannot read it ({err}); restore it with "
            "`git checkout data/baseline_load_factors.csv`"
        ) from err
    return table


def _per_row(scenarios: pd.Series, column: str) -> np.ndarray:
    for s in scenarios.unique():
        check_scenario(s)
    return scenarios.map(load_factors()[column]).to_numpy(dtype=float)


def tdp_power_w(frame: pd.DataFrame) -> np.ndarray:
    """TDP baseline [W]: P = TDP."""
    return frame["tdp_w"].to_numpy(dtype=float)


def load_scaled_tdp_power_w(frame: pd.DataFrame) -> np.ndarray:
    """Load-scaled TDP baseline [W]: P = rho(scenario) * TDP."""
    return _per_row(frame["scenario"], "load_factor") * tdp_power_w(frame)


def roofline_itl_s(frame: pd.DataFrame) -> np.ndarray:
    """Roofline ITL [s/token]: 2 N / BW / B(scenario) (weights read once per batch step)."""
    t_read_s = bandwidth_latency_s(frame["params_nominal_b"], frame["bandwidth_gbs"])
    return t_read_s.to_numpy(dtype=float) / _per_row(frame["scenario"], "roofline_batch")


# baseline name -> (target, function), in the paper's table order
BASELINES = {
    "load_scaled_tdp": ("power", load_scaled_tdp_power_w),
    "tdp": ("power", tdp_power_w),
    "roofline": ("itl", roofline_itl_s),
}
