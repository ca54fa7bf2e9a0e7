"""A request's energy as a tidy table: one row per phase × component, in J and Wh.

Both modes of :func:`wattgpu_lite.energy.estimate.estimate_energy` fill the same table, so a reader
compares them line by line.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from wattgpu_lite import checks
from wattgpu_lite.energy._physical_generated import COMPONENTS
from wattgpu_lite.errors import InvalidInputError

J_PER_WH = 3600.0


def check_tokens(name: str, value: Any) -> int:
    """A positive whole number of tokens or sequences, at most ``checks.TOKENS_MAX``, through the
    kit's one strict conversion (:func:`wattgpu_lite.checks.check_count`); InvalidInputError
    naming ``name`` otherwise (a bool, a string, NaN, 2.5 or a 401-digit integer included)."""
    try:
        return checks.check_count(name, value, 1, checks.TOKENS_MAX)
    except InvalidInputError:
        shown = (
            repr(value)
            if len(repr(value)) <= 40
            else f"{repr(value)[:20]}… ({type(value).__name__})"
        )
        err = InvalidInputError(f"{name} must be a positive whole number up to "
                                f"{checks.TOKENS_MAX:,}, got {shown}; pass e.g. {name}=500.")  # fmt: skip
        err.field = name  # type: ignore[attr-defined]
        raise err from None


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
