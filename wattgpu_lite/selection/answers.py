"""The kit's answers at the wall: ``wl.predict``, ``wl.estimate_energy`` and ``wl.explain``.

    p = wl.predict("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", rate_qps=0.5, region="FR")
    p.wall["g_co2e_per_request"], p.wall["price_note"], p.defaults["pue"]
    p.to_json()          # exactly `predict --json` (the same for estimate, explain and rank)

The predictor (:mod:`wattgpu_lite.hybrid.predict`) and the physics (:mod:`wattgpu_lite.energy`)
answer at the accelerator; these front doors take the facility's inputs too — ``region`` (or
``grid_gco2_per_kwh``), ``pue`` and ``price_per_kwh`` — and return the same result with:

- ``wall``: energy at the wall (accelerator energy × PUE) per request and per 1,000 generated
  tokens, its g CO2e (E_wall / 3.6e6 J/kWh × grid gCO2e/kWh) and its electricity cost
  (E_wall / 3.6e6 × price), with the inputs echoed — the PUE, the grid and where it comes from,
  the price, its ``currency`` and the region it is a price of (``price_region``), and a
  ``price_note`` when the grid is one region's and the price another's;
- ``defaults``: each of the kit's defaults the answer used (``t_in``, ``t_out``,
  ``grid_gco2_per_kwh``, ``price_per_kwh``, ``pue``), ``{"value": ..., "source": ...}``, the
  source ``"built-in"`` (the kit's default), ``"given"``, ``"workload NAME"`` or ``"region XX"``
  (the CLI adds ``"environment VAR"`` and ``"config FILE"``), and ``workload`` (its name and
  ``reference``, the trace it summarises) when a workload gave a token count;
- ``workload=``: a named request workload of data/workloads.csv (``"azure-conv-2023"``; default
  ``"watt-counts"``, 15 in and 180 out) giving ``t_in`` and ``t_out``; a count passed wins over
  the workload's (:func:`wattgpu_lite.specs.workload.request_tokens`);
- ``name=``: what to call a model you bring (a config.json), instead of its Hub id or
  "custom model" (:func:`wattgpu_lite.specs.resolve.resolve_llm`).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from wattgpu_lite.hybrid.predict import chain
from wattgpu_lite.hybrid.predict.chain import (
    DEFAULT_LEVEL,
    EnergyEstimate,
    Explanation,
    HybridState,
    Prediction,
)
from wattgpu_lite.selection.wall import price_rows, resolve_price, wall_for, wall_for_request
from wattgpu_lite.specs.layout import Parallel
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import BUILT_IN, GIVEN, request_tokens


def price_echo(region: str | None, price_per_kwh: float | None) -> dict[str, str]:
    """The price's ``currency`` (the table's: a price you give is read in it, as every cost
    column's header says), where it was priced (``price_region``: "given", ``region``'s own row,
    or the default row) and a ``price_note`` when ``region``'s grid is priced at the default
    ("" else): :func:`~wattgpu_lite.selection.wall.resolve_price`, the one rule."""
    _, where, note = resolve_price(region, price_per_kwh)
    return {"currency": _currency(), "price_region": where, "price_note": note}


@cache
def _currency() -> str:
    """The price table's currency: its default row's unit before the "/" (read once)."""
    return str(price_rows()[1]["unit"]).split("/")[0]


def defaults_of(
    wall: dict[str, Any],
    region: str | None,
    given: dict[str, Any],
    tokens: dict[str, dict[str, Any]] | None,
) -> dict[str, dict[str, Any]]:
    """``{key: {"value", "source"}}`` for the kit's defaults an answer used: the token counts and
    their workload (``tokens``, :func:`~wattgpu_lite.specs.workload.request_tokens`' echo; None
    when the answer has none of its own), and the wall's inputs, "built-in" unless ``given`` (the
    arguments as passed) holds one, the grid "region XX" when a region decides it."""
    out: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (tokens or {}).items()}
    for key in ("grid_gco2_per_kwh", "price_per_kwh", "pue"):
        source = GIVEN if given.get(key) is not None else BUILT_IN
        if key == "grid_gco2_per_kwh" and region is not None:
            source = f"region {region}"
        out[key] = {"value": wall[key], "source": source}
    return out


def _at_wall(result, w: dict[str, Any], tokens, *, region, given: dict[str, Any]):
    """``result`` with ``wall`` (``w`` and :func:`price_echo`) and ``defaults`` filled
    (:func:`defaults_of`); ``tokens``: (the checked t_in and t_out, their echo); ``given``: the
    wall's inputs as passed (``pue``, ``grid_gco2_per_kwh``, ``price_per_kwh``)."""
    checked, echo = tokens
    echo = {
        **echo,
        "t_in": {**echo["t_in"], "value": checked[0]},
        "t_out": {**echo["t_out"], "value": checked[1]},
    }
    w = {**w, **price_echo(region, given["price_per_kwh"])}
    return replace(result, wall=w, defaults=defaults_of(w, region, given, echo))


def _named(llm, name: str | None):
    return llm if name is None else resolve_llm(llm, name)


def predict(
    llm,
    gpu,
    *,
    rate_qps: float | None = None,
    batch: float | None = None,
    scenario: str | None = None,
    t_in: int | None = None,
    t_out: int | None = None,
    level: float = DEFAULT_LEVEL,
    num_gpus: int = 1,
    weights: str | None = None,
    parallel: Parallel | None = None,
    correction: bool = True,
    name: str | None = None,
    region: str | None = None,
    grid_gco2_per_kwh: float | None = None,
    price_per_kwh: float | None = None,
    pue: float | None = None,
    workload: str | None = None,
    kv_cache: str | None = None,
    engine: str | None = None,
    max_num_seqs: int | None = None,
    model: HybridState | None = None,
) -> Prediction:
    """:func:`wattgpu_lite.hybrid.predict.api.predict` (every argument as there) with ``wall``
    and ``defaults`` (module docstring): energy per request = energy per token × ``t_out``.
    ``region``: a grid of data/grid_intensity.csv (default: the world's), or
    ``grid_gco2_per_kwh``; ``pue`` (default 1.58) and ``price_per_kwh`` (default: the table's);
    ``workload``: the named workload giving the token counts not passed (default watt-counts)."""
    t_in, t_out, echo = request_tokens(t_in, t_out, workload)
    p = chain.predict(
        _named(llm, name),
        gpu,
        rate_qps=rate_qps,
        batch=batch,
        scenario=scenario,
        t_in=t_in,
        t_out=t_out,
        level=level,
        num_gpus=num_gpus,
        weights=weights,
        parallel=parallel,
        kv_cache=kv_cache,
        engine=engine,
        max_num_seqs=max_num_seqs,
        correction=correction,
        model=model,
    )
    given = {"pue": pue, "grid_gco2_per_kwh": grid_gco2_per_kwh, "price_per_kwh": price_per_kwh}
    w = wall_for(p, region, **given)  # energy per token × t_out
    return _at_wall(p, w, ((p.inputs.t_in, p.inputs.t_out), echo), region=region, given=given)


def explain(
    llm,
    gpu,
    *,
    rate_qps: float | None = None,
    batch: float | None = None,
    scenario: str | None = None,
    t_in: int | None = None,
    t_out: int | None = None,
    level: float = DEFAULT_LEVEL,
    num_gpus: int = 1,
    weights: str | None = None,
    parallel: Parallel | None = None,
    name: str | None = None,
    region: str | None = None,
    grid_gco2_per_kwh: float | None = None,
    price_per_kwh: float | None = None,
    pue: float | None = None,
    workload: str | None = None,
    kv_cache: str | None = None,
    engine: str | None = None,
    max_num_seqs: int | None = None,
) -> Explanation:
    """:func:`wattgpu_lite.hybrid.predict.explain.explain`, its ``prediction`` at the wall as
    :func:`predict`'s (``x.wall``, ``x.defaults``; ``workload`` as there)."""
    t_in, t_out, echo = request_tokens(t_in, t_out, workload)
    # resolved once here: the explanation reads them twice (a note on a shadowed name, once)
    x = chain.explain(
        resolve_llm(llm, name),
        resolve_gpu(gpu),
        rate_qps=rate_qps,
        batch=batch,
        scenario=scenario,
        t_in=t_in,
        t_out=t_out,
        level=level,
        num_gpus=num_gpus,
        weights=weights,
        parallel=parallel,
        kv_cache=kv_cache,
        engine=engine,
        max_num_seqs=max_num_seqs,
    )
    p, i = x.prediction, x.prediction.inputs
    given = {"pue": pue, "grid_gco2_per_kwh": grid_gco2_per_kwh, "price_per_kwh": price_per_kwh}
    w = wall_for(p, region, **given)
    p = _at_wall(p, w, ((i.t_in, i.t_out), echo), region=region, given=given)
    return replace(x, prediction=p)


def estimate_energy(
    llm,
    gpu=None,
    *,
    batch: float = 1.0,
    t_in: int | None = None,
    t_out: int | None = None,
    mode: str = "physical",
    num_gpus: int = 1,
    weights: str | None = None,
    expert_parallel: bool = False,
    parallel: Parallel | None = None,
    name: str | None = None,
    region: str | None = None,
    grid_gco2_per_kwh: float | None = None,
    price_per_kwh: float | None = None,
    pue: float | None = None,
    workload: str | None = None,
    kv_cache: str | None = None,
    engine: str | None = None,
    max_num_seqs: int | None = None,
) -> EnergyEstimate:
    """:func:`wattgpu_lite.energy.estimate.estimate_energy` (every argument as there) with
    ``wall`` (the request's ``total_j`` at the wall) and ``defaults`` (module docstring);
    ``workload`` as :func:`predict`'s."""
    t_in, t_out, echo = request_tokens(t_in, t_out, workload)
    est = chain.estimate_energy(
        _named(llm, name),
        gpu,
        batch=batch,
        t_in=t_in,
        t_out=t_out,
        mode=mode,
        num_gpus=num_gpus,
        weights=weights,
        expert_parallel=expert_parallel,
        parallel=parallel,
        kv_cache=kv_cache,
        engine=engine,
        max_num_seqs=max_num_seqs,
    )
    given = {"pue": pue, "grid_gco2_per_kwh": grid_gco2_per_kwh, "price_per_kwh": price_per_kwh}
    w = wall_for_request(est.total_j, est.t_out, region, **given)
    return _at_wall(est, w, ((est.t_in, est.t_out), echo), region=region, given=given)
