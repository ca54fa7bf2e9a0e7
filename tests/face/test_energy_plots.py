"""The energy figures put each number on its own bar: bars in table order, markers by label.

Notebook 01 once drew the paper's E_request markers by position on bars sorted alphabetically, so
13 of 16 sat on the wrong bar; these tests fail on that.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from wattgpu_lite.face import plots  # noqa: E402

LABELS = ["Zeta", "alpha", "Mid", "beta"]  # not in alphabetical order


@pytest.fixture()
def tidy():
    rows = [(label, comp, (i + 1) * (2 if comp == "compute" else 1))
            for i, label in enumerate(LABELS) for comp in ("compute", "attention_reads")]  # fmt: skip
    return pd.DataFrame(rows, columns=["label", "component", "energy_per_token_j"])


def test_bars_follow_the_table_order_and_markers_their_label(tidy):
    markers = pd.Series([10.0, 20.0, 30.0, 40.0], index=["beta", "Zeta", "Mid", "alpha"],
                        name="paper")  # fmt: skip
    ax = plots.energy_bars(tidy, "label", markers=markers)
    ticks = {t.get_text(): x for t, x in zip(ax.get_xticklabels(), ax.get_xticks(), strict=True)}
    assert list(ticks) == LABELS
    line = next(ln for ln in ax.get_lines() if ln.get_label() == "paper")
    for x, y in zip(*line.get_data(), strict=True):
        assert markers[[k for k, v in ticks.items() if v == x][0]] == y
    heights = {}
    for patch in ax.patches:
        heights[round(patch.get_x() + patch.get_width() / 2)] = heights.get(
            round(patch.get_x() + patch.get_width() / 2), 0) + patch.get_height()  # fmt: skip
    assert [heights[round(ticks[k])] for k in LABELS] == pytest.approx([3, 6, 9, 12])
    plt.close("all")


def test_energy_stack_stacks_every_component_in_the_legend(tidy):
    data = tidy.assign(x=np.repeat(np.arange(4), 2))
    ax = plots.energy_stack(data, "x")
    texts = ax.get_legend().get_texts()
    assert [t.get_text() for t in texts] == ["compute", "attention reads"]
    assert min(t.get_fontsize() for t in texts) >= 9  # no legend below the style's 9 pt
    plt.close("all")
