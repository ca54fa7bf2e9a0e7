"""Fitting the backbone's six constants on training runs (refitted inside every training fold).

All six are fitted together by robust least squares on the log ratios of predicted to measured
ITL (paper units) and power, one residual per run and target: a soft-L1 loss with scale 0.1 (about
10 %), so a few odd runs do not pull the constants. Bounds keep every constant physical (an
efficiency in (0, 1]: no kernel beats the peak, non-negative overheads and idle power).

Conditioning (the same constants on every machine, to < 1e-7): the optimiser works on constants
divided by their typical size (:data:`SCALE`, so each is of order 1); the Jacobian is a forward
difference with a step of 1e-7 of that size, 10^8 times the 1e-15 to which the load in flight
and the peak batch are solved (:mod:`~wattgpu_lite.energy.backbone`), so it is smooth; the
tolerances (:data:`TOLERANCE`) stop it at the minimum, not in a valley. On every dense run the
scaled Jacobian's condition number is 13, and perturbing the measurements by 1e-12 or reordering
the runs moves no constant by more than 1e-8 (``tests/hybrid/test_fit_small.py``).

A per-layer share of the step cost (c_1 · n_layers) was dropped: fitted beside the fixed cost it
came out at 1.1 µs per layer along a direction of its own with a singular value 0.065 (560 times
below the largest), and dropping it raises the cost by 3e-5 of itself: the runs cannot tell it
from the fixed cost, and the optimiser wandered along it (4 % between two BLAS kernels).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace

import numpy as np

from wattgpu_lite.energy.backbone import Constants, training_runs
from wattgpu_lite.errors import require

#: the constants the Watt Counts runs cannot identify, held at their defaults by a fit on runs
#: alone and freed only across harnesses (the shipped model's candidate frees some): c_seq
#: (``seq_s``, the host's time per sequence in flight: the runs hold a few sequences), t_grp
#: (``expert_group_s``, the time per further expert group a step reads: the runs are all dense;
#: 0 on runs alone, the term's limit), the FP8 and FP4 peaks' shares (the runs are all 16-bit),
#: the collectives' latency over NCCL's model (the runs are all on one GPU) and ROCm's share over
#: CUDA's (the runs are all on NVIDIA GPUs)
ACROSS_HARNESSES = (
    "seq_s", "expert_group_s", "fp8_ratio", "fp4_ratio", "collective_ratio", "rocm_ratio"
)  # fmt: skip
#: the six constants a fit on runs alone frees
NAMES = tuple(f.name for f in fields(Constants) if f.name not in ACROSS_HARNESSES)
#: every fit across harnesses frees t_grp beside the six (external mixture-of-experts rows
#: identify it; no fixed value of it is chosen on rows a fold holds out)
POOLED = (*NAMES, "expert_group_s")
WITH_HOST = (*POOLED, "seq_s")
#: with the FP8 peak's share too; the FP4 share stays 1 (no external row the kit asks runs at an
#: FP4 peak: MXFP4 on Hopper runs at its FP16 peak)
WITH_FORMATS = (*WITH_HOST, "fp8_ratio")
#: with the collectives' latency ratio (energy.backbone.achieved_deploy) instead
WITH_COLLECTIVES = (*WITH_HOST, "collective_ratio")
#: with ROCm's share of the peaks over CUDA's too (energy.backbone.achieved_hw)
WITH_STACK = (*WITH_COLLECTIVES, "rocm_ratio")
LOWER = {"eta_bw": 0.05, "eta_flops": 0.02, "step_s": 1e-6, "kappa": 0.05, "idle_w": 0.0,
         "idle_fraction": 0.0, "seq_s": 0.0, "fp8_ratio": 0.1, "fp4_ratio": 0.1,
         "collective_ratio": 0.1, "rocm_ratio": 0.1, "expert_group_s": 0.0}  # fmt: skip
UPPER = {"eta_bw": 1.0, "eta_flops": 1.0, "step_s": 0.05, "kappa": 10.0, "idle_w": 200.0,
         "idle_fraction": 0.8, "seq_s": 1e-3, "fp8_ratio": 2.0, "fp4_ratio": 2.0,
         "collective_ratio": 30.0, "rocm_ratio": 2.0, "expert_group_s": 1e-4}  # fmt: skip
# each constant's typical size
SCALE = {"eta_bw": 1.0, "eta_flops": 1.0, "step_s": 1e-3, "kappa": 1.0, "idle_w": 10.0,
         "idle_fraction": 0.1, "seq_s": 1e-5, "fp8_ratio": 1.0, "fp4_ratio": 1.0,
         "collective_ratio": 1.0, "rocm_ratio": 1.0, "expert_group_s": 1e-6}  # fmt: skip
LOSS_SCALE = 0.1  # soft-L1: quadratic below ~10 % error, linear above
DIFF_STEP = 1e-7  # finite-difference step, relative to SCALE
JACOBIAN = "2-point"  # forward differences (central ones cost twice as much for the same answer)
TOLERANCE = 1e-15  # ftol, xtol and gtol of the optimiser
MAX_EVALUATIONS = 500  # a fit on every dense run takes about 10


def log_residuals(ts: training_runs.TrainingSet, c: Constants) -> np.ndarray:
    """ln(predicted / measured) of ITL then power, one per run each."""
    pred = training_runs.paper_units(training_runs.physics(ts, c), ts.loads.offline)
    return np.concatenate([np.log(pred[t] / ts.target(t)) for t in ("itl", "power")])


def fit_constants(ts: training_runs.TrainingSet, start: Constants | None = None) -> Constants:
    """The constants minimising the soft-L1 loss of :func:`log_residuals` on ``ts``."""
    return fit_by(lambda c: log_residuals(ts, c), start)


def fit_by(
    residuals: Callable[[Constants], np.ndarray],
    start: Constants | None = None,
    names: tuple[str, ...] = NAMES,
    ftol: float = TOLERANCE,
    max_evaluations: int = MAX_EVALUATIONS,
) -> Constants:
    """The constants minimising the soft-L1 loss of ``residuals(constants)`` (log ratios, weighted
    or not), the constants ``names`` freed (the others kept at ``start``'s), each scaled to order
    1 and bounded as :data:`LOWER` / :data:`UPPER` say; it stops when a step lowers the loss by
    less than ``ftol`` of itself, moves the constants by less than :data:`TOLERANCE` or has
    evaluated the residuals ``max_evaluations`` times."""
    start = Constants() if start is None else start
    scale = np.array([SCALE[n] for n in names])
    lo = np.array([LOWER[n] for n in names]) / scale
    hi = np.array([UPPER[n] for n in names]) / scale
    z0 = np.array([getattr(start, n) for n in names]) / scale
    # a constant starting on its lower bound (c_seq = 0) starts at its typical size instead: the
    # forward difference's step is relative to the value, and none is taken from 0
    z0 = np.clip(np.where(z0 > lo, z0, 1.0), lo + 1e-9, hi)

    def scaled(z: np.ndarray) -> np.ndarray:
        return residuals(replace(start, **dict(zip(names, z * scale, strict=True))))

    # SciPy is the [train] extra: imported here, so importing this module needs numpy only
    least_squares = require("scipy.optimize", "train", "fitting the constants").least_squares
    fit = least_squares(
        scaled,
        z0,
        jac=JACOBIAN,
        bounds=(lo, hi),
        loss="soft_l1",
        f_scale=LOSS_SCALE,
        diff_step=DIFF_STEP,
        ftol=ftol,
        xtol=TOLERANCE,
        gtol=TOLERANCE,
        max_nfev=max_evaluations,
    )
    return replace(start, **{n: float(v) for n, v in zip(names, fit.x * scale, strict=True)})
