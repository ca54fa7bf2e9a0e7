"""Energy sweep: 10^6 (model, GPU, T_in, T_out, batch) points, vectorised vs a per-point loop.

Both paths call the same lambdified physical-mode functions (energy_physical.physical_terms_j).
The loop runs over a random sample of 10^4 points and its rate is extrapolated to 10^6 (stated in
the output). Prints both rates and their ratio. Run: .venv/bin/python benchmarks/energy_sweep.py
"""

from __future__ import annotations

import time

import numpy as np

import wattgpu_lite as wl
from wattgpu_lite.energy import physical as P

N_POINTS, N_LOOP, SEED = 1_000_000, 10_000, 0


def sweep_inputs(n: int, rng: np.random.Generator) -> tuple[tuple, tuple, tuple]:
    """Random (model args, workload, GPU args) columns over the whole catalogs."""
    c = P.defaults()
    llm_rows = np.array([P.llm_args(m) for m in map(wl.llm, wl.llms()["name"])])
    gpu_rows = np.array(
        [P.gpu_args(g, c["static_fraction"]) for g in map(wl.gpu, wl.gpus()["name"])]
    )
    m, g = rng.integers(len(llm_rows), size=n), rng.integers(len(gpu_rows), size=n)
    work = (rng.integers(1, 8192, n), rng.integers(1, 20000, n), rng.integers(1, 257, n))
    return (
        tuple(llm_rows[m].T),
        tuple(np.asarray(w, dtype=float) for w in work),
        tuple(gpu_rows[g].T),
    )


def vectorised_s(model, work, hw) -> float:
    t0 = time.perf_counter()
    terms = P.physical_terms_j(model, work, hw, P.defaults()["kappa"])
    total = sum(terms.values())
    assert total.shape == (len(work[0]),) and np.all(total > 0)
    return time.perf_counter() - t0


def loop_s(model, work, hw, n: int) -> float:
    kappa = P.defaults()["kappa"]
    t0 = time.perf_counter()
    for i in range(n):
        row = [tuple(float(c[i]) for c in cols) for cols in (model, work, hw)]
        terms = P.physical_terms_j(*row, kappa)
        assert sum(terms.values()) > 0
    return time.perf_counter() - t0


def main() -> None:
    model, work, hw = sweep_inputs(N_POINTS, np.random.default_rng(SEED))
    vec = vectorised_s(model, work, hw)
    loop = loop_s(model, work, hw, N_LOOP)
    vec_rate, loop_rate = N_POINTS / vec, N_LOOP / loop
    print(f"vectorised: {N_POINTS:,} points in {vec:.2f} s = {vec_rate:,.0f} points/s")
    print(f"loop: {N_LOOP:,} points in {loop:.2f} s = {loop_rate:,.0f} points/s "
          f"(10^6 points extrapolated: {N_POINTS / loop_rate:.0f} s)")  # fmt: skip
    print(f"ratio vectorised / loop: {vec_rate / loop_rate:,.0f}x")


if __name__ == "__main__":
    main()
