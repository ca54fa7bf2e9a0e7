"""Property tests (hypothesis) of the energy model over the whole catalogs and random workloads:
energy grows with T_in, T_out and model size and is never negative; the ONE lambdified physical
function equals the sympy expressions it comes from (any GPU count, weight format, expert
parallelism); KV bytes scale with n_kv_heads."""

from __future__ import annotations

import dataclasses

import numpy as np
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import wattgpu_lite as wl
from wattgpu_lite.energy import codegen as CG
from wattgpu_lite.energy import physical as P

LLM_NAMES = sorted(wl.llms()["name"])
GPU_NAMES = sorted(wl.gpus()["name"])
llms, gpus = st.sampled_from(LLM_NAMES), st.sampled_from(GPU_NAMES)
tokens, batches = st.integers(1, 8192), st.integers(1, 256)
modes = st.sampled_from(["paper", "physical"])
EXPRESSIONS = dict(zip(P.KEYS, CG.generated_expressions(), strict=False))
SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)


def total_j(llm, gpu, t_in, t_out, mode, batch=1) -> float:
    return wl.estimate_energy(llm, gpu, t_in=t_in, t_out=t_out, batch=batch, mode=mode).total_j


@SETTINGS
@given(llms, gpus, tokens, tokens, batches, modes)
def test_energy_is_finite_and_never_negative(llm, gpu, t_in, t_out, batch, mode):
    assume(t_in + t_out <= wl.llm(llm).context_length)
    frame = wl.estimate_energy(llm, gpu, t_in=t_in, t_out=t_out, batch=batch, mode=mode).table()
    assert np.isfinite(frame["energy_j"]).all() and (frame["energy_j"] >= 0).all()
    assert frame["energy_j"].sum() > 0


@SETTINGS
@given(llms, gpus, tokens, tokens, st.integers(1, 2000), modes)
def test_energy_grows_with_input_and_output_tokens(llm, gpu, t_in, t_out, extra, mode):
    assume(t_in + t_out + extra <= wl.llm(llm).context_length)
    base = total_j(llm, gpu, t_in, t_out, mode)
    assert total_j(llm, gpu, t_in + extra, t_out, mode) >= base
    assert total_j(llm, gpu, t_in, t_out + extra, mode) > base


@SETTINGS
@given(llms, gpus, tokens, tokens, batches, st.floats(1.01, 10.0))
def test_physical_energy_grows_with_model_size(llm, gpu, t_in, t_out, batch, factor):
    model = list(P.llm_args(wl.llm(llm)))
    hw = P.gpu_args(wl.gpu(gpu), P.defaults()["static_fraction"])
    work, kappa = (t_in, t_out, batch), P.defaults()["kappa"]
    small = sum(P.physical_evaluate(model, work, hw, kappa=kappa)[0].values())
    model[0] *= factor  # N: more parameters, same attention shape
    assert sum(P.physical_evaluate(model, work, hw, kappa=kappa)[0].values()) > small


@settings(max_examples=25, deadline=None, derandomize=True)
@given(llms, gpus, tokens, tokens, batches, st.sampled_from([1, 2, 8]),
       st.sampled_from(["bf16", "fp8", "fp4", "int4"]), st.booleans(), st.integers(2, 64))  # fmt: skip
def test_the_generated_function_equals_the_sympy_expressions(llm, gpu, t_in, t_out, batch, g, w,
                                                             ep, experts):  # fmt: skip
    model = list(P.llm_args(wl.llm(llm), w))
    if ep:  # a made-up MoE shape on the same attention: experts, top-2, every layer routed
        model[2:6] = [float(experts), 2.0, model[6], model[1] / 4 / model[6] / experts]
    hw = P.gpu_args(wl.gpu(gpu), P.defaults()["static_fraction"], "antepara", w)
    # G, n_TP, n_EP, BW, t_0, t_hop, x_EP, t_grp: experts over the G GPUs with data-parallel
    # attention when ep, else tensor parallel
    sizes = (1.0, float(g), float(ep and g > 1)) if ep else (float(g), 1.0, 0.0)
    deploy = (float(g), sizes[0], sizes[1], 2e11, 6.6e-6 * (g > 1), 6e-7, sizes[2], 4e-6,
              # N_TP, N_EP, BW_net, t_net: 8 GPUs over two nodes of 4
              1.0 + (g == 8 and not ep), 1.0 + (g == 8 and ep), 5e10, 2.7e-6)  # fmt: skip
    kappa = P.defaults()["kappa"]
    values = (*model, t_in, t_out, batch, *hw, kappa, *deploy)
    numeric = P.physical_evaluate(model, (t_in, t_out, batch), hw, kappa=kappa, deploy=deploy)[0]
    subs = {k: sp.Float(v, 30) for k, v in zip(CG.ARGS, values, strict=True)}
    for key, expr in EXPRESSIONS.items():
        exact = float(expr.xreplace(subs).evalf(20))
        assert np.isclose(float(numeric[key]), exact, rtol=1e-9, atol=1e-12), key


@SETTINGS
@given(llms, st.data())
def test_kv_bytes_scale_with_kv_heads(llm, data):
    model = wl.llm(llm)
    assume(model.mla_kv_width == 0)  # latent attention caches one latent vector, not per head
    divisors = [h for h in range(1, model.n_heads + 1) if model.n_heads % h == 0]
    heads = data.draw(st.sampled_from(divisors))
    fewer = dataclasses.replace(model, n_kv_heads=heads)
    assert fewer.kv_bytes_per_token * model.n_kv_heads == model.kv_bytes_per_token * heads
