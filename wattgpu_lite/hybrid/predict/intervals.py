"""The shipped model's interval tables: which held-out residuals apply to which prediction.

A prediction's *basis* says which situation its interval was calibrated on, decided by the spec
values and architecture it was given, never by a name:

- ``cv``: the LLM's architecture and the GPU's spec both appear in the training runs (scores of five
  folds grouped by (LLM, GPU) pair; a plain row quantile — the per-group floor is for GPU and LLM
  groups);
- ``new gpu``: the GPU is new (scores of leave one GPU out, grouped by GPU);
- ``new llm``: the LLM is new (five folds grouped by LLM, grouped by LLM);
- ``new gpu and llm``: both are new (folds holding out one GPU and a fifth of the LLMs at once);
- ``physics``: a configuration the runs never cover (mixture-of-experts, weights below 16 bits,
  several GPUs): the backbone alone, with the 'physics' candidate's leave-one-GPU-out scores.

Each table maps a basis, target and scenario group to the half-width q at a grid of levels.
"""

from __future__ import annotations

import numpy as np

BASES = ("cv", "new gpu", "new llm", "new gpu and llm", "physics")
LEVEL_GRID = tuple(round(x, 3) for x in (*np.arange(0.50, 0.991, 0.01), 0.995, 0.999))


def half_width(
    tables: dict, basis: str, target: str, regime: np.ndarray, level: float
) -> np.ndarray:
    """q per row at ``level`` (linear between grid levels) for one basis and target."""
    grid = np.array(LEVEL_GRID)
    out = np.empty(len(regime))
    for reg in np.unique(regime):
        row = tables[basis][target][str(reg)]
        qs = np.array([row[f"{lv:g}"] for lv in LEVEL_GRID])
        out[regime == reg] = np.interp(level, grid, qs)
    return out


def basis_of(llm_seen: np.ndarray, gpu_seen: np.ndarray, physics_only: np.ndarray) -> np.ndarray:
    """The basis name per row from what the training runs contain."""
    both = np.where(gpu_seen, "cv", "new gpu")
    learned = np.where(llm_seen, both, np.where(gpu_seen, "new llm", "new gpu and llm"))
    return np.where(physics_only, "physics", learned)
