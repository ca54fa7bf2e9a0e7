"""Sentences written from the numbers, so prose cannot drift from the outputs it describes.

A notebook prints these instead of typing a figure into markdown; a test of the notebook (and
the prose-number test, see notebooks/README.md) then holds prose and output together.

    print(prose.ratio_sentence("energy per token", 32.1, "at 0.017 req/s", 0.0206, "offline", "J"))
    # energy per token: 32.1 J at 0.017 req/s against 0.0206 J offline, 1,560× more.
"""

from __future__ import annotations

import math

import pandas as pd

from wattgpu_lite.face.labels import label

SIG = 3  # significant figures, as the notebook tests compare outputs


def sig(value: float, digits: int = SIG) -> str:
    """``value`` to ``digits`` significant figures, thousands separated: 1560.4 -> "1,560",
    0.020587 -> "0.0206", 32.122 -> "32.1"."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = digits - 1 - math.floor(math.log10(abs(value)))
    rounded = round(value, decimals)
    return f"{rounded:,.{max(decimals, 0)}f}"


def times(numerator: float, denominator: float) -> str:
    """The ratio as "1,560×" (3 significant figures)."""
    return f"{sig(numerator / denominator)}×"


def ratio_sentence(what: str, a: float, a_label: str, b: float, b_label: str, unit: str) -> str:
    """ "{what}: {a} {unit} {a_label} against {b} {unit} {b_label}, {a/b}× more" (or "less",
    with b/a, when a < b)."""
    more = a >= b
    factor = times(a, b) if more else times(b, a)
    return (
        f"{what}: {sig(a)} {unit} {a_label} against {sig(b)} {unit} {b_label}, "
        f"{factor} {'more' if more else 'less'}."
    )


def furthest_from_paper(
    table: pd.DataFrame,
    ours: str = "mdape_pct",
    paper: str = "paper_mdape_pct",
    keys=("target", "model", "strategy", "scenario"),
    unit: str = " %",
) -> str:
    """ "All N cells are within F× of the paper's; the furthest is <cell>: ours against paper."
    F is the largest of ours/paper and paper/ours over the rows (rows without a paper value are
    skipped)."""
    rows = table.dropna(subset=[ours, paper])
    if rows.empty:
        raise ValueError(f"no row has both {ours!r} and {paper!r}")
    factor = (rows[ours] / rows[paper]).map(lambda r: max(r, 1 / r))
    worst = rows.loc[factor.idxmax()]
    cell = " · ".join(str(label(worst[k])) for k in keys if k in worst and str(worst[k]) != "none")
    return (
        f"All {len(rows)} cells are within {times(factor.max(), 1)} of the paper's; the "
        f"furthest is {cell}: {sig(worst[ours])}{unit} against the paper's "
        f"{sig(worst[paper])}{unit}."
    )


def more_or_less(pct: float, what: str = "") -> str:
    """A signed percentage difference in words, whole percent: 44.0 -> "44 % more",
    -57.8 -> "58 % less" (never "uses −57.8 % more"); ``what`` goes between: "58 % less energy"."""
    word = "more" if pct >= 0 else "less"
    return f"{abs(pct):.0f} % {word}{' ' + what if what else ''}"


def compared(
    subject: str, value: float, reference_name: str, reference: float, *, what: str = "energy"
) -> str:
    """ "{subject} uses N % more|less {what} than {reference_name}", N = |value / reference − 1|
    · 100: the percentage is always of the thing compared against."""
    return (
        f"{subject} uses {more_or_less((value / reference - 1) * 100, what)} than {reference_name}"
    )


def both_ways(a: str, e_a: float, b: str, e_b: float, what: str = "energy") -> str:
    """The same two numbers read both ways: "the A30 uses 31 % less energy than the H100 NVL;
    the H100 NVL uses 44 % more than the A30"."""
    return f"{compared(a, e_a, b, e_b, what=what)}; {compared(b, e_b, a, e_a, what='')}"


def choice_steps(steps: pd.DataFrame, unit: str = "J per 1,000 tokens") -> str:
    """The pick as an SLA loosens, from a table of (from_ms, gpu, energy): "below 4.93 ms no GPU;
    from 4.93 ms the H200 NVL (29,100 J per 1,000 tokens); from 5.96 ms the H100 NVL (…)"."""
    if steps.empty:
        return "no GPU meets any SLA"
    parts = [f"below {sig(steps['from_ms'].iloc[0])} ms no GPU"]
    parts += [
        f"from {sig(r.from_ms)} ms the {r.gpu} ({sig(r.energy)} {unit})" for r in steps.itertuples()
    ]
    return "; ".join(parts)
