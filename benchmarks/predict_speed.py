"""Speed and memory of wl.predict_many, a warm wl.predict and a cold CLI predict (figures, ratios).

    .venv/bin/python benchmarks/predict_speed.py

Targets (issues 10 and 19): predict_many on 10^4 rows >= 30,000 rows/s, and its cost per row and
its memory flat from 10^4 to 10^6 rows (it predicts in chunks); a warm single predict < 10 ms with
few physics evaluations; a cold `python -m wattgpu_lite predict` <= 1.3 s. Each predict_many size
runs in its own process, whose peak resident memory (``ru_maxrss``) is printed beside the numpy
forest alone (:mod:`wattgpu_lite.hybrid.predict.trees`) and XGBoost's own ``inplace_predict`` on the same
trees and as many rows (the shipped ITL forest, loaded into an XGBoost Booster). The physics
evaluations of a warm predict are counted by wrapping ``energy.physical.physical_evaluate`` here,
not in the library. The machine's load average is printed beside them: the machine is shared, so
read the ratios first.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd

import wattgpu_lite as wl
from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.energy import physical as P
from wattgpu_lite.hybrid.predict.model import HYBRID_DIR, HybridModel
from wattgpu_lite.hybrid.predict.trees import Forest

ROWS = 10_000
SIZES = (10_000, 1_000_000)
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


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


def physics_calls(fn) -> tuple[int, int]:
    """(calls of energy.physical.physical_evaluate, rows they evaluated) while ``fn`` runs."""
    seen = [0, 0]
    original = P.physical_evaluate

    def counted(model_args, workload, *rest, **kw):
        seen[0] += 1
        seen[1] += int(np.broadcast(*workload).size)
        return original(model_args, workload, *rest, **kw)

    P.physical_evaluate = counted
    try:
        fn()
    finally:
        P.physical_evaluate = original
    return seen[0], seen[1]


def forest_inputs(n: int) -> tuple[Forest, np.ndarray, str]:
    corr = HybridModel.pretrained().corrections["itl"]
    x = np.random.default_rng(1).normal(size=(n, len(corr.columns)))
    return Forest.from_json(corr.forest_json), x, corr.forest_json


def child(what: str, n: int) -> None:
    """One measurement in this process: prints 'seconds peak_rss_mb'."""
    if what == "many":
        f = frame(n)
        wl.predict_many(f.head(200))  # load the model and catalogs once
        run = lambda: wl.predict_many(f)  # noqa: E731
    elif what == "forest":
        forest, x, _ = forest_inputs(n)
        forest.predict(x[:100])
        run = lambda: forest.predict(x)  # noqa: E731
    else:
        import xgboost

        _, x, _ = forest_inputs(n)
        booster = xgboost.Booster()
        booster.load_model(str(data_dir() / HYBRID_DIR / "itl.json"))
        booster.inplace_predict(x[:100])
        run = lambda: booster.inplace_predict(x)  # noqa: E731
    seconds = best_of(run, 1 if n > 100_000 else 3)
    print(f"{seconds} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}")


def in_child(what: str, n: int) -> tuple[float, float]:
    argv = [sys.executable, __file__, "--child", what, str(n)]
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout.split()
    return float(out[-2]), float(out[-1])


def xgboost_installed() -> bool:
    try:
        import xgboost  # noqa: F401
    except ImportError:
        return False
    return True


def main() -> None:
    one = lambda: wl.predict(LLAMA, "A30", rate_qps=0.1)  # noqa: E731
    batch = lambda: wl.predict(LLAMA, "A30", batch=8)  # noqa: E731
    one()
    one_s, batch_s = best_of(one, 20), best_of(batch, 20)
    calls, rows = physics_calls(one)
    b_calls, _ = physics_calls(batch)
    argv = [sys.executable, "-m", "wattgpu_lite", "predict", "--llm", LLAMA, "--gpu", "A30",
            "--rate-qps", "0.1"]  # fmt: skip
    cold_s = best_of(lambda: subprocess.run(argv, check=True, capture_output=True), 3)
    print(f"warm single predict ms (rate): {one_s * 1e3:.2f}")
    print(f"warm single predict ms (batch): {batch_s * 1e3:.2f}")
    print(f"physics evaluations per warm predict (rate): {calls} calls, {rows} rows")
    print(f"physics evaluations per warm predict (batch): {b_calls} calls")
    print(f"cold CLI predict s: {cold_s:.2f}")
    kinds = ["many", "forest"] + (["xgboost"] if xgboost_installed() else [])
    rate = {}
    for n in SIZES:
        for what in kinds:
            seconds, rss = in_child(what, n)
            rate[what, n] = n / seconds
            print(f"{what} rows/s ({n:.0e} rows): {n / seconds:,.0f}")
            print(f"{what} peak RSS MB ({n:.0e} rows): {rss:,.0f}")
    for n in SIZES:
        print(f"predict_many / forest time ratio ({n:.0e} rows): "
              f"{rate['forest', n] / rate['many', n]:.1f}")  # fmt: skip
        if ("xgboost", n) in rate:
            print(f"forest / xgboost inplace_predict time ratio ({n:.0e} rows): "
                  f"{rate['xgboost', n] / rate['forest', n]:.2f}")  # fmt: skip
    print(f"predict_many cost per row, 10^6 / 10^4: "
          f"{rate['many', SIZES[0]] / rate['many', SIZES[1]]:.2f}")  # fmt: skip
    print(f"load average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
    else:
        main()
