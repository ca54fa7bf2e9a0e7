"""Speed of wl.rank_gpus: warm over the whole catalog against one warm predict_many of the same
plans, and a cold CLI `rank` against importing numpy and pandas alone (figures and ratios).

    .venv/bin/python benchmarks/rank_speed.py

Targets (issues 19 and 30): a warm ranking of every catalog GPU (1, 2, 4 and 8 GPUs a replica)
costs at most 2 predict_many calls of its plans (one row per plan, at the rate each replica
serves; issue 19 asked 5); a cold CLI `rank` <= 0.8 s. Every time is printed with its ratio
against its reference in the same run. The cold figures are read twice: as this environment runs Python (the
environment may forbid bytecode caches, so every kit module is compiled at each start), and with a
bytecode cache in a temporary folder, as an installed package runs. The engine calls and physics
evaluations of one ranking are counted by wrapping them here, not in the library.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd
from predict_speed import best_of  # benchmarks/ is on the path: the script's own folder

import wattgpu_lite as wl
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.hybrid.predict import steps as E

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
GOAL_RATIO = 2  # a warm ranking / one predict_many of its plans (issue 30)
QUESTION = {"rate_qps": 0.1, "itl_sla_ms": 50, "candidates": "all"}
CLI = [sys.executable, "-m", "wattgpu_lite", "rank", "--llm", LLAMA, "--rate-qps", "0.1",
       "--itl-sla-ms", "50"]  # fmt: skip


def plan_frame(table: pd.DataFrame) -> pd.DataFrame:
    """One predict_many row per plan of a ranking: its GPU, layout and per-replica rate."""
    plans = table[np.isfinite(table["rate_per_replica_qps"])]
    return pd.DataFrame({"llm": LLAMA, "gpu": plans["gpu"], "tp": plans["tp"].astype(int),
                         "ep": plans["ep"].astype(int),
                         "rate_qps": plans["rate_per_replica_qps"]}).reset_index(drop=True)  # fmt: skip


def counted(fn) -> dict[str, int]:
    """Engine calls, row builds and physics evaluations (every call of the generated physics:
    through ``physical_evaluate``, ``physical_reduced`` (block by block), or
    ``evaluate_at_load``, the SLA search's part at its loads) while ``fn`` runs."""
    seen = {"predict_arrays": 0, "build": 0, "evaluate_symbols": 0, "evaluate_at_load": 0,
            "physical_reduced": 0}  # fmt: skip
    originals = {(E, "predict_arrays"): E.predict_arrays, (R, "build"): R.build,
                 (P, "evaluate_symbols"): P.evaluate_symbols,
                 (P, "evaluate_at_load"): P.evaluate_at_load,
                 (P, "physical_reduced"): P.physical_reduced}  # fmt: skip

    def wrap(name, original):
        def inner(*a, **k):
            seen[name] += 1
            return original(*a, **k)

        return inner

    for (module, name), original in originals.items():
        setattr(module, name, wrap(name, original))
    try:
        fn()
    finally:
        for (module, name), original in originals.items():
            setattr(module, name, original)
    return seen


def cold(argv: list[str], env: dict[str, str]) -> float:
    return best_of(lambda: subprocess.run(argv, check=True, capture_output=True, env=env), 5)


def main() -> None:
    rank = lambda: wl.rank_gpus(LLAMA, **QUESTION)  # noqa: E731
    table = rank()
    frame = plan_frame(table)
    many = lambda: wl.predict_many(frame)  # noqa: E731
    many()
    rank_s, many_s = best_of(rank, 5), best_of(many, 5)
    default_s = best_of(lambda: wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50), 5)
    calls = counted(rank)
    print(f"warm rank_gpus, whole catalog ms ({len(table)} rows, {len(frame)} plans): "
          f"{rank_s * 1e3:.1f}")  # fmt: skip
    print(f"warm predict_many of the same plans ms: {many_s * 1e3:.1f}")
    print(f"rank / predict_many time ratio (target <= {GOAL_RATIO:g}): {rank_s / many_s:.2f}")
    print(f"warm rank_gpus, 8 measured GPUs ms: {default_s * 1e3:.1f} "
          f"({default_s / many_s:.2f}x the predict_many of the whole catalog's plans)")  # fmt: skip
    print(f"engine calls per ranking: {calls['predict_arrays']}")
    print(f"row builds per ranking: {calls['build']}")
    physics = sum(calls[k] for k in ("evaluate_symbols", "evaluate_at_load", "physical_reduced"))
    print(f"physics evaluations per ranking: {physics}")
    here = dict(os.environ)
    bare = [sys.executable, "-c", "import numpy, pandas"]
    with tempfile.TemporaryDirectory() as cache:
        cached = {k: v for k, v in here.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = cache
        subprocess.run(CLI, check=True, capture_output=True, env=cached)  # fill the cache
        figures = {"as run here": (cold(CLI, here), cold(bare, here)),
                   "bytecode cached": (cold(CLI, cached), cold(bare, cached))}  # fmt: skip
    for label, (cli_s, bare_s) in figures.items():
        print(f"cold CLI rank s ({label}; target <= 0.8): {cli_s:.2f}")
        print(f"cold import numpy, pandas s ({label}): {bare_s:.2f}")
        print(f"cold CLI rank / import numpy, pandas ({label}): {cli_s / bare_s:.2f}")
    print(f"load average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
