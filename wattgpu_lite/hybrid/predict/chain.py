"""The chain: what the predictor offers the chapters above it. ``selection/`` reaches ``hybrid/``
and ``energy/`` through this module alone (a test holds it).

A prediction runs named steps, resolve → rows → physics → correction → bounds → intervals
(:mod:`~wattgpu_lite.hybrid.predict.steps`); here they are asked for many plans at once — a plan
being a deployment: a GPU and the :class:`~wattgpu_lite.specs.layout.Parallel` layout of one
replica, one per row — and for one request:

- :func:`plan_rows`, :func:`predict_plans`, :func:`offline_batch`: the plans' rows, their
  prediction at a rate or a batch, the offline batch;
- :func:`replicas`, whose ``max_rate_under_sla(sla_s)`` is the SLA search over loads, the largest
  rate one replica serves within an ITL (:mod:`~wattgpu_lite.hybrid.predict.sla`);
- :func:`step_shares`, :func:`weights_per_gpu_gb`: why one layout beats another; the checks a
  request goes through (memory fit; the layout per plan, :func:`check_num_gpus`; the rest once,
  :func:`check_asked`: formats, engine, load, tokens, level — the kit's one checked request);
- ``predict``, ``explain``, ``estimate_energy`` and their results, and :func:`predict_for_spec`
  (bring your own GPU: a spec sheet → a tidy table, the form of
  :func:`wattgpu_lite.face.widgets.byo_gpu_form`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from wattgpu_lite.energy import backbone, many_calls
from wattgpu_lite.energy.backbone.training_runs import measured_boards
from wattgpu_lite.energy.estimate import estimate_energy
from wattgpu_lite.energy.occupancy import memory_need_bytes, memory_why_not, replica_weight_bytes
from wattgpu_lite.energy.request import check_asked, check_num_gpus, offline_batch, resolve_load
from wattgpu_lite.energy.result import EnergyEstimate
from wattgpu_lite.hybrid.predict import sla, steps
from wattgpu_lite.hybrid.predict.api import DEFAULT_LEVEL, predict
from wattgpu_lite.hybrid.predict.explain import explain
from wattgpu_lite.hybrid.predict.explanation import Explanation
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.prediction import Prediction
from wattgpu_lite.hybrid.predict.result import ITL_FROM, ITL_FROM_OTHERS, StepResult
from wattgpu_lite.hybrid.predict.sla import plan_rows
from wattgpu_lite.specs.catalog import GPU, gpu
from wattgpu_lite.specs.layout import Parallel


def predict_plans(
    llm, gpus, layouts, t_in, *, t_out, rate, batch, level, weights=None, built=None, serving=None
) -> StepResult:
    """The :class:`~wattgpu_lite.hybrid.predict.result.StepResult` of every plan at once (a rate
    [req/s] or a batch per plan, the other NaN), by the steps ``wl.predict`` runs
    (:func:`~wattgpu_lite.hybrid.predict.steps.predict_arrays`); ``built``: :func:`plan_rows`'."""
    n = len(gpus)
    model = HybridState.pretrained()
    return steps.predict_arrays(
        model,
        [llm] * n,
        gpus,
        t_in,
        t_out=t_out,
        rate_qps=rate,
        batch=batch,
        level=level,
        num_gpus=layouts,
        weights=[weights] * n,
        built=built,
        **(serving or {}),
    )


def replicas(llm, gpus, layouts, t_in, *, t_out, weights=None, serving=None) -> sla.Replicas:
    """The :class:`~wattgpu_lite.hybrid.predict.sla.Replicas` of the deployments ``gpus`` ×
    ``layouts``: their rows, KV capacity, capacity rate [req/s] and what the SLA search reads,
    built once (``serving`` as :func:`plan_rows`')."""
    model = HybridState.pretrained()
    return sla.replicas(
        model, llm, gpus, layouts, t_in=t_in, t_out=t_out, weights=weights, serving=serving
    )


def ideal_links(rows: backbone.Rows, whole: bool = False) -> backbone.Rows:
    """The same rows over ideal links (no latency, infinite bandwidth: no collective time);
    ``whole``: the layout's whole term set to zero (also no expert groups, attention split over
    the whole replica so no replicated weights)."""
    g = rows.deploy.num_gpus
    zero, inf = np.zeros_like(g), np.full_like(g, np.inf)
    ideal = rows.deploy._replace(
        link_bytes_s=inf,
        collective_latency_s=zero,
        hop_latency_s=zero,
        net_bytes_s=inf,
        net_hop_latency_s=zero,
    )
    if whole:
        ideal = ideal._replace(tp=g, expert_dispatch=zero, expert_group_s=zero)
    return replace(rows, deploy=ideal)


def step_shares(rows: backbone.Rows, batch) -> dict[str, np.ndarray]:
    """Per plan (``rows``: the plans' backbone rows, a :class:`StepResult`'s), shares of one
    decode step at ``batch`` sequences (NaN: 1): ``comm_share`` (collectives: all-reduces,
    all-to-alls) and ``layout_share`` (the layout's whole term, with the expert groups and
    replicated weights)."""
    constants = HybridState.pretrained().constants
    b = np.maximum(np.nan_to_num(np.asarray(batch, dtype=float), nan=1.0), 1.0)
    three = (rows, ideal_links(rows), ideal_links(rows, whole=True))
    found = many_calls.physical_evaluate_each(
        [backbone.request_call(r, b, constants) for r in three]
    )
    # backbone.step_time_s of each, from one evaluation of the physics
    full, links, ideal = (backbone.step_from_times(rows.t_out, b, f[1], constants) for f in found)
    return {"comm_share": 1.0 - links / full, "layout_share": 1.0 - ideal / full}


def weights_per_gpu_gb(llm, layout: Parallel, weights) -> float:
    """GB of weights one GPU of the replica holds (replicated attention weights included)."""
    return replica_weight_bytes(llm, layout, weights) / layout.num_gpus / 1e9


# bring your own GPU: the spec fields the form shows (the predictor's GPU inputs), units in names
FORM_FIELDS = (
    "name",
    "release_year",
    "architecture",
    "memory_gb",
    "memory_type",
    "bandwidth_gbs",
    "fp16_tflops",
    "tdp_w",
)
UNITS = {"power_w": "W", "itl_s": "s", "time_per_token_s": "s", "energy_per_token_j": "J"}


def spec_template(like: str = "H100 NVL") -> dict:
    """A complete spec dict copied from a catalog GPU, to edit field by field."""
    row = gpu(like)
    return {f: getattr(row, f) for f in GPU.__dataclass_fields__} | {"measured": False}


def predict_for_spec(spec: dict, llm: str, rate_qps=None, batch=None, level: float = 0.8):
    """(tidy table: quantity, value, lo, hi, unit, level, basis; notes) for a GPU from ``spec``.

    SpecError names a bad field; CapacityError says when the load is beyond the GPU.
    """
    p = predict(llm, GPU.from_spec(spec), rate_qps=rate_qps, batch=batch, level=level)
    table = pd.DataFrame(p.rows(), columns=["quantity", "value", "lo", "hi"])
    table["unit"] = table["quantity"].map(UNITS)
    return table.assign(level=level, basis=p.power_w_interval.basis), p.notes


__all__ = [
    "DEFAULT_LEVEL",
    "EnergyEstimate",
    "Explanation",
    "FORM_FIELDS",
    "HybridState",
    "ITL_FROM",
    "ITL_FROM_OTHERS",
    "Prediction",
    "StepResult",
    "check_asked",
    "check_num_gpus",
    "estimate_energy",
    "explain",
    "measured_boards",
    "memory_need_bytes",
    "memory_why_not",
    "offline_batch",
    "plan_rows",
    "predict",
    "predict_for_spec",
    "predict_plans",
    "replicas",
    "resolve_load",
    "spec_template",
    "step_shares",
    "weights_per_gpu_gb",
]
