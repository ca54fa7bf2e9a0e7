"""Hand-computed oracles for the core numeric functions, written to kill the mutants that earlier
suites let survive (``make mutation`` runs them): each value here is worked out by hand
or from a definition, never recomputed with the function under test."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.breakdown import breakdown_frame
from wattgpu_lite.runs.schema import scenario_for_rate, scenario_group
from wattgpu_lite.wattgpu import metrics, regressor
from wattgpu_lite.wattgpu.evaluation import folds

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_mdape_is_a_median_of_absolute_percentage_errors():
    # errors 10 %, 20 %, 100 %: the median is 20 (the mean would be 43.3)
    assert metrics.mdape_pct([1.0, 2.0, 4.0], [1.1, 1.6, 8.0]) == pytest.approx(20.0)
    assert metrics.mdape_pct([10.0, -10.0], [12.0, -9.0]) == pytest.approx(15.0)
    assert math.isnan(metrics.mdape_pct([0.0], [1.0]))


def test_pearson_r_by_hand():
    assert metrics.pearson_r([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert metrics.pearson_r([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(metrics.pearson_r([1, 1, 1], [1, 2, 3]))


def test_cv_folds_group_pairs_not_llms():
    """5-fold CV holds out (LLM, GPU) pairs: a pair never straddles train and test, but an LLM
    (and a GPU) is seen in training on other GPUs (LLMs) - grouping by LLM alone fails this."""
    runs = wl.measurements(dense_only=True)
    splits = folds(runs, "cv")
    pair = runs["llm"] + "|" + runs["gpu"]
    assert all(not set(pair.iloc[tr]) & set(pair.iloc[te]) for tr, te in splits)
    assert all(set(runs["llm"].iloc[tr]) & set(runs["llm"].iloc[te]) for tr, te in splits)
    assert all(set(runs["gpu"].iloc[tr]) & set(runs["gpu"].iloc[te]) for tr, te in splits)


def test_per_output_token_energy_divides_by_t_out():
    df = breakdown_frame({("decode", "compute"): 50.0, ("prefill", "compute"): 25.0}, 250)
    assert df["energy_per_token_j"].sum() == pytest.approx(75.0 / 250)
    assert df["energy_wh"].sum() == pytest.approx(75.0 / 3600)


def test_falcon_multi_query_has_one_kv_head():
    falcon = wl.LLM.from_hf_config(FIXTURES / "falcon.json")
    assert (falcon.n_heads, falcon.n_kv_heads) == (71, 1)
    text = (
        (FIXTURES / "falcon.json")
        .read_text()
        .replace('"multi_query": true', '"multi_query": false')
    )
    assert wl.LLM.from_hf_config(json.loads(text)).n_kv_heads == 71


def test_scenario_for_rate_splits_at_the_geometric_mean():
    split = math.sqrt(0.017 * 0.33)  # 0.0749 req/s
    assert scenario_for_rate(split * 0.999) == "server_low"
    assert scenario_for_rate(split * 1.001) == "server_high" == scenario_for_rate(split)
    assert scenario_for_rate(float("nan")) == "offline"
    assert list(scenario_for_rate(np.array([0.017, 0.33]))) == ["server_low", "server_high"]
    rates = [0.0, 0.017, np.nextafter(split, 0), split, 0.33, math.inf, math.nan, -1.0, 0, 1]
    as_array = scenario_for_rate(np.array(rates, dtype=float)).tolist()
    assert [scenario_for_rate(r) for r in rates] == as_array  # a float's rule is the array's
    assert [scenario_group(s) for s in ("offline", "server_low")] == ["offline", "server"]


def test_targets_and_their_inverse_by_hand():
    frame = pd.DataFrame({"power_w": [150.0, 0.0], "tdp_w": [300.0, 300.0], "itl_s": [math.e, 1.0]})
    assert list(regressor.target_values(frame, "power")) == [0.5, 0.0]
    assert list(regressor.target_values(frame, "itl")) == pytest.approx([1.0, 0.0])
    assert list(regressor.to_natural(np.array([0.5, 1.0]), frame, "power")) == [150.0, 300.0]
    assert list(regressor.to_natural(np.array([0.0, 1.0]), frame, "itl")) == pytest.approx(
        [1.0, math.e]
    )
    assert len(regressor.training_rows(frame, "power")) == 1


@pytest.mark.parametrize(("text", "parts"), [("3.1.0", (3, 1, 0)), ("3.1.0rc1", (3, 1, 0)),
                                             ("2.0", (2, 0)), ("10.2.3.dev0", (10, 2, 3))])  # fmt: skip
def test_version_parts(text, parts):
    assert regressor._version(text) == parts
    assert regressor._version("3.0.5") < regressor._version("3.1.0") < regressor._version("3.10.0")


def test_the_default_token_counts_are_the_watt_counts_means():
    from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

    runs = wl.measurements(dense_only=True)
    assert (DEFAULT_T_IN, DEFAULT_T_OUT) == (15, 180)
    assert round(runs["prompt_tokens"].mean()) == DEFAULT_T_IN
    assert round(runs["generated_tokens"].mean()) == DEFAULT_T_OUT


def test_offline_is_watt_counts_thousand_prompts_half_in_flight_when_all_fit():
    # SGLang holds 2,048 sequences: all 1,000 prompts start at once and finish one by one, so
    # on average half of them, 500, are in flight (continuous batching of n prompts on >= n slots)
    out = wl.predict("Qwen/Qwen2.5-0.5B-Instruct", "H200 SXM", scenario="offline", engine="sglang")
    assert out.max_batch == 2048 and out.in_flight == 500.0


@pytest.mark.parametrize("bad", [True, False, 2.5, "500", 0, -3])
def test_check_tokens_of_the_energy_model_refuses(bad):
    """The energy model checks tokens with the kit's one token check (checks.check_tokens)."""
    from wattgpu_lite.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="^t_out must be .*; pass t_out as a whole number"):
        wl.estimate_energy("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", t_out=bad)
    assert wl.estimate_energy("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", t_out=3.0).t_out == 3
    assert (
        wl.estimate_energy("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", t_out=np.int64(1)).t_out
        == 1
    )
    # None is "not given": the workload's count (watt-counts: 180), as every entry point reads it
    assert (
        wl.estimate_energy("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", t_out=None).t_out == 180
    )


def test_two_points_correlate_perfectly_and_folds_count():
    assert metrics.pearson_r([1.0, 2.0], [5.0, 3.0]) == pytest.approx(-1.0)
    runs = wl.measurements(dense_only=True)
    assert len(folds(runs, "cv")) == 5
    logo = folds(runs, "logo")
    assert len(logo) == 8 and all(runs["gpu"].iloc[te].nunique() == 1 for _, te in logo)


def test_server_time_per_token_is_one_over_rate_times_tokens():
    from wattgpu_lite.specs.workload import server_time_per_token_s

    # 0.33 req/s x 300 tokens = 99 tokens/s of output, so each token holds the GPU 1/99 s
    assert server_time_per_token_s(0.33, 300) == pytest.approx(1 / 99)
    assert server_time_per_token_s(2.0, 5) == pytest.approx(0.1)


def test_the_leaky_kfold_has_five_folds():
    runs = wl.measurements(dense_only=True)
    assert len(folds(runs, "kfold")) == 5


def test_every_five_runs_of_one_configuration_form_a_block():
    from wattgpu_lite.runs.schema import block_and_rep

    keys = pd.DataFrame({"gpu": ["A"] * 7 + ["B"], "llm": ["m"] * 8})
    block, rep = block_and_rep(keys)
    assert block.tolist() == [1, 1, 1, 1, 1, 2, 2, 1]
    assert rep.tolist() == [1, 2, 3, 4, 5, 1, 2, 1]


def test_a_multi_query_flag_outside_falcon_means_one_kv_head():
    cfg = json.loads((FIXTURES / "configs" / "meta-llama__Llama-3.1-8B.json").read_text())
    cfg.pop("num_key_value_heads")
    assert wl.LLM.from_hf_config(dict(cfg, multi_query=True)).n_kv_heads == 1
    assert wl.LLM.from_hf_config(cfg).n_kv_heads == cfg["num_attention_heads"]


# --- the hybrid: group conformal, the extrapolation notes, the backbone's time per token ------------


def test_weighted_quantile_by_hand():
    from wattgpu_lite.hybrid.fit.conformal import weighted_quantile

    ones = np.ones(4)
    # half of the weight lies at or below 2: the 50 % quantile is 2, not the next score
    assert weighted_quantile(np.array([4.0, 2.0, 1.0, 3.0]), ones, 0.5) == 2.0
    assert weighted_quantile(np.array([1.0, 2.0]), np.ones(2), 1.0) == 2.0
    assert weighted_quantile(np.array([1.0, 2.0]), np.ones(2), 1.05) == math.inf


def test_groups_weigh_equally_whatever_their_size():
    from wattgpu_lite.hybrid.fit.conformal import group_quantile

    # group A: three runs at 1; group B: runs at 0 and 10. Each group weighs 1 (A's runs 1/3 each,
    # B's 1/2): the weight at or below 1 is 0.5 + 1 = 1.5 of 2 (75 %). So the 76 % quantile is
    # 10 and the 70 % one is 1; weighting runs instead, 1 covers 4 of 5 (80 %) and both would be 1.
    scores, groups = [1.0, 1.0, 1.0, 0.0, 10.0], ["A", "A", "A", "B", "B"]
    assert group_quantile(scores, groups, 0.76, floor=0.0) == 10.0
    assert group_quantile(scores, groups, 0.70, floor=0.0) == 1.0


def test_extrapolation_counts_e_folds_beyond_the_training_range():
    from wattgpu_lite.hybrid.predict.intervals import WATCHED, excess_efolds, notes_for
    from wattgpu_lite.hybrid.predict.model import HybridState

    model = HybridState.pretrained()
    inside = {n: np.array([math.sqrt(model.ranges[n][0] * model.ranges[n][1])]) for n in WATCHED}
    assert excess_efolds(model, inside)[0] == 0.0 and notes_for(model, inside, 0, "it") == []
    lo, hi = model.ranges["params_b"]
    for value, efolds in ((hi * math.e, 1.0), (lo / math.e**2, 2.0), (hi * 1.5, math.log(1.5))):
        out = dict(inside, params_b=np.array([value]))
        assert excess_efolds(model, out)[0] == pytest.approx(efolds)
        assert len(notes_for(model, out, 0, "the interval")) == 1


def test_status_of_a_row_at_capacity_and_at_the_smallest_cache():
    from wattgpu_lite.hybrid.predict.result import status_of as _status

    cap, capacity = np.array([1.5, 1.5, 0.5]), np.array([2.0, 2.0, 2.0])
    rate = np.array([2.0, 1.0, 1.0])  # exactly at capacity: no steady state
    assert list(_status(cap, rate, np.ones(3), capacity)) == [
        "saturated", "ok", "does not fit in memory"]  # fmt: skip


def test_backbone_time_per_token_by_definition():
    from wattgpu_lite.energy import backbone as S
    from wattgpu_lite.energy.backbone import row_arrays as R

    rows, cap = R.build(
        [wl.llm("meta-llama/Llama-3.1-8B-Instruct")] * 2, [wl.gpu("A30")] * 2, 15, 180
    )
    c = S.Constants()
    fixed = S.at_batch(rows, np.array([1.0, 8.0]), c)
    assert fixed["time_per_token_s"] == pytest.approx(fixed["itl_s"] / [1.0, 8.0])
    poisson = S.at_rate(rows, np.array([0.5, 2.0]), cap, c)
    assert poisson["time_per_token_s"] == pytest.approx([1 / 90, 1 / 360])


def test_watt_counts_rates_and_the_shortest_usable_request():
    from wattgpu_lite.runs import schema

    # WattGPU §3: Poisson rates of 0.017 and 0.33 requests per second
    assert schema.LAMBDA_QPS == {"server_low": 0.017, "server_high": 0.33}
    assert schema.LAMBDA_SPLIT_QPS == pytest.approx(0.0749, abs=5e-5)
    # one inter-token gap needs two generated tokens: exactly two is kept, fewer is dropped
    assert schema.MIN_GENERATED_TOKENS == 2.0


def test_status_boundaries_a_full_cache_and_a_single_sequence_are_served():
    from wattgpu_lite.hybrid.predict.result import status_of as _status

    # a batch exactly at the cache's capacity fits; a replica holding exactly one sequence serves
    cap, nan = np.array([8.0, 1.0]), np.array([np.nan, np.nan])
    assert list(_status(cap, nan, np.array([8.0, 1.0]), np.ones(2))) == ["ok", "ok"]
    assert list(_status(cap, nan, np.array([9.0, 1.0]), np.ones(2)))[0].startswith("batch above")


def test_at_rate_itl_is_one_step_with_the_arriving_request_added():
    from wattgpu_lite.energy import backbone as S
    from wattgpu_lite.energy.backbone import row_arrays as R

    rows, cap = R.build([wl.llm("meta-llama/Llama-3.1-8B-Instruct")], [wl.gpu("A30")], 15, 180)
    c = S.Constants()
    out = S.at_rate(rows, np.array([0.3]), cap, c)
    assert out["itl_s"] == pytest.approx(S.step_time_s(rows, 1.0 + out["in_flight"], c))


def test_a_gptq_llama_8b_keeps_its_lm_head_in_16_bits():
    """Llama-3.1-8B (d 4096, 32 layers, 32/8 heads of 128, MLP 14336, vocab 128256, untied) as a
    4-bit GPTQ checkpoint, group size 128: the quantised linear layers hold 4 + (16 + 4)/128 =
    4.15625 bits per weight, everything else 16 (the ``lm_head`` exception of
    specs/count.py).

    attention 32 · (2 · 4096² + 2 · 4096 · 1024) = 1,342,177,280
    MLP       32 · 3 · 4096 · 14336               = 5,637,144,576  -> quantised 6,979,321,856
    embed 128256 · 4096 + 4096 (final norm)      =   525,340,672
    lm_head 128256 · 4096                        =   525,336,576
    norms 32 · 2 · 4096                          =       262,144  -> 16-bit 1,050,939,392
    total                                        = 8,030,261,248
    bits = (6,979,321,856 · 4.15625 + 1,050,939,392 · 16) / 8,030,261,248 = 5.706 -> 5.71;
    quantising the LM head too would give (… + 525,336,576 · (4.15625 − 16)) / … = 4.93.
    """
    config = json.loads((FIXTURES / "configs/meta-llama__Llama-3.1-8B.json").read_text())
    config["quantization_config"] = {"quant_method": "gptq", "bits": 4, "group_size": 128}
    model = wl.LLM.from_hf_config(config)
    assert model.params_b == pytest.approx(8.030261248, abs=1e-6)
    assert model.weight_format == "int4"
    assert round(model.weight_bits, 2) == 5.71  # 3 figures; 4.93 if the LM head were quantised


def test_at_rate_power_is_the_busy_power_at_the_load_per_busy_share():
    """Poisson arrivals at λ with L in flight: the GPU is busy a share u = 1 − e^(−L) of the time,
    serving L / u sequences then, so the mean power is P_idle + u·(P_busy(L/u) − P_idle)."""
    from wattgpu_lite.energy import backbone as S
    from wattgpu_lite.energy.backbone import row_arrays as R

    rows, cap = R.build([wl.llm("meta-llama/Llama-3.1-8B-Instruct")] * 3, [wl.gpu("A30")] * 3,
                        15, 180)  # fmt: skip
    c = S.Constants()
    out = S.at_rate(rows, np.array([0.02, 0.3, 2.0]), cap, c)
    load = out["in_flight"]
    busy = 1.0 - np.exp(-load)
    assert load[0] < 0.2  # light enough that L / u lies within 10 % of one sequence
    idle = S.idle_power_w(rows, c)
    expected = idle + busy * (S.busy_power_w(rows, load / busy, c) - idle)
    assert out["power_w"] == pytest.approx(expected, rel=1e-9)
    assert out["busy_fraction"] == pytest.approx(busy, rel=1e-12)


def test_one_rows_power_at_a_light_rate_is_the_busy_power_at_the_load_per_busy_share():
    """The one-row path (a single predict: its floats) at a load under 0.2 in flight, where the
    busy batch L / u = L / (1 − e^(−L)) lies between 1 and 1.1 sequences: the same power rule."""
    from wattgpu_lite.energy import backbone as S
    from wattgpu_lite.energy.backbone import row_arrays as R

    rows, cap = R.build([wl.llm("meta-llama/Llama-3.1-8B-Instruct")], [wl.gpu("A30")], 15, 180)
    c = S.Constants()
    out = S.at_rate(rows, np.array([0.02]), cap, c)
    load = out["in_flight"]
    busy = 1.0 - np.exp(-load)
    assert 1.0 < (load / busy)[0] < 1.1
    idle = S.idle_power_w(rows, c)
    expected = idle + busy * (S.busy_power_w(rows, load / busy, c) - idle)
    assert out["power_w"] == pytest.approx(expected, rel=1e-9)


def test_a_correction_below_the_idle_estimate_is_held_at_it_not_at_the_hard_floor():
    """bounds_step: power in [max(P_idle estimate, hard floor), G · TDP]; the fitted idle lies
    above the floor, so a factor that would sink the power below it stops at the idle estimate."""
    from types import SimpleNamespace

    from wattgpu_lite.hybrid.predict.steps import bounds_step

    physics = {"power_w": np.array([100.0, 100.0, 100.0]), "itl_s": np.array([0.02, 0.02, 0.02])}
    result = SimpleNamespace(physics=physics, idle_power_w=np.array([60.0, 60.0, 60.0]),
                             power_floor_w=np.array([40.0, 40.0, 40.0]),
                             floor_s=np.array([0.01, 0.01, 0.01]))  # fmt: skip
    rows = SimpleNamespace(replica_tdp_w=np.array([300.0, 300.0, 300.0]))
    factor = {"power": np.array([0.5, 0.2, 5.0]), "itl": np.array([1.0, 0.25, 1.0])}
    power, itl, floor_s = bounds_step(rows, result, factor)
    assert power.tolist() == [60.0, 60.0, 300.0]  # held at the idle estimate, and at the TDP
    assert itl.tolist() == [0.02, 0.01, 0.02] and floor_s.tolist() == [0.01] * 3


def test_a_truth_at_the_zero_threshold_has_no_percentage_error():
    """|true| at or below ZERO_TRUTH has no percentage error; just above it, it has one."""
    from wattgpu_lite import metrics as kit_metrics

    out = kit_metrics.ape_pct([kit_metrics.ZERO_TRUTH, 2 * kit_metrics.ZERO_TRUTH], [1.0, 1.0])
    assert math.isnan(out[0])
    assert out[1] == pytest.approx((1.0 - 2e-12) / 2e-12 * 100.0)


def test_below_a_thousandth_of_a_sequence_in_flight_the_interval_widens_no_further():
    """The watched load is held at 1e-3 sequences in flight: at 1e-5 and 1e-6 req/s (2e-5 and
    2e-6 in flight) the interval widens by WIDEN_PER_EFOLD per e-fold from the training runs'
    lightest load down to 1e-3, the same for both, every other input inside its range."""
    from wattgpu_lite.hybrid.predict.intervals import WIDEN_PER_EFOLD
    from wattgpu_lite.hybrid.predict.model import HybridState

    lightest = HybridState.pretrained().ranges["in_flight"][0]
    for rate in (1e-5, 1e-6):
        e = wl.explain("meta-llama/Llama-3.1-8B-Instruct", "A30", rate_qps=rate)
        assert e.widening == pytest.approx(WIDEN_PER_EFOLD * math.log(lightest / 1e-3), rel=1e-9)


@pytest.mark.parametrize("gpu", ["H200 SXM", "L4", "T4"])
def test_the_training_gpus_at_the_ends_of_the_spec_ranges_widen_nothing(gpu):
    """The H200 SXM has the training runs' highest bandwidth and FP16 FLOP/s, the L4 the lowest
    bandwidth, the T4 the lowest FLOP/s: on their own specs, at a load and context inside the
    training range, their interval has no widening (the spec is read in GB/s and TFLOP/s)."""
    e = wl.explain("meta-llama/Llama-3.2-3B-Instruct", gpu, rate_qps=0.33, t_in=100, t_out=100)
    assert e.widening == 0.0


def test_each_basis_and_regime_reads_its_own_half_width():
    """A row's log half-width is its basis's calibrated q for its regime (server at a rate,
    offline at a batch) at the level, plus the widening: a new GPU at a rate reads the
    'new gpu' server q, at a batch the offline one."""
    import dataclasses

    from wattgpu_lite.hybrid.predict import intervals
    from wattgpu_lite.hybrid.predict.model import HybridState

    model = HybridState.pretrained()
    new = dataclasses.replace(wl.gpu("A30"), name="an A30 clocked 5 % higher",
                              fp16_tflops=wl.gpu("A30").fp16_tflops * 1.05)  # fmt: skip
    for gpu, basis in ((wl.gpu("A30"), "cv"), (new, "new gpu")):
        for load, regime in (({"rate_qps": 0.1}, "server"), ({"batch": 8}, "offline")):
            e = wl.explain("meta-llama/Llama-3.1-8B-Instruct", gpu, t_in=100, t_out=100, **load)
            assert e.basis == basis
            q = intervals.q_at(model.tables, basis, "itl", regime, level=0.8)
            p = wl.predict("meta-llama/Llama-3.1-8B-Instruct", gpu, t_in=100, t_out=100, **load)
            assert math.log(p.itl_s_interval.hi / p.itl_s) == pytest.approx(q + e.widening)
