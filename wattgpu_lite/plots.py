"""Seaborn figures used by the notebooks. Each function takes tidy data and returns the Axes or Figure.

Plots import the library, never the other way round; no function here computes a number that a test
should check — that lives in the module that owns the quantity.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns


def power_vs_itl(runs: pd.DataFrame) -> plt.Figure:
    """Mean GPU power (W) against ITL (ms, log scale), one panel per scenario, coloured by GPU."""
    data = runs.assign(itl_ms=runs["itl_s"] * 1e3)
    grid = sns.relplot(
        data=data, x="itl_ms", y="power_w", hue="gpu", col="scenario", s=12, alpha=0.6,
        height=3.2, aspect=1.0, facet_kws={"sharex": False},
    )  # fmt: skip
    grid.set(xscale="log")
    grid.set_axis_labels("ITL (ms, log scale)", "mean GPU power (W)")
    return grid.figure
