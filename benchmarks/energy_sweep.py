"""Energy sweep: 10^6 (model, GPU, GPUs, T_in, T_out, batch) points of physical mode, the generated
function against a hand-written numpy expression of the same formula.

Both evaluate every (phase, component) term and both phase times of
:mod:`wattgpu_lite.energy.symbolic_physical` on the same 10^6 rows (catalog models and GPUs, a random
GPU count in {1, 2, 4, 8} and weight format in {bf16, fp8, mxfp4 — its experts at the FP4 peak, the
rest at the FP16 peak, as gpt-oss runs}); the benchmark checks they give the same numbers
(relative difference < 1e-9), then prints the best of REPEATS timings of each, their ratio
(target: generated / hand-written <= 1.3) and the machine's load average while it ran.
Run: .venv/bin/python benchmarks/energy_sweep.py
"""

from __future__ import annotations

import os
import time

import numpy as np

import wattgpu_lite as wl
from wattgpu_lite.energy import physical as P
from wattgpu_lite.specs.layout import Parallel

N_POINTS, REPEATS, SEED = 1_000_000, 5, 0
KEYS = P.KEYS + (("time", "prefill"), ("time", "decode"))


def sweep_inputs(n: int, rng: np.random.Generator) -> tuple:
    """Random (model, workload, hardware, deploy) columns over the catalogs (per-row formats)."""
    c = P.defaults("spec")
    # GPUs whose link joins the sweep's largest replica, 8 (bridged pairs and 4-GPU nodes are refused)
    gpus = [
        g
        for g in map(wl.gpu, wl.gpus()["name"])
        if np.isfinite(g.interconnect_gbs) and not g.link_domain_gpus < 8
    ]
    llms, fmts = list(map(wl.llm, wl.llms()["name"])), ("bf16", "fp8", "mxfp4")
    model = np.array([[P.llm_args(m, f) for m in llms] for f in fmts])  # (format, llm, field)
    # the last "format" pairs bf16 always-read weights with MXFP4 experts, as gpt-oss streams them
    groups = (("bf16", "bf16"), ("fp8", "fp8"), ("bf16", "mxfp4"))
    hw = np.array(
        [
            [P.gpu_args(g, c["static_fraction"], "spec", w, expert_weights=e) for g in gpus]
            for w, e in groups
        ]
    )
    layouts = (1, 2, 4, 8, Parallel(tp=8, ep=8), Parallel(ep=8), Parallel(tp=2, ep=8))
    # deploy_args leaves t_grp at 0 (the backbone's fitted constant sets it): a typical 4 µs here,
    # so the expert-group term is timed and compared too
    dep = np.array(
        [[P.deploy_args(g, n_g)._replace(expert_group_s=4e-6) for g in gpus] for n_g in layouts]
    )
    f, m, g, n_g = (rng.integers(k, size=n) for k in (3, len(llms), len(gpus), len(layouts)))
    work = (rng.integers(1, 8192, n), rng.integers(1, 20000, n), rng.integers(1, 257, n))
    cols = [
        tuple(np.ascontiguousarray(x) for x in a.T) for a in (model[f, m], hw[f, g], dep[n_g, g])
    ]
    return cols[0], tuple(np.asarray(w, dtype=float) for w in work), cols[1], c["kappa"], cols[2]


def generated(model, work, hw, kappa, deploy) -> list[np.ndarray]:
    """The library path: one call of the lambdified function."""
    terms, times = P.physical_evaluate(model, work, hw, kappa=kappa, deploy=deploy)
    return [terms[k] for k in P.KEYS] + [times["prefill"], times["decode"]]


def handwritten(model, work, hw, kappa, deploy) -> list[np.ndarray]:
    """The same formula typed by hand in numpy (shared terms computed once)."""
    n_act, n_all, e_x, k, n_moe, n_e, n_l, d, d_q, w_kv, f_sw, w_sw, b_e, b_w = model
    t_in, t_out, b = work
    alpha, e, f_peak, bw_peak, p_tdp, p_st, alpha_e, f_e = hw
    g, n_tp, n_ep, bw_link, t_0, t_hop, x_ep, t_grp = deploy
    ctx = t_out * t_in + 0.5 * t_out * (t_out - 1.0)
    n1 = np.minimum(np.maximum(w_sw - t_in + 1.0, 0.0), t_out)  # steps that see the whole context
    ctx = (1.0 - f_sw) * ctx + f_sw * (n1 * t_in + 0.5 * n1 * (n1 - 1.0) + (t_out - n1) * w_sw)
    reach = np.minimum(t_in, w_sw)
    pairs = (1.0 - f_sw) * t_in**2 + f_sw * reach * (2.0 * t_in - reach)
    miss, experts = 1.0 - k / e_x, n_moe * n_e * e_x
    kv = 16.0 * w_kv * n_l
    c = (
        2.0 * n_act * t_in + 2.0 * n_l * d_q * pairs,
        2.0 * n_act * t_out + 4.0 * n_l * d_q * ctx,
    )
    c_e = (2.0 * k * n_moe * n_e * t_in, 2.0 * k * n_moe * n_e * t_out)  # the routed experts'
    q_par = (
        (b_w * (n_all + d * b * t_in) + b_e * experts * (1.0 - miss ** (b * t_in))) / b,
        t_out * (b_w * (n_all + d * b) + b_e * experts * (1.0 - miss**b)) / b,
    )
    q_kv, q_att = (kv * t_in, kv * t_out), (0.0, kv * ctx)
    ke, p_g = kappa * e, g * p_st
    n_ar, n_a2a = 2.0 * n_l - x_ep * n_moe, 2.0 * x_ep * n_moe
    ar_on, a2a_on = np.minimum(1.0, n_tp - 1.0), np.minimum(1.0, n_ep - 1.0)

    def layout_step(tokens):  # energy.symbolic_parallel.parallel_step_s, typed by hand
        m_g = tokens * n_tp / g * d * 2.0
        ring = 2.0 * (n_tp - 1.0) * t_hop + 2.0 * (n_tp - 1.0) / n_tp * m_g / bw_link
        doubling = np.log2(n_tp) * (t_hop + m_g / bw_link)
        a2a = t_0 + (n_ep - 1.0) * t_hop + (n_ep - 1.0) / n_ep**2 * k * tokens * d * 2.0 / bw_link
        groups = n_moe * t_grp * (e_x * (1.0 - miss**tokens) - k) / n_ep
        replicated = n_all * b_w / 8.0 * (1.0 / n_tp - 1.0 / g) / bw_peak
        return (n_ar * ar_on * (t_0 + np.minimum(ring, doubling)) + n_a2a * a2a_on * a2a
                + groups + replicated)  # fmt: skip

    out, times = [], []
    for ph, tokens, steps in ((0, b * t_in, 1.0), (1, b, t_out)):
        q = q_par[ph] + q_kv[ph] + q_att[ph]
        comp = kappa * (alpha * (c[ph] - c_e[ph]) + alpha_e * c_e[ph])
        t_c = (c[ph] - c_e[ph]) / (g * f_peak) + c_e[ph] / (g * f_e)  # each group at its peak
        roof = np.maximum(np.maximum(t_c, q / (8.0 * g * bw_peak)),
                          (comp + ke * q) / (g * (p_tdp - p_st)))  # fmt: skip
        comm = steps * layout_step(tokens) / b
        out += [comp, ke * q_par[ph], ke * q_kv[ph], ke * q_att[ph], p_g * roof, p_g * comm]
        times.append(roof + comm)
    return out + times


def best_s(fn, args) -> tuple[float, list[np.ndarray]]:
    """Best wall time of REPEATS calls, and the last result."""
    best = np.inf
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    args = sweep_inputs(N_POINTS, np.random.default_rng(SEED))
    load_before = os.getloadavg()
    gen_s, gen = best_s(generated, args)
    hand_s, hand = best_s(handwritten, args)
    load_after = os.getloadavg()
    # the prefill attention reads are 0 (a scalar) in both; every other output is one per point
    gen, hand = ([np.broadcast_to(x, (N_POINTS,)) for x in out] for out in (gen, hand))
    worst = max(float(np.max(np.abs(a - h) / np.maximum(np.abs(h), 1e-300))) for a, h in
                zip(gen, hand, strict=True))  # fmt: skip
    assert worst < 1e-9, f"generated and hand-written differ (max relative difference {worst:.2e})"
    # non-negative up to rounding: at a batch of one a MoE's expert-group term is E·(1 − (1 − k/E)) − k,
    # exactly 0, about ±3e-13 J in floating point (cse reorders any rearrangement of it)
    assert all(np.all(x >= -1e-9) for x in gen), "a negative term beyond rounding"
    print(f"{N_POINTS:,} points x {len(KEYS)} outputs; same numbers (max rel. diff {worst:.1e})")
    print(f"generated (lambdify, cse, one function): {gen_s:.3f} s (best of {REPEATS})")
    print(f"hand-written numpy:                      {hand_s:.3f} s (best of {REPEATS})")
    print(f"ratio generated / hand-written: {gen_s / hand_s:.2f} (target <= 1.3)")
    print(
        f"load average (1, 5, 15 min) before {load_before}, after {load_after}; {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
