"""What a single predict keeps of its configuration (hybrid.predict.one_config): the row built
once per (LLM, GPU, layout, formats), each call's tokens and KV capacity added; the same Rows
and capacity, to the bit, as row_arrays.build of that one row."""

from __future__ import annotations

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.backbone import row_arrays
from wattgpu_lite.hybrid.predict import intervals, one_config
from wattgpu_lite.specs.layout import Parallel

CASES = [
    ("meta-llama/Llama-3.1-8B-Instruct", "A30", Parallel(1), "bf16", {}),
    ("meta-llama/Llama-3.1-8B-Instruct", "H100 SXM", Parallel(2), "fp8", {}),
    ("Qwen/Qwen3-30B-A3B", "MI300X", Parallel(2, 2), "bf16",
     {"kv_cache": "fp8", "engine": "sglang", "max_num_seqs": 64}),
    ("meta-llama/Llama-3.1-8B-Instruct", "L4", Parallel(1), "int4",
     {"kv_cache": "auto", "engine": "vllm", "max_num_seqs": 256}),
]  # fmt: skip


def _same_rows(a, b) -> bool:
    for name, value in a.__dict__.items():
        other = b.__dict__[name]
        pairs = zip(value, other, strict=True) if isinstance(value, tuple) else [(value, other)]
        if not all(np.array_equal(x, y, equal_nan=True) for x, y in pairs):
            return False
    return True


@pytest.mark.parametrize(("llm", "gpu", "layout", "fmt", "serving"), CASES)
def test_the_kept_row_at_any_tokens_is_the_row_built_afresh(llm, gpu, layout, fmt, serving):
    model, device = wl.llm(llm), wl.gpu(gpu)
    deploy = {"num_gpus": layout, "weights": [fmt], **serving}
    for t_in, t_out in ((15, 180), (4000, 900), (1, 1), (30_000, 2)):
        rows, cap = one_config.built_at(model, device, t_in, t_out, **deploy)
        fresh_rows, fresh_cap = row_arrays.build([model], [device], t_in, t_out, **deploy)
        assert np.array_equal(cap, fresh_cap) and _same_rows(rows, fresh_rows)
        assert rows.t_in.tolist() == [t_in] and rows.t_out.tolist() == [t_out]


def test_the_kept_arrays_are_read_only_and_each_call_has_its_own_tokens():
    model, device = wl.llm("meta-llama/Llama-3.1-8B-Instruct"), wl.gpu("A30")
    deploy = {"num_gpus": Parallel(1), "weights": ["bf16"]}
    first, _ = one_config.built_at(model, device, 100, 200, **deploy)
    second, _ = one_config.built_at(model, device, 300, 400, **deploy)
    assert first.t_in.tolist() == [100] and second.t_in.tolist() == [300]
    assert first.model is second.model  # the configuration's arrays, kept
    with pytest.raises(ValueError):
        first.tdp_w[0] = 1.0
    with pytest.raises(ValueError):
        first.model.active_params[0] = 1.0


def test_a_kept_fingerprint_is_the_text_of_its_gpu_and_llm():
    device, model = wl.gpu("A30"), wl.llm("meta-llama/Llama-3.1-8B-Instruct")
    assert intervals.gpu_fingerprint(device) == intervals._gpu_text(device)
    assert intervals.llm_fingerprint(model) == intervals._llm_text(model)
    assert intervals.gpu_fingerprint(device) != intervals.gpu_fingerprint(wl.gpu("L4"))


def test_a_fact_is_kept_per_model_and_key_and_made_afresh_for_another():
    class Model:  # any object, compared by identity
        pass

    made = []
    first, second = Model(), Model()

    def make():
        made.append(1)
        return np.array([len(made)])

    a = one_config.kept_fact(first, ("k", 1.0), make)
    assert one_config.kept_fact(first, ("k", 1.0), make) is a and len(made) == 1
    assert not a.flags.writeable
    assert one_config.kept_fact(second, ("k", 1.0), make).tolist() == [2]
    assert one_config.kept_fact(first, ("k", 2.0), make).tolist() == [3]
    assert one_config.kept_fact(first, ("k", [1]), make).tolist() == [4]  # unhashable: afresh
    assert one_config.kept_fact(first, ("k", [1]), make).tolist() == [5]


def test_a_single_predict_keeps_no_answer_between_calls():
    name, gpu = "meta-llama/Llama-3.1-8B-Instruct", "A30"
    one = wl.predict(name, gpu, rate_qps=0.1, t_in=500, t_out=300)
    other = wl.predict(name, gpu, rate_qps=0.05, t_in=100, t_out=200)
    again = wl.predict(name, gpu, rate_qps=0.1, t_in=500, t_out=300)
    assert one.power_w != other.power_w and one.itl_s != other.itl_s
    assert (again.power_w, again.itl_s) == (one.power_w, one.itl_s)
    assert wl.predict(name, gpu, rate_qps=0.1, t_in=500, t_out=300, level=0.9).power_w_interval != (
        one.power_w_interval
    )
