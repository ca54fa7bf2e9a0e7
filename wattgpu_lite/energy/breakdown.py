"""A request's energy as a tidy table: one row per phase × component, in J and Wh.

Both modes of :func:`wattgpu_lite.energy.estimate.estimate_energy` fill the same table, so a reader
compares them line by line.
"""

from __future__ import annotations

import pandas as pd

from wattgpu_lite.energy._physical_generated import COMPONENTS

J_PER_WH = 3600.0


def breakdown_frame(terms: dict[tuple[str, str], float], t_out: int) -> pd.DataFrame:
    """Tidy breakdown: phase, component, energy_j, energy_wh, energy_per_token_j (the
    component's J per generated token)."""
    rows = [
        {"phase": ph, "component": c, "energy_j": float(terms.get((ph, c), 0.0))}
        for ph in ("prefill", "decode")
        for c in COMPONENTS
    ]
    df = pd.DataFrame(rows)
    df["energy_wh"] = df["energy_j"] / J_PER_WH
    df["energy_per_token_j"] = df["energy_j"] / t_out
    return df
