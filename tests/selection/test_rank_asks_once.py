"""A ranking builds its rows once and asks the predictor once; its SLA search over a replica's
load gives the rates the bisection over the rate gave (kept here as the reference: 40 steps, each a
full prediction of every plan), and so the same ranked table: every column to 1e-9 relative, the
largest rate per replica to the bisection's own resolution too (capacity · 2^-40 absolute)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.hybrid.predict import chain, sla
from wattgpu_lite.hybrid.predict import steps as E
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.selection import layouts as LAY
from wattgpu_lite.selection import plan as PL
from wattgpu_lite.specs.layout import Parallel

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
MOE = "Qwen/Qwen3-30B-A3B"
RTOL = 1e-9
RESOLUTION = 2.0**-40  # of the capacity: where 40 halvings of [0, capacity] leave the reference


def assert_rates_match(r_max, ref, capacity_qps) -> None:
    """|r − r_ref| ≤ 2 · capacity · 2^-40 + 1e-9 · r_ref, and NaN or 0 on the same rows."""
    np.testing.assert_array_equal(np.isnan(r_max), np.isnan(ref))
    np.testing.assert_array_equal(r_max == 0, ref == 0)
    both = np.isfinite(ref)
    gap = np.abs(r_max[both] - ref[both])
    assert np.all(gap <= 2 * RESOLUTION * capacity_qps[both] + RTOL * ref[both])


def predict_plans(llm, plans, t_in, t_out, **asked):
    """The chain's prediction of every plan (a GPU and a layout each)."""
    gpus, lays = [g for g, _ in plans], PL._layouts(plans)
    return chain.predict_plans(llm, gpus, lays, t_in, t_out=t_out, **asked)


def reference_search(llm, plans, t_in, t_out, sla_s, level, weights=None):
    """(r_max, ITL at 1e-6 req/s) as the ranking found them before: bisection on the rate, 40
    steps, each step a full prediction of every plan."""
    light = predict_plans(
        llm, plans, t_in, t_out, rate=1e-6, batch=np.nan, level=level, weights=weights
    )
    capacity = light.capacity_qps
    ok = (light.status == "ok") & (light.itl_s <= sla_s)
    lo, hi = np.zeros(len(plans)), np.where(ok, capacity * (1 - 1e-9), 0.0)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        out = predict_plans(
            llm,
            plans,
            t_in,
            t_out,
            rate=np.maximum(mid, 1e-12),
            batch=np.nan,
            level=level,
            weights=weights,
        )
        good = (out.status == "ok") & (out.itl_s <= sla_s)
        lo, hi = np.where(good, mid, lo), np.where(good, hi, mid)
    fits = light.max_batch >= 1
    return np.where(fits, np.where(ok, lo, 0.0), np.nan), light.itl_s


def catalog_plans(llm_name: str, counts=(1, 2, 4, 8)):
    llm = wl.llm(llm_name)
    plans, _ = LAY.deployments(llm, [wl.gpu(n) for n in wl.gpus()["name"]], counts)
    return llm, plans


def search(llm, plans, t_in, t_out, sla_s, weights=None):
    model = HybridState.pretrained()
    rep = sla.replicas(
        model,
        llm,
        [g for g, _ in plans],
        PL._layouts(plans),
        t_in=t_in,
        t_out=t_out,
        weights=weights,
    )
    return rep.max_rate_under_sla(sla_s)


@pytest.mark.parametrize(("llm_name", "t_in", "t_out", "sla_ms"), [
    (LLAMA, 15, 180, 50.0), (LLAMA, 500, 300, 25.0), (MOE, 15, 180, 60.0),
    ("google/gemma-3-27b-it", 2000, 50, 80.0),
])  # fmt: skip
def test_the_load_search_finds_the_rates_the_rate_bisection_found(llm_name, t_in, t_out, sla_ms):
    llm, plans = catalog_plans(llm_name)
    r_max, light = search(llm, plans, t_in, t_out, sla_ms / 1e3)
    ref, ref_light = reference_search(llm, plans, t_in, t_out, sla_ms / 1e3, 0.8)
    top = capacity(llm, plans, t_in, t_out)
    assert_rates_match(r_max, ref, top)
    np.testing.assert_array_equal(light, ref_light)  # the same steps, the same numbers
    assert ((r_max > 0) & (r_max < 0.999 * top)).any()  # the SLA binds below the capacity


def capacity(llm, plans, t_in, t_out):
    return predict_plans(llm, plans, t_in, t_out, rate=1e-6, batch=np.nan, level=0.8).capacity_qps


def test_itl_and_rate_grow_with_the_load_the_premise_of_the_search():
    llm, plans = catalog_plans(LLAMA)
    model = HybridState.pretrained()
    rep = sla.replicas(
        model, llm, [g for g, _ in plans], PL._layouts(plans), t_in=15, t_out=180, weights=None
    )
    idx = np.flatnonzero(rep.cap >= 1)
    load = np.geomspace(1e-6, 1.0, 400)[None, :] * np.maximum(rep.cap[idx], 1.0)[:, None]
    itl, rate, _ = sla.itl_at_load(rep, idx, load)
    assert np.all(np.diff(itl, axis=1) >= -1e-12 * itl[:, 1:])
    assert np.all(np.diff(rate, axis=1) > 0)


@pytest.mark.parametrize("question", [
    {"llm": LLAMA, "rate_qps": 0.1, "itl_sla_ms": 50, "candidates": "all"},
    {"llm": LLAMA, "rate_qps": 5.0, "itl_sla_ms": 40, "candidates": "all", "t_in": 500,
     "t_out": 300},
    {"llm": MOE, "rate_qps": 1.0, "itl_sla_ms": 60, "candidates": "all"},
    {"llm": "meta-llama/Llama-3.3-70B-Instruct", "rate_qps": 0.5, "itl_sla_ms": 100,
     "weights": "int4"},
])  # fmt: skip
def test_the_ranked_table_is_the_one_the_rate_bisection_gave(question, monkeypatch):
    ask = dict(question)
    llm = ask.pop("llm")
    table = wl.rank_gpus(llm, **ask)

    def reference(rep, sla_s):
        return reference_search(wl.llm(llm), current["plans"], current["t_in"], current["t_out"],
                                sla_s, 0.8, current["weights"])  # fmt: skip

    current = {}
    original = PL.rate_plans

    def remember(llm_, plans, rate, t_in, t_out, sla_s, level, weights=None, serving=None):
        current.update(plans=plans, t_in=t_in, t_out=t_out, weights=weights)
        return original(llm_, plans, rate, t_in, t_out, sla_s, level, weights, serving)

    monkeypatch.setattr(sla.Replicas, "max_rate_under_sla", reference)
    monkeypatch.setattr(PL, "rate_plans", remember)
    monkeypatch.setattr("wattgpu_lite.selection.ranked.rate_plans", remember)
    before = wl.rank_gpus(llm, **ask)
    assert list(table.columns) == list(before.columns) and len(table) == len(before)
    assert (table["rank"].fillna(0) == before["rank"].fillna(0)).all()
    for column in table.columns:
        new, old = table[column], before[column]
        if column == "max_rate_per_replica_qps":
            top = predict_plans(wl.llm(llm), current["plans"], current["t_in"], current["t_out"],
                              rate=1e-6, batch=np.nan, level=0.8, weights=current["weights"]).capacity_qps  # fmt: skip
            order = [_plan_index(current["plans"], row) for row in table.itertuples()]
            assert_rates_match(new.to_numpy(float), old.to_numpy(float),
                               np.array([top[i] if i >= 0 else np.nan for i in order]))  # fmt: skip
        elif pd.api.types.is_float_dtype(old):
            np.testing.assert_allclose(new.to_numpy(float), old.to_numpy(float), rtol=RTOL,
                                       err_msg=column)  # fmt: skip
        else:
            assert new.astype(object).where(new.notna(), None).astype(str).tolist() == (
                old.astype(object).where(old.notna(), None).astype(str).tolist()
            ), column


def _plan_index(plans, row) -> int:
    """Position in ``plans`` of a table row's (GPU, layout); -1 for a refused layout."""
    for i, (g, lay) in enumerate(plans):
        if g.name == row.gpu and PL._layouts([(g, lay)])[0].label == row.layout:
            return i
    return -1


def test_given_rows_give_the_prediction_built_rows_give():
    llm, plans = catalog_plans(MOE)
    gpus, lays = [g for g, _ in plans], PL._layouts(plans)
    built = R.build([llm] * len(plans), gpus, 500, 300, num_gpus=lays, weights=[None] * len(plans))
    args = (HybridState.pretrained(), [llm] * len(plans), gpus, 500)
    named = {"t_out": 300, "rate_qps": 0.5, "batch": np.nan, "level": 0.8, "num_gpus": lays,
             "weights": [None] * len(plans)}  # fmt: skip
    fresh, given = E.predict_arrays(*args, **named), E.predict_arrays(*args, **named, built=built)
    for key, value in fresh.columns().items():
        np.testing.assert_array_equal(given.columns()[key], value, err_msg=key)
    rows, _ = chain.plan_rows(llm, gpus, lays, 500, t_out=300, weights=None)
    shares, again = chain.step_shares(rows, 4.0), chain.step_shares(built[0], 4.0)
    for key, value in shares.items():
        np.testing.assert_array_equal(again[key], value)


@pytest.mark.parametrize("load", [{"rate_qps": 0.3}, {"batch": 16}, {"scenario": "offline"}])
def test_a_ranking_builds_its_rows_once_and_predicts_once(load, monkeypatch):
    calls = {"build": 0, "predict": 0}
    build, predict = R.build, E.predict_arrays

    def counted_build(*a, **k):
        calls["build"] += 1
        return build(*a, **k)

    def counted_predict(*a, **k):
        calls["predict"] += 1
        return predict(*a, **k)

    monkeypatch.setattr(R, "build", counted_build)
    monkeypatch.setattr(E, "predict_arrays", counted_predict)
    table = wl.rank_gpus(LLAMA, itl_sla_ms=50, candidates="all", layouts=None, **load)
    assert len(table) > 100 and table["rank"].notna().any()
    assert calls == {"build": 1, "predict": 1}


def test_a_hybrid_ranking_imports_neither_xgboost_nor_scikit_learn():
    code = ("import sys\nimport wattgpu_lite as wl\n"
            f"wl.rank_gpus({LLAMA!r}, rate_qps=0.1, itl_sla_ms=50, candidates='all')\n"
            "print(sorted(m for m in ('xgboost', 'sklearn', 'scipy') if m in sys.modules))\n")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": ROOT}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "[]"


def test_a_layout_question_still_searches_every_layout():
    plans = [(wl.gpu("H100 SXM"), Parallel(ep=4)), (wl.gpu("H100 SXM"), Parallel(tp=4))]
    r_max, _ = search(wl.llm(MOE), plans, 15, 180, 0.06)
    ref, _ = reference_search(wl.llm(MOE), plans, 15, 180, 0.06, 0.8)
    assert_rates_match(r_max, ref, capacity(wl.llm(MOE), plans, 15, 180))
    assert np.all(r_max > 0) and r_max[0] != r_max[1]


def test_a_second_ranking_checks_no_layout_again_until_the_caches_are_cleared(monkeypatch):
    ask = {"rate_qps": 0.1, "itl_sla_ms": 50, "candidates": "all"}
    first = wl.rank_gpus(MOE, **ask)
    checks = []
    check = LAY.check_num_gpus

    def counted(*a, **k):
        checks.append(a[0])
        return check(*a, **k)

    monkeypatch.setattr(LAY, "check_num_gpus", counted)
    again = wl.rank_gpus(MOE, **ask)
    assert checks == [] and again.equals(first)
    wl.clear_caches()
    assert wl.rank_gpus(MOE, **ask).equals(first)
    assert len(checks) == len(first)  # every (GPU, layout) checked once: kept or refused
