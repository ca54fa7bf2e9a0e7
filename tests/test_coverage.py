"""The coverage table of notebook 00 accounts for every run exactly once."""

import wattgpu_lite as wl
from wattgpu_lite.runs.schema import SCENARIOS, coverage


def test_coverage_counts_every_dense_run_once():
    runs = wl.measurements(dense_only=True)
    table = coverage(runs)
    assert int(table.xs("runs", axis=1, level=1).to_numpy().sum()) == len(runs)
    assert list(table.columns.get_level_values(0).unique()) == list(SCENARIOS)
    assert len(table) == 8


def test_the_t4_holds_only_small_models():
    table = coverage(wl.measurements(dense_only=True))
    # 16 GB at FP16 leaves room for models of at most ~7 B parameters: fewest LLMs of all GPUs
    assert table.loc["T4", ("offline", "llms")] == table[("offline", "llms")].min()
