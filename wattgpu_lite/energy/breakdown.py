"""A request's energy as a tidy table: one row per phase × component, in J and Wh.

Both modes of :func:`wattgpu_lite.energy.estimate.estimate_energy` fill the same table, so a reader
compares them line by line.
"""

from __future__ import annotations

import pandas as pd

from wattgpu_lite.energy._physical_generated import COMPONENTS
from wattgpu_lite.errors import warn_renamed

J_PER_WH = 3600.0
# old column -> new: energy per generated token is ``energy_per_token_j`` everywhere (results,
# frames, JSON); the old name still reads, with a DeprecationWarning, until errors.REMOVED_IN
RENAMED_COLUMNS = {"energy_per_output_token_j": "energy_per_token_j"}


class EnergyFrame(pd.DataFrame):
    """A DataFrame whose renamed columns (:data:`RENAMED_COLUMNS`) still read by their old name,
    ``frame["energy_per_output_token_j"]``, with a DeprecationWarning, for one release. Frames
    derived from it (a filter, a groupby) are plain DataFrames."""

    @property
    def _constructor(self):
        return pd.DataFrame

    def __getitem__(self, key):
        if isinstance(key, str) and key in RENAMED_COLUMNS and key not in self.columns:
            warn_renamed(key, RENAMED_COLUMNS[key], "column")
            key = RENAMED_COLUMNS[key]
        return super().__getitem__(key)


def breakdown_frame(terms: dict[tuple[str, str], float], t_out: int) -> pd.DataFrame:
    """Tidy breakdown: phase, component, energy_j, energy_wh, energy_per_token_j (the
    component's J per generated token; an :class:`EnergyFrame`)."""
    rows = [
        {"phase": ph, "component": c, "energy_j": float(terms.get((ph, c), 0.0))}
        for ph in ("prefill", "decode")
        for c in COMPONENTS
    ]
    df = EnergyFrame(rows)
    df["energy_wh"] = df["energy_j"] / J_PER_WH
    df["energy_per_token_j"] = df["energy_j"] / t_out
    return df


def components_j(breakdown: pd.DataFrame) -> dict[str, float]:
    """The components (J per request, prefill + decode) and their total."""
    by = breakdown.groupby("component", sort=False)["energy_j"].sum()
    out = {c: float(by.get(c, 0.0)) for c in COMPONENTS}
    return out | {"total": sum(out.values())}
