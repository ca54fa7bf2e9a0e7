"""The correction of many rows reads each distinct (LLM, GPU) pair's columns through the forest
once and each row's load columns from step tables: the same values, to the bit, as the forest on
every row's full feature matrix (a walked forest, which has no tables, included)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.hybrid.predict import correction as C
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.predict.tree_steps import column_steps

LLMS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct", "microsoft/phi-2")
GPUS = ("A30", "H100 SXM", "L4", "T4")


def rows(n: int, seed: int):
    """LLMs, GPUs and load columns: random values, values at the forests' thresholds and one
    float32 step beside them, and a few missing values."""
    rng = np.random.default_rng(seed)
    llms = [wl.llm(LLMS[k]) for k in rng.integers(0, len(LLMS), n)]
    gpus = [wl.gpu(GPUS[k]) for k in rng.integers(0, len(GPUS), n)]
    load = {c: rng.normal(0, 2, n) for c in C.FEATURE_GROUPS["load"]}
    for corr in HybridState.pretrained().corrections.values():
        tables = C._forest(corr.forest_json).tables
        for j, c in enumerate(corr.columns):
            at = tables.threshold[tables.feature == j].astype(float)
            if c in load and len(at):
                near = np.r_[at, np.nextafter(at.astype(np.float32), np.inf)]
                pick = rng.random(n) < 0.5
                load[c][pick] = rng.choice(near, pick.sum())
    load["log_in_flight"][::37] = np.nan
    return llms, gpus, load


@pytest.mark.parametrize("target", ["power", "itl"])
def test_pairs_and_load_steps_give_the_forest_on_every_row(target, monkeypatch):
    corr = HybridState.pretrained().corrections[target]
    llms, gpus, load = rows(3000, seed=1)  # more rows than a forest chunk
    whole = corr.predict(C.feature_matrix(llms, gpus, load, corr.columns, families=corr.families))
    assert np.array_equal(corr.predict_loads(llms, gpus, load), whole)
    walked = replace(C._forest(corr.forest_json), tables=None)
    monkeypatch.setattr(C, "_forest", lambda text: walked)
    assert np.array_equal(corr.predict_loads(llms, gpus, load), whole)


def test_a_column_step_table_sums_the_splits_a_value_passes():
    """Two splits on column 0 at 1.0 (one tree's bit 1 and another's bit 2, missing: right) and
    one at 2.0 (bit 1 of the second tree); a split on column 1 is not counted."""
    feature = np.array([0, 0, 0, 1])
    threshold = np.array([1.0, 1.0, 2.0, 0.5], dtype=np.float32)
    weights = np.array([[1, 0], [0, 2], [0, 1], [4, 4]], dtype=np.float32)
    steps = column_steps(
        feature, threshold, np.array([True, False, False, True]), weights, column=0
    )
    passed = steps.passed(np.array([0.5, 1.0, 1.5, 2.0, 9.0, np.nan]))
    assert passed.tolist() == [0, 1, 1, 2, 2, 3]  # missing: the table's last row
    assert steps.codes[passed].tolist() == [[0, 0], [1, 2], [1, 2], [1, 3], [1, 3], [1, 0]]


@pytest.mark.parametrize("target", ["power", "itl"])
def test_codes_kept_for_a_pair_are_never_another_pairs(target):
    """The pairs' feature matrix and fixed codes are kept between calls (a warm predict): the
    same values with a cold and a warm cache, and a pair that differs in one value (a user's copy
    of a GPU or an LLM under its own name) or another correction never reads another's entry."""
    corr = HybridState.pretrained().corrections[target]
    llm, gpu = wl.llm(LLMS[0]), wl.gpu("H100 SXM")
    faster = replace(gpu, name="H100 SXM (custom)", bandwidth_gbs=gpu.bandwidth_gbs * 1.5)
    shallower = replace(llm, name="mine", n_layers=16)
    pairs = [(llm, gpu), (llm, faster), (shallower, gpu), (shallower, faster)]
    load = {c: np.array([0.3]) for c in C.FEATURE_GROUPS["load"]}
    rest = dict.fromkeys(load, 0.0)
    whole = [corr.predict(C.feature_matrix([m], [g], load, corr.columns, families=corr.families))
             for m, g in pairs]  # fmt: skip
    C._pair_codes.cache_clear()
    forest = C._forest(corr.forest_json)
    for k, (m, g) in enumerate(pairs * 2):  # cold, then every entry read again
        assert np.array_equal(corr.predict_loads([m], [g], load), whole[k % len(pairs)])
        x, _ = C._pair_codes_once(corr, forest, [m], [g])
        assert np.array_equal(
            x, C.feature_matrix([m], [g], rest, corr.columns, families=corr.families)
        )
    assert C._pair_codes.cache_info().hits >= len(pairs)
    xs = [C._pair_codes_once(corr, forest, [m], [g])[0] for m, g in pairs]
    assert not any(np.array_equal(a, b) for i, a in enumerate(xs) for b in xs[i + 1 :])
    for c in HybridState.pretrained().corrections.values():  # each correction its own codes
        x, fixed = C._pair_codes_once(c, C._forest(c.forest_json), [llm], [gpu])
        assert np.array_equal(fixed.code, c.fixed_part(x).code)


@pytest.mark.parametrize("target", ["power", "itl"])
def test_many_pairs_codes_summed_from_each_llm_and_gpu_are_every_pairs_codes(target):
    """More pairs than are kept (PAIRS_KEPT_UP_TO): the codes of each distinct LLM's and GPU's
    columns, added, are the codes of every pair's row, to the bit (the catalog's every pair,
    a GPU of a spec sheet and an LLM of a family the runs never saw included)."""
    corr = HybridState.pretrained().corrections[target]
    forest = C._forest(corr.forest_json)
    spec = {"name": "Brand-new GPU", "release_year": 2027, "memory_gb": 96, "memory_type": "GDDR7",
            "bandwidth_gbs": 1800, "tdp_w": 450, "fp16_tflops": 700}  # fmt: skip
    odd = replace(wl.llm(LLMS[0]), name="mine", model_type="never-seen", n_layers=7)
    llms = [wl.llm(n) for n in wl.llms()["name"]] + [odd]
    gpus = [wl.gpu(n) for n in wl.gpus()["name"]] + [wl.GPU.from_spec(spec)]
    pairs = [m for m in llms for _ in gpus], [g for _ in llms for g in gpus]
    assert len(pairs[0]) > C.PAIRS_KEPT_UP_TO
    _, every = C._pair_codes.__wrapped__(corr, forest, *pairs)
    summed = C._summed_pair_codes(corr, forest, *pairs)
    assert summed.code.dtype == every.code.dtype and np.array_equal(summed.code, every.code)
    assert np.array_equal(summed.moving, every.moving) and summed.columns == every.columns
    load = {c: np.random.default_rng(8).normal(0, 2, len(pairs[0]))
            for c in C.FEATURE_GROUPS["load"]}  # fmt: skip
    whole = corr.predict(C.feature_matrix(*pairs, load, corr.columns, families=corr.families))
    assert np.array_equal(corr.predict_loads(*pairs, load), whole)
    llm_columns = [j for j, c in enumerate(corr.columns) if c in C.LLM_COLUMNS]
    with pytest.raises(ValueError, match="exactly one part"):  # the GPUs' columns in no part
        forest.fixed_codes_of_parts([(np.zeros((1, len(corr.columns))), llm_columns, [0])],
                                    every.columns)  # fmt: skip
