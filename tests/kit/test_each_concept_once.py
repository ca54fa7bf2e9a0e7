"""Each concept once: one memory-fit check, one load resolver, one fold
builder, one metrics module, the EcoLogits formula, one JSON writer, one token check, one rank
table schema for every source. Each is checked by what it computes and by a scan of the package
for a second definition (in whichever module the one definition lives)."""

from __future__ import annotations

import ast
import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest
from package_source import package_nodes

import wattgpu_lite as wl
from wattgpu_lite import jsonio, metrics
from wattgpu_lite.energy import occupancy as O
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.selection import accounting
from wattgpu_lite.selection.table import RANK_COLUMNS, rank_table

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
# concepts, each a function that exactly one module of the package defines (wherever it lives)
ONCE = ("mdape_pct", "ape_pct", "check_tokens", "resolve_load", "memory_why_not",
        "held_out_masks", "ecologits_j_per_token", "json_safe")  # fmt: skip


def _defined_in(names) -> dict[str, list[str]]:
    """name -> the modules that define a function of that name."""
    where: dict[str, list[str]] = {name: [] for name in names}
    for path, nodes in package_nodes().items():
        for node in nodes:
            if isinstance(node, ast.FunctionDef) and node.name in where:
                where[node.name].append(path)
    return where


def test_each_concept_is_defined_in_one_module():
    where = _defined_in(ONCE)
    assert {name: len(paths) for name, paths in where.items()} == dict.fromkeys(ONCE, 1), where


def test_only_the_fold_builder_names_scikit_learns_splitters():
    splitters = {"GroupKFold", "KFold", "LeaveOneGroupOut"}
    users = {path for path, nodes in package_nodes().items() for node in nodes
             if isinstance(node, ast.Attribute | ast.Name | ast.alias)
             and (getattr(node, "attr", None) or getattr(node, "id", None)
                  or getattr(node, "name", None)) in splitters}  # fmt: skip
    assert users == set(_defined_in(["held_out_masks"])["held_out_masks"])


def test_only_the_json_writer_writes_strict_json():
    users = {path for path, nodes in package_nodes().items() for node in nodes
             if isinstance(node, ast.keyword) and node.arg == "allow_nan"}  # fmt: skip
    assert users == set(_defined_in(["json_safe"])["json_safe"])


# ------------------------------------------------------------------------------ metrics
def test_mdape_takes_the_truth_first_and_is_the_median_ape():
    assert metrics.ape_pct([100.0, 10.0], [110.0, 9.0]).tolist() == pytest.approx([10.0, 10.0])
    assert metrics.mdape_pct([100.0, 10.0, 1.0], [110.0, 8.0, 2.0]) == pytest.approx(20.0)
    # not symmetric: |p − t| / |t| with t first (110 vs 100: 10 %; 100 vs 110: 9.09 %)
    assert metrics.mdape_pct([100.0], [110.0]) == pytest.approx(10.0)
    assert metrics.mdape_pct([110.0], [100.0]) == pytest.approx(100 / 11)
    assert math.isnan(metrics.mdape_pct([0.0, math.nan], [1.0, 1.0]))
    with pytest.raises(ValueError, match="differ in shape"):
        metrics.ape_pct([1.0, 2.0], [1.0])


def test_both_chapters_score_with_the_one_mdape():
    from wattgpu_lite.hybrid.report import results
    from wattgpu_lite.wattgpu import metrics as wattgpu_metrics

    assert wattgpu_metrics.mdape_pct is metrics.mdape_pct is results.mdape_pct


# ------------------------------------------------------------------------- memory fit
def test_the_memory_fit_check_counts_the_served_format():
    m, t4 = wl.llm(LLAMA), wl.gpu("T4")
    bf16, fp8 = O.memory_need_bytes(m, 1, "bf16", 1024), O.memory_need_bytes(m, 1, "fp8", 1024)
    kv = m.kv_bytes_per_token * 1024
    assert bf16 - kv == pytest.approx(m.params_b * 1e9 * 2) and fp8 < bf16
    assert O.memory_why_not(m, t4, 1, "bf16", kv_tokens=1024).startswith(
        "does not fit in memory: needs 16.2"
    )
    assert O.memory_why_not(m, t4, 1, "fp8", kv_tokens=1024) == ""  # 8 GB of weights fit 14.4 GB
    assert O.memory_why_not(m, t4, 2, "bf16", kv_tokens=1024) == ""  # two T4s hold the bf16 weights


def test_every_fit_check_of_the_kit_is_the_one_check():
    m = wl.llm(LLAMA)
    for name in ("T4", "L4", "A30", "H100 NVL"):
        g = wl.gpu(name)
        assert accounting.why_not_fits(m, g, 1024) == O.memory_why_not(
            m, g, 1, None, kv_tokens=1024
        )
        assert O.weights_fit(m, g) == (O.memory_why_not(m, g) == "")
        assert accounting.memory_need_gb(m, 1024) * 1e9 == O.memory_need_bytes(m, 1, None, 1024)
    fp8 = dataclasses.replace(m, weight_format="fp8", weight_bits=8.0)  # a pre-quantised checkpoint
    assert accounting.memory_need_gb(fp8, 1024) < accounting.memory_need_gb(m, 1024)


# --------------------------------------------------------------------------- the load
@pytest.mark.parametrize(
    ("scenario", "rate_qps", "words"),
    [(None, None, "give exactly one load"), ("server_lo", None, "unknown scenario"),
     (None, -1.0, "rate_qps must be from"), ("offline", 0.1, "give exactly one load")],
)  # fmt: skip
def test_one_load_resolver_words_the_same_errors_for_predict_and_rank(scenario, rate_qps, words):
    with pytest.raises(InvalidInputError, match=words) as predicted:
        wl.predict(LLAMA, "A30", scenario=scenario, rate_qps=rate_qps)
    with pytest.raises(InvalidInputError, match=words) as ranked:
        wl.rank_gpus(LLAMA, scenario=scenario, rate_qps=rate_qps, itl_sla_ms=50, source="measured")
    assert str(predicted.value) == str(ranked.value)


# ------------------------------------------------------------------------------ folds
def test_the_fold_builder_holds_each_row_out_once_and_is_scikit_learns():
    from sklearn.model_selection import GroupKFold, LeaveOneGroupOut

    from wattgpu_lite.hybrid.fit.protocol import folds as hybrid_folds
    from wattgpu_lite.wattgpu.evaluation import FOLD_KINDS, folds, held_out_masks

    runs = wl.measurements(dense_only=True)
    for kind in FOLD_KINDS:
        masks = np.array([m for _, m in held_out_masks(runs, kind)])
        assert (masks.sum(axis=0) == 1).all(), kind
    logo = LeaveOneGroupOut().split(runs, groups=runs["gpu"])
    cv = GroupKFold(n_splits=5).split(runs, groups=runs["llm"] + "|" + runs["gpu"])
    for ours, theirs in ((folds(runs, "logo"), logo), (folds(runs, "cv"), cv)):
        assert all(
            (a == c).all() and (b == d).all() for (a, b), (c, d) in zip(ours, theirs, strict=True)
        )
    ts = type("TS", (), {"frame": runs})()
    assert [n for n, _ in hybrid_folds(ts, "logo")] == sorted(runs["gpu"].unique())
    with pytest.raises(InvalidInputError, match="unknown fold kind 'pair5'"):
        held_out_masks(runs, "pair5")


# --------------------------------------------------------------------------- EcoLogits
def test_the_ecologits_formula_is_one_function_both_chapters_call():
    from wattgpu_lite.energy import paper, validation
    from wattgpu_lite.hybrid.report import external

    assert validation.ecologits_j_per_token is paper.ecologits_j_per_token
    assert external.ecologits_j_per_token is paper.ecologits_j_per_token
    wh = 1.1665e-6 * np.exp(-0.011206 * 64) * 8.0 + 4.0529e-5
    assert paper.ecologits_j_per_token([8.0])[0] == pytest.approx(wh * 3600)


# ------------------------------------------------------------------------- JSON writer
def test_the_json_writer_nulls_missing_values_and_refuses_infinity():
    doc = {"a": np.float64("nan"), "b": (1, np.int64(2)), "c": pd.NA, "d": None, "e": 0.5}
    assert jsonio.json_safe(doc) == {"a": None, "b": [1, 2], "c": None, "d": None, "e": 0.5}
    assert json.loads(jsonio.dumps(doc)) == jsonio.json_safe(doc)
    with pytest.raises(InvalidInputError, match="result field 'x' is inf"):
        jsonio.dumps({"x": math.inf})


def test_results_treat_missing_values_and_nan_inputs_alike():
    """Missing is None (JSON null) in Prediction and EnergyEstimate alike; a NaN input is an
    InvalidInputError naming the field in both, never a NaN in a result."""
    est = wl.estimate_energy(LLAMA, "A30", mode="paper")
    p = wl.predict(LLAMA, "A30", batch=8)
    assert est.to_dict()["kappa"] is None and json.loads(est.to_json())["kappa"] is None
    assert p.to_dict()["inputs"]["rate_qps"] is None
    assert json.loads(p.to_json())["inputs"]["rate_qps"] is None
    for field in ("t_in", "t_out", "batch"):
        with pytest.raises(InvalidInputError, match=f"^{field} must be finite, got nan"):
            wl.estimate_energy(LLAMA, "A30", **{field: math.nan})
        with pytest.raises(InvalidInputError, match=f"^{field} must be finite, got nan"):
            wl.predict(LLAMA, "A30", **({"batch": 8} | {field: math.nan}))


# ------------------------------------------------------------------ one rank table schema
@pytest.fixture(scope="module")
def rankings() -> dict[str, pd.DataFrame]:
    return {source: wl.rank_gpus(LLAMA, scenario="server_low", itl_sla_ms=50, source=source)
            for source in ("hybrid", "measured", "paper", "logo")}  # fmt: skip


def test_every_source_ranks_with_the_same_columns_in_the_same_order(rankings):
    for source, table in rankings.items():
        assert list(table.columns) == list(RANK_COLUMNS), source
        assert (table["source"] == source).all()


def test_every_source_fills_energy_per_token_and_derives_the_per_1k_figure(rankings):
    for source, table in rankings.items():
        refused = table["why_not"].str.contains("below the physical floor")  # logo's L4: no answer
        assert list(table.loc[refused, "gpu"]) == (["L4"] if source == "logo" else []), source
        fits = table[table["fits"] & ~refused]
        assert fits["energy_per_token_j"].gt(0).all(), source
        assert np.allclose(fits["energy_per_1k_tokens_j"], 1000 * fits["energy_per_token_j"])
    one_gpu = rankings["measured"]
    assert (one_gpu[["num_gpus", "tp", "ep", "replicas"]] == 1).all().all()
    assert one_gpu["basis"].isna().all() and one_gpu["level"].isna().all()  # no intervals


def test_the_schema_refuses_a_column_it_does_not_list():
    with pytest.raises(ValueError, match=r"\['surprise'\] are not in"):
        rank_table(pd.DataFrame({"gpu": ["A30"], "surprise": [1]}))
    assert list(rank_table(pd.DataFrame({"gpu": ["A30"]})).columns) == list(RANK_COLUMNS)
