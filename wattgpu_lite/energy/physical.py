"""Physical mode, numerically: ONE function generated from the sympy terms returns them all.

Equations: :mod:`wattgpu_lite.energy.symbolic_physical` (FLOPs of the active parameters, weights
re-read per decode step — the experts a batch touches —, KV bytes, tensor/expert parallelism,
static power). They are lambdified once, with common subexpressions eliminated
(``lambdify(..., cse=True)``), into a single function returning every (phase, component) term and
both phase times, kept as source in :mod:`~wattgpu_lite.energy._physical_generated` by
:mod:`~wattgpu_lite.energy.codegen` (so this module needs no sympy); everything below broadcasts
over numpy arrays (10^6 rows in one call).
Argument tuples: :mod:`wattgpu_lite.energy.args`.

Energy coefficients: two bases (:mod:`wattgpu_lite.energy.hardware`) — ``"spec"`` (physical
mode: alpha = TDP / the compute peak) and ``"antepara"`` (microbenchmarks; the low-level default,
which the hybrid predictor's physics features use). This module evaluates the equations at any
constants it is given: ``wl.estimate_energy`` passes the backbone's fitted ones
(:mod:`wattgpu_lite.energy.backbone_energy`); :func:`defaults` reads the raw roofline's κ and
static share from ``energy_coefficients.csv`` for the low-level property tests and the sweep
benchmark.
"""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy import _physical_generated as G
from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy.args import deploy_args, gpu_args, llm_args, model_gpu_args, single_gpu
from wattgpu_lite.energy.hardware import PHYSICAL_BASIS, constants_scope, gpu_coefficients_j
from wattgpu_lite.errors import InvalidInputError

__all__ = ["COMPONENTS", "KEYS", "PHASES", "PHYSICAL_BASIS", "active_time_s",
           "defaults", "deploy_args", "gpu_args", "gpu_coefficients_j", "llm_args",
           "model_gpu_args", "phase_time_s", "physical_evaluate", "physical_terms_j",
           "single_gpu"]  # fmt: skip
COMPONENTS, PHASES, KEYS = G.COMPONENTS, G.PHASES, G.KEYS
_ALL = G.evaluate  # generated from the sympy terms by energy.codegen (a test holds them equal)


def defaults(basis: str = "antepara") -> dict[str, float]:
    """kappa and static_fraction fitted for ``basis`` (energy_coefficients.csv)."""
    return {k: D.value(k, constants_scope(basis)) for k in ("kappa", "static_fraction")}


#: fields of each argument tuple, in the generated function's order (energy.args)
_K = G.ARG_NAMES.index("kappa")
FIELDS = {"model_args": G.ARG_NAMES[: G.ARG_NAMES.index("T_in")],
          "workload": G.ARG_NAMES[G.ARG_NAMES.index("T_in"): G.ARG_NAMES.index("B") + 1],
          "hw_args": G.ARG_NAMES[G.ARG_NAMES.index("B") + 1: _K],
          "deploy": G.ARG_NAMES[_K + 1:]}  # fmt: skip


def check_tuples(**tuples) -> None:
    """InvalidInputError unless each argument tuple has its fields (:data:`FIELDS`): a tuple of
    the wrong length would shift every later argument onto the wrong symbol."""
    for name, value in tuples.items():
        if len(value) != len(FIELDS[name]):
            raise InvalidInputError(
                f"{name} has {len(value)} elements; physical mode expects {len(FIELDS[name])}: "
                f"{', '.join(FIELDS[name])}. Build it with energy.args (llm_args, gpu_args / "
                "model_gpu_args, deploy_args)."
            )


def physical_evaluate(model_args, workload, hw_args, kappa, deploy=None):
    """({(phase, component): J per request of the replica}, {phase: s per request}), one call."""
    deploy = single_gpu() if deploy is None else deploy
    check_tuples(model_args=model_args, workload=workload, hw_args=hw_args, deploy=deploy)
    args = [np.asarray(x, dtype=float) for x in (*model_args, *workload, *hw_args, kappa, *deploy)]
    shape = np.broadcast_shapes(*(a.shape for a in args))
    out = [_full(v, shape) for v in _ALL(*args)]
    return dict(zip(KEYS, out[: len(KEYS)], strict=True)), dict(zip(PHASES, out[len(KEYS):],
                                                                    strict=True))  # fmt: skip


def _full(value, shape: tuple) -> np.ndarray:
    """``value`` as a float array of ``shape`` (a constant term, e.g. 0, is broadcast)."""
    if isinstance(value, np.ndarray) and value.shape == shape and value.dtype == float:
        return value
    return np.broadcast_to(np.asarray(value, dtype=float), shape)


def physical_terms_j(model_args, workload, hw_args, kappa, deploy=None) -> dict:
    """{(phase, component): J per request for the whole replica}; workload = (t_in, t_out, batch)."""
    return physical_evaluate(model_args, workload, hw_args, kappa, deploy)[0]


def phase_time_s(phase: str, model_args, workload, hw_args, kappa, deploy=None):
    """Time of ``phase`` per request (s): the batch's roofline + communication time / B."""
    return physical_evaluate(model_args, workload, hw_args, kappa, deploy)[1][phase]


def active_time_s(model_args, workload, hw_args, kappa, deploy=None):
    """Time per request (s), prefill + decode (the batch's time divided by B)."""
    times = physical_evaluate(model_args, workload, hw_args, kappa, deploy)[1]
    return times["prefill"] + times["decode"]
