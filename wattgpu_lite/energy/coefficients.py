"""The energy model's fact tables: ``data/energy_coefficients.csv`` and the paper's Tables 3 and 4.

``energy_coefficients.csv`` is long: one row per (name, scope) with value, unit and source. Scopes:
``paper`` (Vartziotis et al. Tables 1, 2 and Eq. 23), ``paper:A100`` (their Table 6),
``antepara:<arch>`` (Antepara et al. SC'25 Table 3), ``physical`` (constants of the microbenchmark
basis), ``physical:spec`` (of the spec-sheet basis, physical mode's default) and ``ecologits``.
"""

from __future__ import annotations

from functools import cache, lru_cache

import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.errors import DataFileError

_COLUMNS = {"name", "scope", "value", "unit", "t_in_upper", "source"}


def _read(name: str, required: set[str]) -> pd.DataFrame:
    """Read ``data/<name>`` and check it has the ``required`` columns (DataFileError otherwise)."""
    df = read_csv(data_dir() / name)
    missing = required - set(df.columns)
    if missing:
        raise DataFileError(f"{name} lacks columns {sorted(missing)}; restore it from git.")
    return df


@cache
def coefficients() -> pd.DataFrame:
    """All energy constants, one row per (name, scope), with unit and source."""
    return _read("energy_coefficients.csv", _COLUMNS)


@lru_cache(maxsize=256)
def value(name: str, scope: str = "paper") -> float:
    """The single value of ``name`` in ``scope`` (e.g. ``value("alpha_pj_per_flop", "paper")``)."""
    df = coefficients()
    hit = df[(df["name"] == name) & (df["scope"] == scope)]
    if len(hit) != 1:
        raise DataFileError(f"energy_coefficients.csv: expected one row {name!r}/{scope!r}.")
    return float(hit["value"].iloc[0])


def prefill_buckets() -> list[tuple[float, float]]:
    """``[(T_in upper bound, M), ...]`` of the paper's Eq. 23, ascending."""
    df = coefficients()
    rows = df[(df["name"] == "prefill_multiplier") & (df["scope"] == "paper")]
    return sorted(zip(rows["t_in_upper"].astype(float), rows["value"].astype(float), strict=True))


# symbol of energy.symbolic -> row name of energy_coefficients.csv (paper scope)
PAPER_SYMBOLS = {
    "K": "flops_per_param_token",
    "b_w": "bits_per_weight",
    "b_kv": "bits_per_kv",
    "N_0": "n0_params",
    "gamma_0": "gamma0",
    "beta_gamma": "gamma_exp",
    "c_s": "s_attn_coef",
    "beta_s": "s_attn_exp",
    "c_eta": "eta_coef",
    "beta_eta": "eta_exp",
}


def paper_constants() -> dict:
    """Table 1-2 constants as a {sympy symbol: value} substitution (K, word sizes, factors).

    The keys are the positive symbols of :mod:`wattgpu_lite.energy.symbolic` (equal by name and
    assumptions); sympy is imported here only, so reading a coefficient never loads it.
    """
    import sympy as sp

    return {sp.Symbol(s, positive=True): value(n) for s, n in PAPER_SYMBOLS.items()}


def paper_coefficients_j(hardware: str = "H100") -> tuple[float, float]:
    """(alpha J/FLOP, e J/bit) of the paper: "H100" (Table 1) or "A100" (Table 6)."""
    scope = "paper:A100" if hardware.upper().startswith("A100") else "paper"
    pj = 1e-12
    return value("alpha_pj_per_flop", scope) * pj, value("e_mem_pj_per_bit", scope) * pj


@cache
def paper_table3() -> pd.DataFrame:
    """Vartziotis et al. Table 3 (+ Table 5 layers/width): the 16 models' per-token energies."""
    return _read("paper_tokens2wh_table3.csv", {"label", "params_b", "n_layers", "d_model"})


@cache
def paper_table4() -> pd.DataFrame:
    """Vartziotis et al. Table 4: analytical vs measured Wh per request at 500/500 tokens."""
    return _read("paper_tokens2wh_table4.csv", {"params_b", "analytical_wh", "measured_wh"})
