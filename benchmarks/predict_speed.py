"""Speed of wl.predict_many, a warm wl.predict and a cold CLI predict (figures and ratios).

    .venv/bin/python benchmarks/predict_speed.py

Targets (issue 10): predict_many on 10^4 rows >= 30,000 rows/s; a warm single predict < 10 ms; a
cold `python -m wattgpu_lite predict` <= 1.3 s. Ratios are measured in this run against the numpy
forest alone on the same rows (the floor a batched path can reach). The machine's load average
is printed beside them: the machine is shared, so read the ratios first.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd

import wattgpu_lite as wl
from wattgpu_lite.hybrid.predict.model import HybridModel

ROWS = 10_000


def frame(n: int = ROWS) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    llms = wl.llms().query("in_wattgpu")["name"].to_numpy()
    gpus = wl.gpus()["name"].to_numpy()
    at_rate = rng.random(n) < 0.5
    return pd.DataFrame({"llm": rng.choice(llms, n), "gpu": rng.choice(gpus, n),
                         "rate_qps": np.where(at_rate, rng.uniform(0.01, 0.5, n), np.nan),
                         "batch": np.where(at_rate, np.nan, rng.integers(1, 64, n)),
                         "t_in": rng.integers(10, 2000, n), "t_out": rng.integers(10, 1000, n)})  # fmt: skip


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    f = frame()
    wl.predict_many(f.head(100))  # load the model and catalogs once
    many_s = best_of(lambda: wl.predict_many(f))
    forest = HybridModel.pretrained().corrections["itl"]
    x = np.random.default_rng(1).normal(size=(ROWS, len(forest.columns)))
    forest_s = best_of(lambda: forest.predict(x))
    one_s = best_of(lambda: wl.predict("meta-llama/Llama-3.1-8B-Instruct", "A30", rate_qps=0.1), 20)
    argv = [sys.executable, "-m", "wattgpu_lite", "predict", "--llm",
            "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "A30", "--rate-qps", "0.1"]  # fmt: skip
    cold_s = best_of(lambda: subprocess.run(argv, check=True, capture_output=True), 3)
    print(f"predict_many rows/s (10^4 rows): {ROWS / many_s:,.0f}")
    print(f"forest alone rows/s (same rows): {ROWS / forest_s:,.0f}")
    print(f"predict_many / forest time ratio: {many_s / forest_s:.1f}")
    print(f"warm single predict ms: {one_s * 1e3:.2f}")
    print(f"cold CLI predict s: {cold_s:.2f}")
    print(f"load average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
