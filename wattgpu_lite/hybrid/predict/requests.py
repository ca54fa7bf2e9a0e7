"""One validation of a prediction request, used by ``wl.predict`` and by every row of
``wl.predict_many``: the same checks (:mod:`wattgpu_lite.checks`, the layout's, the weight
format's), in the same order, with the same messages.

    check_request(model, device, rate_qps=0.1, t_in=500, t_out=300)   # -> Request

A frame's rows go through the same checks (:mod:`~wattgpu_lite.hybrid.predict.frame_checks`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from wattgpu_lite import checks
from wattgpu_lite.energy.args import check_deployment, deploy_args
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.energy.precision import canonical_format, served_format
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.runs.schema import LAMBDA_QPS, SCENARIOS
from wattgpu_lite.specs.engine import check_serving
from wattgpu_lite.specs.layout import MAX_GPUS, Parallel, layout_of
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT, OFFLINE_PROMPTS


@dataclass(frozen=True)
class Request:
    """A checked request: the replica's layout, the served weight format, the load (rate in
    req/s or NaN, batch or NaN, an offline scenario?), the token counts, and how it is served
    (the KV cache's format, the engine, its concurrency limit)."""

    layout: Parallel
    weights: str
    rate_qps: float
    batch: float
    offline: bool
    t_in: int
    t_out: int
    kv_cache: str  # "auto", "bf16", "fp16" or "fp8"
    engine: str  # a name of data/engines.csv
    max_num_seqs: int  # the engine's concurrency limit


def resolve_load(scenario, rate_qps, batch) -> tuple[float, float, bool]:
    """(rate or NaN, batch or NaN, offline scenario?) from exactly one of the three."""
    given = [
        k
        for k, v in (("scenario", scenario), ("rate_qps", rate_qps), ("batch", batch))
        if v is not None
    ]
    if len(given) != 1:
        raise InvalidInputError(
            "give exactly one load: scenario= (offline, server_low, server_high), rate_qps= "
            f"(requests/s) or batch= (sequences); got {given or 'none'}"
        )
    if scenario is not None:
        if scenario not in SCENARIOS:
            raise InvalidInputError(f"unknown scenario {scenario!r}; use one of {SCENARIOS}")
        return LAMBDA_QPS.get(scenario, math.nan), math.nan, scenario == "offline"
    if rate_qps is not None:
        return checks.check_rate_qps(rate_qps), math.nan, False
    return math.nan, float(checks.check_batch(batch)), False


def check_num_gpus(num_gpus, model, device):
    """A whole number of GPUs in [1, 64] (or a :class:`Parallel`) whose layout splits the heads
    and experts evenly (vLLM's rules), on a GPU whose spec gives the interconnect bandwidth when
    there are several. Returns what it was given (an int stays an int)."""
    if isinstance(num_gpus, Parallel):
        check_deployment(model, num_gpus)
        deploy_args(device, num_gpus)  # InvalidInputError when the link bandwidth is unknown
        return num_gpus
    ok = isinstance(num_gpus, int | np.integer) and not isinstance(num_gpus, bool)
    if not ok or not 1 <= num_gpus <= MAX_GPUS:
        raise InvalidInputError(
            f"num_gpus must be a whole number in [1, {MAX_GPUS}], got {num_gpus!r}; "
            "pass e.g. num_gpus=1, 2, 4 or 8"
        )
    check_deployment(model, int(num_gpus), False)
    if num_gpus > 1:  # one GPU has no link (deploy_args builds its record without reading one)
        deploy_args(device, int(num_gpus))  # InvalidInputError when the link bandwidth is unknown
    return int(num_gpus)


def check_request(
    model,
    device,
    *,
    num_gpus=1,
    parallel: Parallel | None = None,
    weights: str | None = None,
    scenario: str | None = None,
    rate_qps=None,
    batch=None,
    t_in=DEFAULT_T_IN,
    t_out=DEFAULT_T_OUT,
    kv_cache=None,
    engine=None,
    max_num_seqs=None,
) -> Request:
    """Every check ``wl.predict`` makes on one request, in its order (layout, weight format,
    KV cache, engine and its concurrency limit, load, tokens); the first that fails raises
    (InvalidInputError naming the field and the fix).
    """
    layout = check_num_gpus(layout_of(num_gpus, parallel), model, device)
    fmt = served_format(model, None if weights is None else canonical_format(weights))
    kv_format, engine_name, seqs_limit = check_serving(kv_cache, engine, max_num_seqs)
    rate, bat, offline = resolve_load(scenario, rate_qps, batch)
    t_in, t_out = checks.check_tokens(t_in, t_out, model.context_length)
    return Request(
        layout=layout,
        weights=fmt,
        rate_qps=rate,
        batch=bat,
        offline=offline,
        t_in=t_in,
        t_out=t_out,
        kv_cache=kv_format,
        engine=engine_name,
        max_num_seqs=seqs_limit,
    )


def offline_batch(cap: np.ndarray) -> np.ndarray:
    """Sequences in flight offline: the Watt Counts load (``OFFLINE_PROMPTS`` prompts at once) on
    the ``cap`` sequences each replica holds
    (:func:`~wattgpu_lite.energy.backbone_rows.offline_in_flight`): the one offline rule of
    ``wl.predict``, the plans of ``wl.rank_gpus`` and the fit's runs."""
    return row_arrays.offline_in_flight(cap, OFFLINE_PROMPTS)
