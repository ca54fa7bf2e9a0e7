"""Physical mode, numerically: ONE function generated from the sympy terms returns them all.

Equations: :mod:`wattgpu_lite.energy.symbolic_physical` (FLOPs of the active parameters, weights
re-read per decode step — the experts a batch touches —, KV bytes, tensor/expert parallelism,
static power). They are lambdified once, with common subexpressions eliminated
(``lambdify(..., cse=True)``), into a single function returning every (phase, component) term and
both phase times, kept as source in :mod:`~wattgpu_lite.energy._physical_generated` by
:mod:`~wattgpu_lite.energy.codegen` (so this module needs no sympy); everything below broadcasts
over numpy arrays (10^6 rows in one call).
Argument records: :mod:`wattgpu_lite.energy.args`.

Energy coefficients: two bases (:mod:`wattgpu_lite.energy.hardware`) — ``"spec"`` (physical
mode: alpha = TDP / the compute peak) and ``"antepara"`` (microbenchmarks; the low-level default,
which the hybrid predictor's physics features use). This module evaluates the equations at any
constants it is given: ``wl.estimate_energy`` passes the backbone's fitted ones
(:mod:`wattgpu_lite.energy.backbone.energy_terms`); :func:`defaults` reads the raw roofline's κ and
static share from ``energy_coefficients.csv`` for the low-level property tests and the sweep
benchmark.
"""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy import _physical_generated, coefficients, float_twin
from wattgpu_lite.energy.args import (
    SYMBOL_NAMES,
    Deployment,
    Hardware,
    ModelRecord,
    Workload,
    deploy_args,
    gpu_args,
    llm_args,
    model_gpu_args,
    single_gpu,
    symbol_values,
)
from wattgpu_lite.energy.hardware import PHYSICAL_BASIS, constants_scope, gpu_coefficients_j
from wattgpu_lite.errors import InvalidInputError

__all__ = [
    "COMPONENTS",
    "KEYS",
    "LOADS",
    "PHASES",
    "PHYSICAL_BASIS",
    "RECORDS",
    "as_record",
    "configured_symbols",
    "defaults",
    "deploy_args",
    "evaluate_at_load",
    "evaluate_symbols",
    "gpu_args",
    "gpu_coefficients_j",
    "llm_args",
    "model_gpu_args",
    "physical_evaluate",
    "physical_reduced",
    "single_gpu",
]
COMPONENTS, PHASES, KEYS = (
    _physical_generated.COMPONENTS,
    _physical_generated.PHASES,
    _physical_generated.KEYS,
)
LOADS = _physical_generated.LOADS  # the symbols a load sets: the tokens and the batch
BATCH = SYMBOL_NAMES[Workload][Workload._fields.index("batch")]  # the batch's symbol, "B"
BLOCK = 8192  # elements per call of the generated function (:func:`in_blocks`)
# generated from the sympy terms by energy.codegen (a test holds them equal)
_ALL = _physical_generated.evaluate


def defaults(basis: str = "antepara") -> dict[str, float]:
    """kappa and static_fraction fitted for ``basis`` (energy_coefficients.csv)."""
    return {k: coefficients.value(k, constants_scope(basis)) for k in ("kappa", "static_fraction")}


#: the record each argument of :func:`physical_evaluate` must be (energy.args)
RECORDS = {"model": ModelRecord, "workload": Workload, "hardware": Hardware, "deploy": Deployment}


def as_record(name: str, value):
    """``value`` as the record :data:`RECORDS` names for argument ``name``: a record passes; a
    plain tuple of the record's length is read field by field in the record's order (the order of
    energy.args); any other length is refused (InvalidInputError), since it would put values on
    the wrong symbols."""
    record = RECORDS[name]
    if isinstance(value, record):
        return value
    if len(value) != len(record._fields):
        raise InvalidInputError(
            f"{name} has {len(value)} elements; physical mode expects {len(record._fields)}: "
            f"{', '.join(record._fields)}. Build it by name with energy.args.{record.__name__}"
            " (or llm_args, gpu_args / model_gpu_args, deploy_args)."
        )
    return record._make(value)


def physical_evaluate(model, workload, hardware, *, kappa, deploy=None):
    """({(phase, component): J per request of the replica}, {phase: s per request}), one call of
    the generated function, every symbol passed by name (energy.args.SYMBOL_NAMES)."""
    return evaluate_symbols(symbol_arrays(model, workload, hardware, kappa=kappa, deploy=deploy))


def physical_reduced(reduce, model, workload, hardware, *, kappa, deploy=None) -> list:
    """``reduce(*physical_evaluate(...))`` for an elementwise ``reduce`` (each output value
    made of the same row's terms and times alone), applied block by block (:func:`in_blocks`):
    the same values, and only ``reduce``'s outputs are made at the full size, not the fourteen
    terms and times (fresh memory costs a long call more than the sums do)."""
    args = symbol_arrays(model, workload, hardware, kappa=kappa, deploy=deploy)

    def reduced(**block):
        terms, times = _named(list(_ALL(**block)))
        return reduce(terms, times)

    return in_blocks(reduced, args, _shape(args))


def symbol_arrays(model, workload, hardware, *, kappa, deploy=None) -> dict[str, np.ndarray]:
    """{symbol name: float array} of :func:`physical_evaluate`'s arguments, the generated
    function's keywords (:func:`evaluate_symbols` takes them; a caller evaluating the same rows
    at several batches converts them once and sets :data:`BATCH` alone)."""
    deploy = single_gpu() if deploy is None else deploy
    records = {"model": model, "workload": workload, "hardware": hardware, "deploy": deploy}
    named = {"kappa": kappa}
    for name, value in records.items():
        named.update(symbol_values(as_record(name, value)))
    return {k: np.asarray(v, dtype=float) for k, v in named.items()}


def evaluate_symbols(named: dict) -> tuple[dict, dict]:
    """:func:`physical_evaluate` of its arguments given by symbol name (energy.args.SYMBOL_NAMES
    and kappa): the call of the generated function every evaluation of the physics makes but
    :func:`physical_reduced`'s (block by block)."""
    args = {k: np.asarray(v, dtype=float) for k, v in named.items()}
    shape = _shape(args)
    return _named([_full(v, shape) for v in in_blocks(_ALL, args, shape)])


def configured_symbols(named: dict) -> dict:
    """The part of the physics that reads no load (:data:`LOADS`, the tokens and the batch) of
    its arguments by symbol name but those: the values the generated ``at_load`` reads (by
    name), kept by a caller that evaluates one configuration at many loads
    (:func:`evaluate_at_load`)."""
    arrays = {k: np.asarray(v, dtype=float) for k, v in named.items()}
    if np.any(arrays["N_TP"] != 1) or np.any(arrays["N_EP"] != 1):
        return arrays  # groups across nodes: the arguments kept, evaluated whole at each load
    values = _physical_generated.configured(**arrays)
    return dict(zip(_physical_generated.CONFIGURED, values, strict=True))


def flat(configured: dict) -> dict:
    """``configured`` (:func:`configured_symbols`') as a :class:`~.float_twin.Flat` when it is one
    (not kept whole; every value a float array of n <= :data:`BLOCK`); else itself."""
    if "N_TP" in configured:  # kept whole: evaluate's arguments, not at_load's
        return configured
    return float_twin.flat(configured, _physical_generated.at_load, loads=LOADS, most=BLOCK)


def evaluate_at_load(configured: dict, loads: dict) -> tuple[dict, dict]:
    """:func:`evaluate_symbols` of a configuration's arguments, from its
    :func:`configured_symbols` and the :data:`LOADS` by name: the same values, from the
    operations that read a load alone (a :class:`~.float_twin.Flat` one at float loads of its
    shape: one call, or its elements on floats, the same values)."""
    shape = getattr(configured, "shape", None)
    if shape is not None and all(
        type(v) is np.ndarray and v.dtype is _FLOAT and v.shape == shape for v in loads.values()
    ):
        elements = configured.elements  # type: ignore[attr-defined]  # a Flat's
        got = elements and float_twin.twin_values(elements, loads)
        if got:  # one float array of the elements per output
            return _named(list(np.array(got, dtype=float).T))
        return _named([_full(v, shape) for v in _physical_generated.at_load(**configured, **loads)])
    args = {**configured, **{k: np.asarray(v, dtype=float) for k, v in loads.items()}}
    shape = np.broadcast_shapes(*{np.shape(a) for a in args.values()})
    whole = "N_TP" in configured  # kept whole by configured_symbols: a replica over nodes
    fn = _physical_generated.evaluate if whole else _physical_generated.at_load
    return _named([_full(v, shape) for v in in_blocks(fn, args, shape)])


def _shape(args: dict[str, np.ndarray]) -> tuple[int, ...]:
    """The broadcast shape of the generated function's arguments (each distinct shape once)."""
    return np.broadcast_shapes(*{a.shape for a in args.values()})


def _named(out: list) -> tuple[dict, dict]:
    """The generated function's outputs as ({(phase, component): term}, {phase: time})."""
    terms = dict(zip(KEYS, out[: len(KEYS)], strict=True))
    return terms, dict(zip(PHASES, out[len(KEYS) :], strict=True))


def in_blocks(fn, args: dict, shape: tuple) -> list:
    """The outputs of ``fn(**args)``, a generated function of elementwise operations only; a long
    call (``shape`` (..., n), n > :data:`BLOCK`) in blocks of BLOCK elements of the last axis,
    whose temporaries stay in cache: the arguments of that last axis sliced, the others whole,
    each output an array of ``shape`` with the one-call values."""
    if not shape or shape[-1] <= BLOCK:
        return list(fn(**args))
    out: list[np.ndarray] = []
    last = shape[-1:]
    for s in range(0, shape[-1], BLOCK):
        part = slice(s, s + BLOCK)
        got = fn(**{k: v[..., part] if np.shape(v)[-1:] == last else v for k, v in args.items()})
        out = out or [np.empty(shape) for _ in got]
        for whole, v in zip(out, got, strict=True):
            whole[..., part] = v
    return out


_FLOAT = np.dtype(float)  # a float64 array's dtype (compared by identity: a fallback copies none)


def _full(value, shape: tuple) -> np.ndarray:
    """``value`` as a float array of ``shape`` (a constant term, e.g. 0, is broadcast)."""
    if isinstance(value, np.ndarray) and value.shape == shape and value.dtype is _FLOAT:
        return value
    return np.broadcast_to(np.asarray(value, dtype=float), shape)
