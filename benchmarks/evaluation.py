"""Wall time of WattGPU's full evaluation and of one prediction (prints figures; no asserts).

    .venv/bin/python benchmarks/evaluation.py

Targets (issue 4): the full evaluation (both targets x CV, LOGO, LOLO: 110 XGBoost fits plus the
baselines) under 60 s, and one ``predict`` call under 50 ms once the shipped model is loaded.
"""

from __future__ import annotations

import time

import wattgpu_lite as wl
from wattgpu_lite.wattgpu.evaluation import STRATEGIES, TARGETS


def full_evaluation_s() -> float:
    start = time.perf_counter()
    for target in TARGETS:
        for strategy in STRATEGIES:
            wl.evaluate(target, strategy, progress=False)
    return time.perf_counter() - start


def predict_s(repeats: int = 50) -> tuple[float, float]:
    """(first call incl. loading the shipped model, median of ``repeats`` later calls) [s]."""
    start = time.perf_counter()
    model = wl.WattGPU.pretrained()
    model.predict("meta-llama/Llama-3.1-8B-Instruct", "L4", "server_low")
    first = time.perf_counter() - start
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        model.predict("meta-llama/Llama-3.1-8B-Instruct", "L4", "server_low")
        times.append(time.perf_counter() - t0)
    return first, sorted(times)[repeats // 2]


def main() -> None:
    first, warm = predict_s()
    print(f"predict: first call {first * 1e3:.0f} ms (loads the model), then {warm * 1e3:.1f} ms "
          f"per call (target < 50 ms: {50e-3 / warm:.1f}x headroom)")  # fmt: skip
    total = full_evaluation_s()
    print(f"full evaluation (2 targets x 3 strategies): {total:.1f} s "
          f"(target < 60 s: ratio {total / 60:.2f})")  # fmt: skip


if __name__ == "__main__":
    main()
