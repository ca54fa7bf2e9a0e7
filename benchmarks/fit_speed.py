"""Speed of one pooled constants fit (the calibration across harnesses, refitted in every fold of
the LOSO, nested LOGO/LOLO and notebook 06's live fold), and of its rows' cache key (figures,
ratios).

A fit asks the backbone for the external table's rows at a few hundred sets of constants; their
arrays are built once and found again by a key of the asked columns
(:func:`wattgpu_lite.energy.uniques.frame_key`). The key was a tuple of the table's rows; it is
now the columns' bytes and joined text. Printed: the key's time both ways on the same frame in
this run and their ratio, then one fit of the shipped candidate (seconds) — the fit's own time
is a figure to read, the key's ratio the claim.

    .venv/bin/python benchmarks/fit_speed.py
"""

from __future__ import annotations

import time
import timeit

from wattgpu_lite.energy.backbone import training_runs
from wattgpu_lite.energy.uniques import frame_key
from wattgpu_lite.hybrid.report import calibration, external_scope


def main() -> None:
    asked = calibration.asked()
    columns = list(external_scope._ASKED)
    frame = asked.frame

    def fastest(fn) -> float:  # the fastest of 20 calls, in seconds
        return min(timeit.repeat(fn, number=1, repeat=20))

    rows_key = fastest(lambda: tuple(frame[columns].itertuples(index=False, name=None)))
    columns_key = fastest(lambda: frame_key(frame, columns))
    print(f"cache key, a tuple of the rows (ms): {rows_key * 1e3:.2f}")
    print(f"cache key, the columns' bytes and text (ms): {columns_key * 1e3:.2f}")
    print(f"cache key speed-up (x): {rows_key / columns_key:.1f}")
    ts = training_runs.watt_counts()
    calibration.log_ratios(asked, calibration.watt_counts_constants())  # warm: rows built once
    start = time.perf_counter()
    calibration.candidate_constants("pooled_collectives", ts, asked)
    print(f"one pooled fit, shipped candidate (s): {time.perf_counter() - start:.1f}")


if __name__ == "__main__":
    main()
