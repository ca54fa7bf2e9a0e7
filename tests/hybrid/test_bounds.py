"""Hard physical bounds, catalog-wide: no prediction or interval bound physics forbids.

Every LLM of the catalog × every GPU × batch 1–512 × prompt 1–32k tokens × 1, 2, 4, 8 GPUs (the
layouts vLLM accepts) and 16, 32 over nodes (where a scale-out network is documented), through
``predict_many`` in one call. The floors here are written from the
spec sheet and the config alone, independently of the kit's accounting (weaker, so a violation is
a real one): a step reads at least the always-read weights at their width and k experts per MoE
layer at the experts' width, at the replica's peak bandwidth (an untied input table is gathered,
B rows a step, and not counted here), and computes at least 2 FLOPs per active parameter and
token at the highest peak the GPU lists.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.args import check_deployment, deploy_args
from wattgpu_lite.errors import InvalidInputError, WattGPUError

BATCHES = (1, 8, 64, 256, 512)  # 512: above vLLM's max_num_seqs, never served
PROMPTS = (1, 1024, 32768)
COUNTS = (1, 2, 4, 8, 16, 32)  # 16, 32: over nodes where a network is documented
T_OUT = 180
REL = 1e-9


def _layout_ok(m, g, n: int) -> bool:
    try:
        check_deployment(m, n)
        deploy_args(g, n)
    except WattGPUError:
        return False
    return True


def _floor_step_s(m, g, n: int, batch: np.ndarray) -> np.ndarray:
    """Bytes and FLOPs every step of ``batch`` sequences needs, over the replica's peak rates."""
    streamed_bits = m.params_always_b * m.weight_bits_always  # without the gathered input table
    if m.is_moe:
        streamed_bits += (
            m.n_moe_layers * m.params_expert_b * m.n_experts_active * m.weight_bits_expert
        )
    read_s = streamed_bits * 1e9 / 8 / (n * g.bandwidth_gbs * 1e9)
    peaks = [v for v in (g.fp16_tflops, g.fp8_tflops, g.fp4_tflops) if v == v and v]
    compute_s = 2 * m.params_active_b * 1e9 * batch / (n * max(peaks) * 1e12)
    return np.maximum(read_s, compute_s)


@pytest.fixture(scope="module")
def sweep() -> pd.DataFrame:
    llms, gpus = wl.llms()["name"], wl.gpus()["name"]
    rows, floors = [], []
    devices = [wl.gpu(gname) for gname in gpus]
    batches = np.array(BATCHES, dtype=float)
    for name in llms:
        m = wl.llm(name)
        prompts = [p for p in PROMPTS if p + T_OUT <= m.context_length]
        for g in devices:
            for n in COUNTS:
                if not _layout_ok(m, g, n):
                    continue
                floor = _floor_step_s(m, g, n, batches)  # elementwise: one batch at a time
                for p in prompts:
                    rows += [(name, g.name, b, p, T_OUT, n) for b in batches.tolist()]
                    floors += floor.tolist()
    frame = pd.DataFrame(rows, columns=["llm", "gpu", "batch", "t_in", "t_out", "num_gpus"])
    out = wl.predict_many(frame)
    tdp = wl.gpus().set_index("name")["tdp_w"]
    return out.assign(floor_s=np.array(floors, dtype=float),
                      replica_tdp=tdp.loc[frame["gpu"]].to_numpy() * frame["num_gpus"])  # fmt: skip


def test_the_sweep_is_the_catalog(sweep):
    ok = sweep[sweep["status"] == "ok"]
    assert sweep["llm"].nunique() == len(wl.llms())
    assert ok["gpu"].nunique() == len(wl.gpus())
    assert set(ok["num_gpus"]) == set(COUNTS) and set(ok["batch"]) == set(map(float, BATCHES[:-1]))
    assert (sweep.loc[sweep["batch"] == 512, "status"] != "ok").all()
    assert len(ok) > 50_000


def test_no_step_faster_than_bytes_or_flops_allow(sweep):
    ok = sweep[sweep["status"] == "ok"]
    floor = ok["floor_s"] * (1 - REL)
    assert (ok["itl_s_lo"] >= floor).all(), ok.loc[ok["itl_s_lo"] < floor, ["llm", "gpu"]].head()
    assert (ok["time_per_token_s_lo"] >= floor / ok["batch"]).all()
    # the kit's own floor (per tensor group, KV at the mean context) is at least this one
    assert (ok["itl_floor_s"] >= floor).all()


# the hard power floor of a catalog GPU (no spec idle power): this share of its TDP, per GPU
FLOOR_SHARE = 0.125


def test_power_and_its_bounds_within_the_floor_and_the_replicas_tdp(sweep):
    ok = sweep[sweep["status"] == "ok"]
    top, floor = ok["replica_tdp"] * (1 + REL), FLOOR_SHARE * ok["replica_tdp"] * (1 - REL)
    for col in ("power_w", "power_w_lo", "power_w_hi"):
        assert (ok[col] <= top).all(), col
        assert (ok[col] >= floor).all(), col
    # the estimate never below the idle estimate, which lies above the floor
    assert (ok["power_w"] >= ok["idle_power_w"] * (1 - REL)).all()
    assert (ok["idle_power_w"] > FLOOR_SHARE * ok["replica_tdp"]).all()
    assert np.allclose(ok["power_floor_w"], FLOOR_SHARE * ok["replica_tdp"], rtol=1e-12)


def test_no_energy_bound_implies_a_power_outside_the_hardware(sweep):
    ok = sweep[sweep["status"] == "ok"]
    for side in ("", "_lo", "_hi"):
        implied = ok[f"energy_per_token_j{side}"] / ok[f"time_per_token_s{side}"]
        assert (implied <= ok["replica_tdp"] * (1 + REL)).all(), side
        assert (implied >= FLOOR_SHARE * ok["replica_tdp"] * (1 - REL)).all(), side


def test_every_interval_is_finite_positive_and_holds_its_value(sweep):
    ok = sweep[sweep["status"] == "ok"]
    for q in ("power_w", "itl_s", "time_per_token_s", "energy_per_token_j"):
        lo, v, hi = ok[f"{q}_lo"], ok[q], ok[f"{q}_hi"]
        assert np.isfinite(lo).all() and (lo > 0).all(), q
        assert ((lo <= v * (1 + REL)) & (v <= hi * (1 + REL))).all(), q


def test_rows_that_are_not_ok_carry_no_number(sweep):
    bad = sweep[sweep["status"] != "ok"]
    assert len(bad) > 0
    assert bad[["power_w", "itl_s", "energy_per_token_j"]].isna().all().all()


def test_codellama_34b_at_batch_1_stays_above_the_weight_read():
    """CodeLlama-34B on an H200 NVL at batch 1: reading the weights once at the peak bandwidth
    takes 14.0 ms (33.5 B streamed parameters × 2 bytes / 4.8 TB/s, NVIDIA's H200 NVL; the input table is gathered,
    one row a token); the correction took the ITL to 10.7 ms before the floor. The measured H200
    is the H200 SXM board, so the NVL (NVIDIA's row: 600 W, 4.8 TB/s) is a GPU the training never
    saw, inside the training GPUs' range; on both boards the corrected answer and its interval stay
    above the floor."""
    m = wl.llm("codellama/CodeLlama-34b-hf")
    for name, basis in (("H200 NVL", "new gpu and llm"), ("H200 SXM", "new llm")):
        p = wl.predict(m, name, batch=1)
        floor = float(_floor_step_s(m, wl.gpu(name), 1, np.array(1.0)))
        assert p.itl_s_interval.lo >= floor * (1 - REL) and p.itl_s_interval.basis == basis
    assert _floor_step_s(m, wl.gpu("H200 NVL"), 1, np.array(1.0)) == pytest.approx(0.0140, rel=0.01)


def test_a_steady_rate_fixes_the_time_per_token():
    """At λ below capacity throughput equals arrivals: time per token is 1/(λ·T_out), exactly."""
    p = wl.predict("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", rate_qps=0.2, t_out=300)
    i = p.time_per_token_s_interval
    assert p.time_per_token_s == pytest.approx(1 / (0.2 * 300)) and i.lo == i.hi
    e = p.energy_per_token_j_interval
    assert p.power_w_interval.lo * i.lo <= e.lo * (1 + REL)
    assert e.hi <= p.power_w_interval.hi * i.hi * (1 + REL)


def test_correction_false_is_the_backbone_alone_with_physics_intervals():
    """On a training GPU the hybrid corrects the backbone; correction=False returns the backbone
    (its ITL is backbone_itl_s of the same row) with basis 'physics', in predict and predict_many."""
    args = ("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL")
    hybrid = wl.predict(*args, rate_qps=0.1)
    alone = wl.predict(*args, rate_qps=0.1, correction=False)
    assert hybrid.power_w_interval.basis == "cv" and alone.power_w_interval.basis == "physics"
    assert alone.model == "physics" and alone.itl_s != hybrid.itl_s
    frame = pd.DataFrame({"llm": [args[0]], "gpu": [args[1]], "rate_qps": [0.1]})
    row = wl.predict_many(frame, correction=False).iloc[0]
    assert row["itl_s"] == pytest.approx(alone.itl_s) and row["basis"] == "physics"
    assert wl.predict_many(frame).iloc[0]["backbone_itl_s"] == pytest.approx(row["itl_s"])
    with pytest.raises(InvalidInputError, match="correction must be True or False"):
        wl.predict(*args, rate_qps=0.1, correction="no")


def test_the_shipped_efficiencies_never_beat_the_peak():
    """η_bw and η_flops are achieved shares of the spec sheet's peaks: in (0, 1]."""
    from wattgpu_lite.energy.backbone.constants_fit import UPPER
    from wattgpu_lite.hybrid.predict.model import HybridState

    c = HybridState.pretrained().constants
    assert 0 < c.eta_bw <= 1 and 0 < c.eta_flops <= 1
    assert UPPER["eta_bw"] == UPPER["eta_flops"] == 1.0


@pytest.mark.parametrize(("llm", "gpu"), [("meta-llama/Llama-3.1-8B-Instruct", "H200 SXM"),
                                          ("meta-llama/Llama-3.1-8B-Instruct", "L4"),
                                          ("openai-community/gpt2", "T4")])  # fmt: skip
def test_the_training_gpus_at_the_ends_of_the_range_keep_their_correction(llm, gpu):
    """The support is the training GPUs' range, ends included: the H200 SXM (the measured H200's
    board) has the highest bandwidth and FP16 FLOP/s, the L4 the lowest bandwidth, the T4 the
    lowest FLOP/s."""
    p = wl.predict(llm, gpu, rate_qps=0.01)
    assert p.power_w_interval.basis == "cv" and p.model == "hybrid"


def test_an_unfloored_interval_holds_its_value_strictly_inside():
    """Off the floor and inside [idle, TDP], an interval is the value × e^(±q): lo < value < hi,
    with hi / value = value / lo."""
    p = wl.predict("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", rate_qps=0.1)
    e = p.energy_per_token_j_interval
    assert e.lo < p.energy_per_token_j * 0.97 and e.hi > p.energy_per_token_j * 1.03
    for value, i in ((p.itl_s, p.itl_s_interval), (p.power_w, p.power_w_interval)):
        assert i.lo < value * 0.97 and i.hi > value * 1.03
        assert i.hi / value == pytest.approx(value / i.lo, rel=1e-9)


def test_a_spec_just_beyond_the_training_range_is_physics_alone():
    """2 % above the highest training bandwidth (the H200 SXM's 4,800 GB/s) is already outside."""
    import dataclasses

    spec = dataclasses.replace(wl.gpu("H200 SXM"), name="a little faster", bandwidth_gbs=4900.0)
    p = wl.predict("meta-llama/Llama-3.1-8B-Instruct", spec, rate_qps=0.1)
    assert p.power_w_interval.basis == "physics"


def test_the_floor_at_a_rate_is_the_step_a_request_sees():
    """At a rate a request shares its step with the L others in flight: the floor is
    s_floor(1 + L), computed here from bounds.floor_step_s on the same row."""
    from wattgpu_lite.energy.backbone import row_arrays as R
    from wattgpu_lite.hybrid.predict import bounds

    llm, gpu = wl.llm("meta-llama/Llama-3.1-8B-Instruct"), wl.gpu("H100 NVL")
    frame = pd.DataFrame({"llm": [llm.name], "gpu": [gpu.name], "rate_qps": [2.0]})
    row = wl.predict_many(frame).iloc[0]
    rows, _ = R.build([llm], [gpu], 15, 180)
    want = bounds.floor_step_s(rows, np.array([1.0 + row["in_flight"]]))
    assert row["itl_floor_s"] == pytest.approx(float(want[0]), rel=1e-9)
    assert row["in_flight"] > 0.5  # the 1 + L matters here


def test_the_kits_floor_is_the_weight_read_by_hand():
    """CodeLlama-34B (untied, BF16) on an H200 NVL at batch 1 and 15/180 tokens: the floor is every
    streamed weight read once, (N − vocab × hidden) × 2 bytes / 4.89 TB/s; the KV cache and the
    gathered input row add 0.03 %."""
    m, g = wl.llm("codellama/CodeLlama-34b-hf"), wl.gpu("H200 NVL")
    assert m.weight_bits == 16 and not m.tie_embeddings
    assert m.params_always_b == pytest.approx(m.params_b - m.vocab_size * m.hidden_size / 1e9)
    row = wl.predict_many(pd.DataFrame({"llm": [m.name], "gpu": [g.name], "batch": [1.0]})).iloc[0]
    streamed_bytes = m.params_always_b * 1e9 * 2
    assert row["itl_floor_s"] == pytest.approx(streamed_bytes / (g.bandwidth_gbs * 1e9), rel=1e-3)


def test_a_replica_that_holds_one_sequence_serves_one_request_per_step_run():
    """Qwen2.5-32B on an A100 80GB with 16,000-token prompts holds one sequence: its capacity is
    1 / (T_out · s(1)), the backbone's batch-1 step."""
    args = ("Qwen/Qwen2.5-32B-Instruct", "A100 SXM4 80GB")
    one = wl.predict(*args, batch=1, t_in=16_000, t_out=100, correction=False)
    assert one.max_batch == 1
    assert one.capacity_qps == pytest.approx(1 / (100 * one.itl_s), rel=1e-9)


def test_an_energy_bound_is_held_at_the_power_bound_times_the_time_bound():
    """The L40S at 0.5 req/s with 1,500/400 tokens: the power interval reaches the 350 W TDP, so
    the energy's upper bound is 350 W × 1/(0.5 · 400) s = 1.75 J, not value × e^q."""
    p = wl.predict("meta-llama/Llama-3.1-8B-Instruct", "L40S", rate_qps=0.5, t_in=1500, t_out=400)
    assert p.power_w_interval.hi == pytest.approx(350.0)
    assert p.energy_per_token_j_interval.hi == pytest.approx(350.0 / (0.5 * 400), rel=1e-12)


def test_an_energy_lower_bound_is_held_at_the_lower_power_times_the_lower_time():
    """energy_bounds by hand: E = 100 W × 1 s = 100 J. With half-width 0.2, E·e^−0.2 = 81.9 J lies
    below the 90 W × 0.99 s = 89.1 J the bounded power and time allow, so the lower bound is
    89.1 J; E·e^0.2 = 122.1 J lies below 110 W × 1.2 s = 132 J, so the upper bound is 122.1 J."""
    from wattgpu_lite.hybrid.predict import bounds

    power = (np.array([100.0]), np.array([90.0]), np.array([110.0]))
    time = (np.array([1.0]), np.array([0.99]), np.array([1.2]))
    value, lo, hi = bounds.energy_bounds(power, time, np.array([0.2]))
    assert (value[0], lo[0], hi[0]) == pytest.approx((100.0, 89.1, 100.0 * np.exp(0.2)))


def test_energy_bounds_take_their_own_width_on_each_side():
    """Asymmetric log widths (the cross-source ITL intervals): E = 100 J, below 0.1 and above
    0.3, inside products of 45 and 220 J: E·e^−0.1 = 90.48 J and E·e^0.3 = 134.99 J; one width
    (``above`` None) is the symmetric interval."""
    from wattgpu_lite.hybrid.predict import bounds

    power = (np.array([100.0]), np.array([90.0]), np.array([110.0]))
    time = (np.array([1.0]), np.array([0.5]), np.array([2.0]))
    _, lo, hi = bounds.energy_bounds(power, time, np.array([0.1]), np.array([0.3]))
    assert (lo[0], hi[0]) == pytest.approx((100 * np.exp(-0.1), 100 * np.exp(0.3)), rel=1e-12)
    _, lo, hi = bounds.energy_bounds(power, time, np.array([0.1]))
    assert (lo[0], hi[0]) == pytest.approx((100 * np.exp(-0.1), 100 * np.exp(0.1)), rel=1e-12)
