"""A request's energy as a tidy table: one row per phase × component, in J and Wh.

Both modes of :func:`wattgpu_lite.energy.estimate.estimate_energy` fill the same table, so a reader
compares them line by line.
"""

from __future__ import annotations

import numbers

import pandas as pd

from wattgpu_lite.energy._physical_generated import COMPONENTS
from wattgpu_lite.errors import InvalidInputError

J_PER_WH = 3600.0


def check_tokens(name: str, value) -> int:
    """A positive whole number of tokens or sequences (InvalidInputError otherwise)."""
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if isinstance(value, float) and value.is_integer():
        ok = True
    if not ok or value < 1:
        raise InvalidInputError(
            f"{name} must be a positive whole number, got {value!r}; pass e.g. {name}=500."
        )
    return int(value)


def breakdown_frame(terms: dict[tuple[str, str], float], t_out: int) -> pd.DataFrame:
    """Tidy breakdown: phase, component, energy_j, energy_wh, energy_per_output_token_j."""
    rows = [
        {"phase": ph, "component": c, "energy_j": float(terms.get((ph, c), 0.0))}
        for ph in ("prefill", "decode")
        for c in COMPONENTS
    ]
    df = pd.DataFrame(rows)
    df["energy_wh"] = df["energy_j"] / J_PER_WH
    df["energy_per_output_token_j"] = df["energy_j"] / t_out
    return df


def components_j(breakdown: pd.DataFrame) -> dict[str, float]:
    """The components (J per request, prefill + decode) and their total."""
    by = breakdown.groupby("component", sort=False)["energy_j"].sum()
    out = {c: float(by.get(c, 0.0)) for c in COMPONENTS}
    return out | {"total": sum(out.values())}
