"""Speed and memory of wl.predict_many, a warm wl.predict and a cold CLI predict (figures, ratios).

    .venv/bin/python benchmarks/predict_speed.py

Targets (issues 10, 19 and 30): predict_many >= 250,000 rows/s at 10^4 and at 10^6 rows (at most
10x slower than XGBoost alone on the same trees), peak memory <= 400 MB at 10^6 rows; the numpy
forest flat in rows/s and in memory from 10^4 to 10^6 rows; a warm single predict <= 0.5 ms with
one or two physics evaluations (each warm call at its own t_in, t_out and rate or batch, so it
times what the kit keeps of a configuration, not a repeated answer); a cold
`python -m wattgpu_lite predict` <= 1.3 s.
predict_many is measured twice: with every result column (25 numeric ones, about 0.2 GB at 10^6
rows, held with the input frame), and with ``columns=`` the three answers alone (power_w, itl_s,
energy_per_token_j): its peak is the one the 400 MB goal is read against, since the default
output alone nearly fills it. Both check and build the rows in blocks (``api.BLOCK_ROWS``).
The backbone's solves on the step's pieces are measured beside the bracketed searches they
replaced (tests/energy/reference_searches.py, swapped in for the "old search" figures, in the same run):
warm predict ms and physics calls, predict_many rows/s and peak memory, each as a ratio.
EcoLogits' ``llm_impacts`` (not a dependency) is timed beside a warm predict when installed, on
the same model under its registry name; the cold CLI beside a cold import of numpy and pandas.
Each predict_many and forest size runs in its own process, whose peak resident memory
(``ru_maxrss``) is printed beside the rise of the timed call's own peak over the memory held before it (Linux's VmHWM, reset before the
call: the interpreter, imports and the input rows excluded).
Beside predict_many: the numpy forest alone (:mod:`wattgpu_lite.hybrid.predict.trees`, its tables;
``walk``: the same trees walked, as forests of deeper trees are) and XGBoost's own
``inplace_predict`` on the same trees and as many rows (the shipped ITL forest, loaded into an
XGBoost Booster), with one thread (as numpy runs) and with its default threads. Every figure is
printed with its ratio against its reference measured in the same run: rows/s against XGBoost's
one thread at the same size and against its own 10^4 rows; memory against XGBoost's. The physics
evaluations of a warm predict are counted by wrapping ``energy.physical.evaluate_symbols`` (the
call of the generated physics every evaluation makes, but ``physical_reduced``'s, wrapped too)
and the generated step coefficients (``energy._step_generated.coefficients``) here, not in the
library. The machine's load average is printed beside them: the machine is shared, so
read the ratios first.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import resource
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

import wattgpu_lite as wl
from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.energy import _step_generated as SG
from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy import physical as P
from wattgpu_lite.hybrid.predict.model import HYBRID_DIR, HybridState
from wattgpu_lite.hybrid.predict.trees import Forest

ROWS = 10_000
SIZES = (10_000, 1_000_000)
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
# the bracketed searches the solves replaced, kept as the tests' references
REFERENCE_SEARCHES = Path(__file__).resolve().parents[1] / "tests/energy/reference_searches.py"


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
    """(calls of the physics (energy.physical.evaluate_symbols, which every physical_evaluate
    makes, physical_reduced, the same physics with its outputs reduced block by block, and
    evaluate_at_load, its part at a load of a configuration's kept part) and of
    the generated step coefficients, elements they evaluated) while ``fn`` runs."""
    seen = [0, 0]
    original, reduced, coefficients = P.evaluate_symbols, P.physical_reduced, SG.coefficients
    at_load = P.evaluate_at_load

    def counted(named):
        seen[0] += 1
        seen[1] += int(np.broadcast(*named.values()).size)
        return original(named)

    def counted_at_load(configured, loads):
        seen[0] += 1
        seen[1] += int(np.broadcast(*configured.values(), *loads.values()).size)
        return at_load(configured, loads)

    def counted_reduced(reduce, **args):
        seen[0] += 1
        seen[1] += int(np.broadcast(*args["workload"]).size)
        return reduced(reduce, **args)

    def counted_coefficients(**args):
        seen[0] += 1
        seen[1] += int(np.broadcast(*args.values()).size)
        return coefficients(**args)

    P.evaluate_symbols, P.physical_reduced = counted, counted_reduced
    SG.coefficients, P.evaluate_at_load = counted_coefficients, counted_at_load
    try:
        fn()
    finally:
        P.evaluate_symbols, P.physical_reduced, SG.coefficients = original, reduced, coefficients
        P.evaluate_at_load = at_load
    return seen[0], seen[1]


@contextlib.contextmanager
def old_search():
    """The bracketed searches the solves replaced (grid + golden section, grid + Illinois steps),
    swapped into the backbone while the block runs: the reference of every "old search" figure."""
    spec = importlib.util.spec_from_file_location("reference_searches", REFERENCE_SEARCHES)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    saved = S.peak_batch, S.in_flight_at_rate, S.step_pieces, S.pieces_from
    S.peak_batch, S.in_flight_at_rate = ref.reference_peak_batch, ref.reference_in_flight_at_rate
    # the references take no pieces (a single predict builds them from its kept arguments)
    S.step_pieces = S.pieces_from = lambda rows, _: None
    try:
        yield
    finally:
        S.peak_batch, S.in_flight_at_rate, S.step_pieces, S.pieces_from = saved


# the same model under EcoLogits' own registry name (it answers None, after a failed look-up,
# for a name it does not know: timing that would time no impact computation at all)
ECOLOGITS_MODEL = "meta-llama/Meta-Llama-3.1-8B-Instruct"


def ecologits_ms() -> float | None:
    """A warm EcoLogits ``llm_impacts`` call in ms (best of 20), None if it is not installed;
    RuntimeError if it does not know :data:`ECOLOGITS_MODEL` (no impacts computed)."""
    try:
        from ecologits.tracers.utils import llm_impacts
    except ImportError:
        return None
    call = lambda: llm_impacts(provider="huggingface_hub", model_name=ECOLOGITS_MODEL,  # noqa: E731
                               output_token_count=300, request_latency=10.0)  # fmt: skip
    if call() is None:
        raise RuntimeError(f"EcoLogits has no model {ECOLOGITS_MODEL!r}: nothing to time")
    return best_of(call, 20) * 1e3


def forest_inputs(n: int) -> tuple[Forest, np.ndarray]:
    corr = HybridState.pretrained().corrections["itl"]
    x = np.random.default_rng(1).normal(size=(n, len(corr.columns)))
    return Forest.from_json(corr.forest_json), x


def reset_peak() -> bool:
    """Start this process's peak resident memory (VmHWM) afresh (Linux >= 4.0); False if not."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def status_mb(field: str) -> float:
    """A memory figure of this process from /proc/self/status (VmRSS, VmHWM) in MB."""
    with open("/proc/self/status") as f:
        line = next(x for x in f if x.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def child(what: str, n: int) -> None:
    """One measurement in this process: prints 'seconds peak_rss_mb rise_mb' (the process's
    peak, and the peak of the timed calls above the memory the process held before them)."""
    if what in ("many", "many_old", "many_narrow"):
        swap = old_search()  # held: a dropped generator would close, and undo the swap, at once
        if what == "many_old":
            swap.__enter__()  # this process only: the bracketed searches
        f = frame(n)
        wl.predict_many(f.head(200))  # load the model and catalogs once
        asked = {"columns": list(NARROW)} if what == "many_narrow" else {}
        run = lambda: wl.predict_many(f, **asked)  # noqa: E731
    elif what in ("forest", "walk"):
        forest, x = forest_inputs(n)
        forest = forest if what == "forest" else replace(forest, tables=None)
        forest.predict(x[:100])
        run = lambda: forest.predict(x)  # noqa: E731
    else:
        import xgboost

        _, x = forest_inputs(n)
        booster = xgboost.Booster()
        booster.load_model(str(data_dir() / HYBRID_DIR / "itl.json"))
        if what == "xgboost_1":
            booster.set_param({"nthread": 1})
        booster.inplace_predict(x[:100])
        run = lambda: booster.inplace_predict(x)  # noqa: E731
    fresh = reset_peak()
    before = status_mb("VmRSS") if fresh else 0.0
    seconds = best_of(run, 1 if n > 100_000 else 3)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rise = status_mb("VmHWM") - before if fresh else float("nan")
    print(f"{seconds} {peak:.0f} {rise:.0f}")


def in_child(what: str, n: int) -> tuple[float, float, float]:
    """(seconds, peak RSS MB, rise MB) of ``what`` on ``n`` rows, in a process of its own."""
    argv = [sys.executable, __file__, "--child", what, str(n)]
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout.split()
    return float(out[-3]), float(out[-2]), float(out[-1])


def xgboost_installed() -> bool:
    try:
        import xgboost  # noqa: F401
    except ImportError:
        return False
    return True


NARROW = ("power_w", "itl_s", "energy_per_token_j")  # the answer alone, no interval or detail
LABEL = {"many": "predict_many", "many_old": "predict_many (old search)",
         "many_narrow": f"predict_many(columns={list(NARROW)})", "forest": "numpy forest",
         "walk": "numpy forest walked", "xgboost_1": "XGBoost inplace_predict 1 thread", "xgboost": "XGBoost inplace_predict"}  # fmt: skip
REFERENCE = "xgboost_1"
GOAL_ROWS_S, GOAL_PEAK_MB = 250_000, 400  # predict_many (issue 30)


def comparison(got: dict, kinds: list[str]) -> list[str]:
    """The rows/s and memory lines, each figure with its ratio against its reference in this run:
    rows/s against XGBoost's one thread at the same size and against the same kind at 10^4 rows;
    peak memory against XGBoost's one thread's at the same size."""
    small, large = SIZES
    ref = REFERENCE in kinds
    lines = [] if ref else ["XGBoost: not installed (the [train] extra), no ratios against it"]
    for what in kinds:
        for n in SIZES:
            seconds, peak, rise = got[what, n]
            rate = n / seconds
            ratios = [f"{rate * got[REFERENCE, n][0] / n:.2f}x XGBoost 1 thread"] if ref else []
            if n == large:
                flat = rate * got[what, small][0] / small
                ratios.append(f"{flat:.2f}x its rows/s at {small:.0e}")
            if what.startswith("many") and what != "many_old":
                ratios.append(f"{rate / GOAL_ROWS_S:.2f}x the goal {GOAL_ROWS_S:,}")
                if ("many_old", n) in got:
                    ratios.append(f"{rate * got['many_old', n][0] / n:.2f}x the old search")
            lines.append(f"{LABEL[what]} rows/s ({n:.0e} rows): {rate:,.0f} ({', '.join(ratios)})")
        for n in SIZES:
            seconds, peak, rise = got[what, n]
            ratios = [f"{peak / got[REFERENCE, n][1]:.2f}x XGBoost 1 thread's"] if ref else []
            if what.startswith("many") and what != "many_old":
                ratios.append(f"{peak / GOAL_PEAK_MB:.2f}x the goal {GOAL_PEAK_MB}")
                if ("many_old", n) in got:
                    ratios.append(f"{peak / got['many_old', n][1]:.2f}x the old search's")
            lines.append(f"{LABEL[what]} peak RSS MB ({n:.0e} rows): {peak:,.0f}, the call {rise:,.0f}"
                         f" above the memory before it ({', '.join(ratios) or 'no reference'})")  # fmt: skip
    return lines


WARM_CALLS = 32  # warm predicts a round, each at its own tokens and load


def warm_loads(n: int = WARM_CALLS) -> list[tuple[int, int, float, int]]:
    """(t_in, t_out, rate_qps, batch) of ``n`` warm predicts, each its own: the rounds time a
    configuration kept from the call before, never an answer (no two calls ask the same)."""
    rng = np.random.default_rng(2)
    return list(zip(rng.integers(100, 1000, n).tolist(), rng.integers(100, 400, n).tolist(),
                    rng.uniform(0.05, 0.15, n).tolist(), rng.integers(1, 16, n).tolist(),
                    strict=True))  # fmt: skip


def warm_predicts() -> dict[str, float]:
    """Warm wl.predict ms (best of 10 rounds of :data:`WARM_CALLS` calls, each call's t_in,
    t_out and rate or batch its own, :func:`warm_loads`) and physics calls, at a rate and at a
    batch: what the kit keeps between calls is the configuration's (LLM, GPU, layout, formats),
    never an answer, so a repeated call would time nothing the kit does not also do here."""
    loads = warm_loads()
    rate_at = lambda a, b, r, _: wl.predict(LLAMA, "A30", rate_qps=r, t_in=a, t_out=b)  # noqa: E731
    batch_at = lambda a, b, _, k: wl.predict(LLAMA, "A30", batch=k, t_in=a, t_out=b)  # noqa: E731
    one = lambda: [rate_at(*x) for x in loads]  # noqa: E731
    batch = lambda: [batch_at(*x) for x in loads]  # noqa: E731
    one(), batch()
    first = lambda: rate_at(*loads[0])  # noqa: E731
    first_batch = lambda: batch_at(*loads[0])  # noqa: E731
    per_call = 1e3 / len(loads)
    return {"rate_ms": best_of(one, 10) * per_call, "batch_ms": best_of(batch, 10) * per_call,
            "rate_calls": physics_calls(first)[0], "rate_rows": physics_calls(first)[1],
            "batch_calls": physics_calls(first_batch)[0]}  # fmt: skip


def main() -> None:
    new = warm_predicts()
    with old_search():
        old = warm_predicts()
    argv = [sys.executable, "-m", "wattgpu_lite", "predict", "--llm", LLAMA, "--gpu", "A30",
            "--rate-qps", "0.1"]  # fmt: skip
    cold_s = best_of(lambda: subprocess.run(argv, check=True, capture_output=True), 3)
    bare = [sys.executable, "-c", "import numpy, pandas"]
    bare_s = best_of(lambda: subprocess.run(bare, check=True, capture_output=True), 3)
    eco = ecologits_ms()
    for load in ("rate", "batch"):
        ms = new[f"{load}_ms"]
        beside = [f"{ms / old[f'{load}_ms']:.2f}x the old search's {old[f'{load}_ms']:.2f}"]
        beside.append("EcoLogits not installed" if eco is None else f"{ms / eco:.1f}x EcoLogits")
        print(f"warm single predict ms ({load}): {ms:.2f} ({', '.join(beside)})")
    print(f"physics evaluations per warm predict (rate): {new['rate_calls']} calls, "
          f"{new['rate_rows']} rows (the old search: {old['rate_calls']} calls, "
          f"{old['rate_rows']} rows)")  # fmt: skip
    print(f"physics evaluations per warm predict (batch): {new['batch_calls']} calls "
          f"(the old search: {old['batch_calls']})")  # fmt: skip
    print(f"cold CLI predict s: {cold_s:.2f} ({cold_s / bare_s:.2f}x a cold import of numpy and "
          f"pandas, {bare_s:.2f} s)")  # fmt: skip
    kinds = ["many", "many_narrow", "many_old", "forest", "walk"]
    kinds += ["xgboost_1", "xgboost"] if xgboost_installed() else []
    got = {(what, n): in_child(what, n) for n in SIZES for what in kinds}
    for line in comparison(got, kinds):
        print(line)
    print(f"load average (1 min): {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]))
    else:
        main()
