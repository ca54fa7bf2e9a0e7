"""Property tests: odd config.json and spec dicts raise only the kit's own errors, never a stray
KeyError/TypeError, and a valid GPU or LLM always comes out self-consistent."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wattgpu_lite as wl
from wattgpu_lite.errors import WattGPUError

CONFIG_KEYS = [
    "model_type", "num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads",
    "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings",
    "tie_word_embeddings", "n_layer", "n_embd", "n_head", "n_inner", "n_positions", "text_config",
    "num_local_experts", "quantization_config", "hidden_act", "multi_query", "rotary_dim",
]  # fmt: skip
SPEC_KEYS = [f.name for f in dataclasses.fields(wl.GPU)] + ["bogus_field"]

values = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 10**6), st.floats(allow_nan=True),
    st.text(max_size=8), st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)  # fmt: skip
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.dictionaries(st.sampled_from(CONFIG_KEYS), values, max_size=12))
def test_random_configs_raise_only_kit_errors(config):
    try:
        model = wl.LLM.from_hf_config(config)
    except WattGPUError:
        return
    assert model.params_b > 0 and model.n_kv_heads <= model.n_heads


def _valid_spec() -> dict:
    return dataclasses.asdict(wl.gpu("L4"))


@SETTINGS
@given(st.sampled_from(SPEC_KEYS), values)
def test_one_corrupted_spec_field_raises_only_kit_errors(field, value):
    spec = {**_valid_spec(), field: value}
    try:
        gpu = wl.GPU.from_spec(spec)
    except WattGPUError:
        return
    assert not gpu.boost_clock_mhz < gpu.base_clock_mhz and gpu.fp16_tflops > 0


@SETTINGS
@given(st.sampled_from(SPEC_KEYS[:-1]))
def test_a_missing_required_spec_field_is_named(field):
    spec = _valid_spec()
    spec.pop(field)
    try:
        wl.GPU.from_spec(spec)
    except WattGPUError as err:
        assert field in str(err)
