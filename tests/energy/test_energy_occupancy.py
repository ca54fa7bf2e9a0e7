"""One definition of batch occupancy: vLLM's KV capacity and an offline run's mean in flight."""

import dataclasses

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.backbone import row_arrays as rows
from wattgpu_lite.energy.occupancy import kv_capacity_seqs, offline_in_flight, weights_fit


def test_kv_capacity_by_hand():
    m, g = wl.llm("meta-llama/Llama-2-7b-hf"), wl.gpu("A100 SXM4 40GB")
    free = 0.9 * 40e9 - 2 * m.params_b * 1e9
    blocks = np.floor(free / (16 * 524_288))
    assert float(kv_capacity_seqs(m, g, 1000, 2000)) == np.floor(blocks / np.ceil(2000 / 16))
    assert float(kv_capacity_seqs(m, g, 15, 180)) == 256  # capped by max_num_seqs
    fp8 = float(kv_capacity_seqs(m, g, 1000, 2000, weights="fp8"))
    two = float(kv_capacity_seqs(m, g, 1000, 2000, num_gpus=2))
    assert fp8 > float(kv_capacity_seqs(m, g, 1000, 2000)) and two > fp8


@pytest.mark.parametrize(("cap", "n", "mean"), [(256, 1000, 1000 * 256 / 1256), (256, 56, 56 / 2),
                                                (256, 256, 128), (1, 5, 5 / 6)])  # fmt: skip
def test_offline_in_flight_is_continuous_batching(cap, n, mean):
    assert float(offline_in_flight(cap, n)) == pytest.approx(mean)
    assert round(float(offline_in_flight(256, 1000))) == 204


def test_the_hybrid_predictor_uses_these_very_definitions():
    """energy.backbone.row_arrays gathers its capacity from kv_capacity_seqs, per configuration."""
    for name in ("meta-llama/Llama-2-7b-hf", "Qwen/Qwen2.5-14B", "Qwen/Qwen3-30B-A3B-FP8"):
        for gpu, n in (("A100 SXM4 40GB", 1), ("L4", 1), ("H100 SXM", 2)):
            m, g = wl.llm(name), wl.gpu(gpu)
            _, cap = rows.build([m, m], [g, g], [15, 2000], [180, 1000], num_gpus=n)
            assert list(cap) == [float(kv_capacity_seqs(m, g, 15, 180, num_gpus=n)),
                                 float(kv_capacity_seqs(m, g, 2000, 1000, num_gpus=n))]  # fmt: skip
    assert rows.offline_in_flight is offline_in_flight


def test_weights_fit():
    m = wl.llm("meta-llama/Llama-3.3-70B-Instruct")
    assert not weights_fit(m, wl.gpu("L4")) and weights_fit(m, wl.gpu("H100 SXM"), 2)
    assert weights_fit(dataclasses.replace(m, weight_format="int4", weight_bits=4.25),
                       wl.gpu("H100 SXM"))  # fmt: skip
    est = wl.estimate_energy(m, "L4", t_in=500, t_out=500)
    assert any("do not fit" in n for n in est.notes)


def test_one_rows_sequences_on_floats_are_the_arrays():
    """seqs_in_one (a single predict's KV capacity on floats) gives seqs_in's bits wherever it
    answers, and answers every row that holds at least one sequence."""
    from wattgpu_lite.energy.occupancy import seqs_in, seqs_in_one

    rng = np.random.default_rng(9)
    n = 20000
    blocks = np.floor(rng.choice([0.0, 1.0, 3.0, 1e3, 1e5, 1e7], n) * rng.uniform(0, 2, n))
    t_in, t_out = (
        rng.integers(1, 200_000, n).astype(float),
        rng.integers(1, 40_000, n).astype(float),
    )
    limit = rng.choice([0.5, 1.0, 64.0, 256.0, 1024.0, np.inf], n)
    arrays = seqs_in(blocks, t_in, t_out, limit)
    answered = 0
    for i in range(n):
        one = seqs_in_one(
            float(blocks[i]), t_in=float(t_in[i]), t_out=float(t_out[i]), limit=float(limit[i])
        )
        if one is not None:
            answered += 1
            assert one == arrays[i] and type(one) is float
        else:
            assert arrays[i] < 1 or blocks[i] < np.ceil((t_in[i] + t_out[i] / 2) / 16)
    assert answered > n / 4
