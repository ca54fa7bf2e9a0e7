"""The one checked request of the kit: built once by every entry point — ``wl.predict``,
``wl.explain``, ``wl.estimate_energy`` (physical mode), each row of ``wl.predict_many``,
``wl.rank_gpus`` (hybrid source) and so the CLI — by the same checks (:mod:`wattgpu_lite.checks`,
the layout's, the formats', the engine's), in the same order, with the same messages.

    check_request(model, device, rate_qps=0.1, t_in=500, t_out=300)   # -> Request
    check_asked(model, batch=8, t_in=500, t_out=300)   # a ranking's: no GPU, no layout yet

Order: the layout (:func:`check_num_gpus`: the heads and experts split, the link is known), the
weight format, the KV cache, the engine and its concurrency limit, the load
(:func:`resolve_load`), the tokens (within the model's context length), the level.
A frame's rows go through the same checks (:mod:`~wattgpu_lite.hybrid.predict.frame_checks`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from wattgpu_lite import checks
from wattgpu_lite.energy.args import check_deployment, deploy_args
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.energy.occupancy import kv_capacity_seqs
from wattgpu_lite.energy.precision import canonical_format, served_format
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.runs.schema import LAMBDA_QPS, SCENARIOS
from wattgpu_lite.specs.engine import check_serving
from wattgpu_lite.specs.gpu import GPU
from wattgpu_lite.specs.layout import MAX_GPUS, Parallel, layout_of
from wattgpu_lite.specs.llm import LLM
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT, OFFLINE_PROMPTS

NO_LEVEL: Any = object()  # check_asked's level when no interval is asked (a None given is checked)


@dataclass(frozen=True)
class Request:
    """A checked request. It owns the resolved ``llm`` and ``gpu``, the replica's ``layout``
    (``gpu`` and ``layout`` None in a ranking's request, whose plans each name theirs,
    :func:`check_num_gpus`), the formats (``weights`` served, ``kv_cache``), the ``engine`` and
    its concurrency limit, the load (``rate_qps`` in req/s or NaN, ``batch`` or NaN, ``offline``:
    the Watt Counts offline scenario, whose batch :meth:`batch_at` gives), the tokens and the
    interval ``level`` (None where no interval is asked: ``wl.estimate_energy``)."""

    llm: LLM
    gpu: GPU | None
    layout: Parallel | None
    weights: str
    rate_qps: float
    batch: float
    offline: bool
    t_in: int
    t_out: int
    kv_cache: str  # "auto", "bf16", "fp16" or "fp8"
    engine: str  # a name of data/engines.csv
    max_num_seqs: int  # the engine's concurrency limit
    level: float | None = None
    weights_asked: str | None = None  # the format asked, None: the model's own (notes read it)

    def batch_at(self, cap: np.ndarray) -> float:
        """The batch the request runs at: its own, or offline :func:`offline_batch` on the
        ``cap`` sequences its replica holds (one entry: this request's)."""
        return float(offline_batch(cap)[0]) if self.offline else self.batch

    def serving_args(self) -> dict:
        """The KV cache, engine and concurrency limit as keywords of ``steps.predict_arrays`` /
        :func:`~wattgpu_lite.energy.backbone.row_arrays.build`; empty at the defaults (vLLM,
        "auto", 256), whose arrays are built as before."""
        given = (self.kv_cache, self.engine, self.max_num_seqs)
        if given == check_serving():
            return {}
        return dict(zip(("kv_cache", "engine", "max_num_seqs"), given, strict=True))

    def fitting_hint(self) -> str:
        """The hint a CapacityError of ``wl.predict`` adds: "try num_gpus=N" when N GPUs of the
        request's GPU hold what its layout does not (:func:`fewest_gpus_that_fit`), or ""."""
        model, device, t_in, t_out = self.llm, self.gpu, self.t_in, self.t_out
        serving = {"kv_cache": self.kv_cache, "engine": self.engine}
        layout = {"num_gpus": self.layout, "weights": self.weights}
        if kv_capacity_seqs(model, device, t_in, t_out, **layout, **serving) >= 1:
            return ""
        start = self.layout.num_gpus
        n = fewest_gpus_that_fit(
            model, device, self.weights, t_in, t_out=t_out, start=start, **serving
        )
        return "" if n is None else f"try num_gpus={n} ({n} × {device.name}, tensor parallel)"


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


def check_workload(
    context_length, *, scenario=None, rate_qps=None, batch=None, t_in, t_out
) -> tuple[float, float, bool, int, int]:
    """(rate, batch, offline, t_in, t_out): the load (:func:`resolve_load`), then the tokens
    within ``context_length`` (None: unknown, a bare model size); ``wl.estimate_energy``'s paper
    mode takes these checks alone."""
    rate, bat, offline = resolve_load(scenario, rate_qps, batch)
    return (rate, bat, offline, *checks.check_tokens(t_in, t_out, context_length))


def check_num_gpus(num_gpus, model, device, *, expert_parallel: bool = False):
    """A whole number of GPUs in [1, 64] (or a :class:`Parallel`) whose layout splits the heads
    and experts evenly (vLLM's rules; ``expert_parallel``: the experts over the same GPUs, which
    needs a MoE), on a GPU whose spec gives the interconnect bandwidth when there are several.
    Returns what it was given (an int stays an int)."""
    if isinstance(num_gpus, Parallel):
        check_deployment(model, num_gpus, expert_parallel)
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


def fewest_gpus_that_fit(
    model, device, weights: str, t_in: int, *, t_out: int, start=1, kv_cache=None, engine=None
) -> int | None:
    """The fewest tensor-parallel GPUs above ``start`` (and at most MAX_GPUS) on which ``model``
    runs at all, by the kit's one memory rule: the KV cache of the replica (at ``kv_cache``, in
    the ``engine``'s share of memory) holds at least one sequence of ``t_in`` + ``t_out`` tokens
    beside the weights (:func:`~wattgpu_lite.energy.occupancy.kv_capacity_seqs` ≥ 1), and the
    layout splits the heads evenly (:func:`check_num_gpus`); None when no count does."""
    serving = {"weights": weights, "kv_cache": kv_cache, "engine": engine}
    for n in range(start + 1, MAX_GPUS + 1):
        try:
            check_num_gpus(n, model, device)
        except InvalidInputError:
            continue
        if kv_capacity_seqs(model, device, t_in, t_out, num_gpus=n, **serving) >= 1:
            return n
    return None


def check_request(
    model: LLM,
    device: GPU,
    *,
    num_gpus=1,
    parallel: Parallel | None = None,
    expert_parallel: bool = False,
    **asked,
) -> Request:
    """Every check of one request, in the module docstring's order: the layout of ``num_gpus``
    or ``parallel`` (with ``expert_parallel``, ``wl.estimate_energy``'s) on ``device``, then
    :func:`check_asked`'s (``asked``: its keywords); the first that fails raises
    (InvalidInputError naming the field and the fix)."""
    layout = layout_of(num_gpus, parallel, expert_parallel)
    layout = check_num_gpus(layout, model, device, expert_parallel=expert_parallel)
    return check_asked(model, device=device, layout=layout, **asked)


def check_asked(
    model: LLM,
    *,
    device: GPU | None = None,
    layout: Parallel | None = None,
    weights: str | None = None,
    scenario: str | None = None,
    rate_qps=None,
    batch=None,
    t_in=DEFAULT_T_IN,
    t_out=DEFAULT_T_OUT,
    kv_cache=None,
    engine=None,
    max_num_seqs=None,
    level=NO_LEVEL,
) -> Request:
    """The checks that need no GPU nor layout — the weight format, KV cache, engine and its
    concurrency limit, load, tokens, level (:data:`NO_LEVEL`: none asked; a None given is an
    error, never an interval at no level) — and the :class:`Request`
    (``device`` and ``layout`` already checked, or None: a ranking's request)."""
    fmt = served_format(model, None if weights is None else canonical_format(weights))
    asked = None if weights is None else str(weights).lower()  # fp32 stays fp32 here
    kv_format, engine_name, seqs_limit = check_serving(kv_cache, engine, max_num_seqs)
    rate, bat, offline, t_in, t_out = check_workload(
        model.context_length,
        scenario=scenario,
        rate_qps=rate_qps,
        batch=batch,
        t_in=t_in,
        t_out=t_out,
    )
    return Request(
        llm=model,
        gpu=device,
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
        level=None if level is NO_LEVEL else checks.check_level(level),
        weights_asked=asked,
    )


def offline_batch(cap: np.ndarray) -> np.ndarray:
    """Sequences in flight offline: the Watt Counts load (``OFFLINE_PROMPTS`` prompts at once) on
    the ``cap`` sequences each replica holds
    (:func:`~wattgpu_lite.energy.backbone.row_arrays.offline_in_flight`): the one offline rule of
    ``wl.predict``, the plans of ``wl.rank_gpus`` and the fit's runs."""
    return row_arrays.offline_in_flight(cap, OFFLINE_PROMPTS)
