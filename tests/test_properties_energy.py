"""Property tests (hypothesis) of the energy model over the whole catalogs and random workloads:
energy grows with T_in, T_out and model size and is never negative; the lambdified physical terms
equal the sympy expressions they come from; KV bytes scale with n_kv_heads."""

from __future__ import annotations

import dataclasses

import numpy as np
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import wattgpu_lite as wl
from wattgpu_lite.energy import estimate as E
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy import symbolic as S

LLM_NAMES = sorted(wl.llms()["name"])
GPU_NAMES = sorted(wl.gpus()["name"])
llms, gpus = st.sampled_from(LLM_NAMES), st.sampled_from(GPU_NAMES)
tokens, batches = st.integers(1, 8192), st.integers(1, 256)
modes = st.sampled_from(["paper", "physical"])
PHASE_TERMS = {phase: S.phase_terms(phase) for phase in ("prefill", "decode")}
SETTINGS = settings(max_examples=30, deadline=None)


def total_j(llm, gpu, t_in, t_out, mode, batch=1) -> float:
    return sum(
        E.components_j(wl.estimate_energy(llm, gpu, t_in, t_out, mode=mode, batch=batch)).values()
    )


@SETTINGS
@given(llms, gpus, tokens, tokens, batches, modes)
def test_energy_is_finite_and_never_negative(llm, gpu, t_in, t_out, batch, mode):
    frame = wl.estimate_energy(llm, gpu, t_in, t_out, mode=mode, batch=batch)
    assert np.isfinite(frame["energy_j"]).all() and (frame["energy_j"] >= 0).all()
    assert frame["energy_j"].sum() > 0


@SETTINGS
@given(llms, gpus, tokens, tokens, st.integers(1, 2000), modes)
def test_energy_grows_with_input_and_output_tokens(llm, gpu, t_in, t_out, extra, mode):
    base = total_j(llm, gpu, t_in, t_out, mode)
    assert total_j(llm, gpu, t_in + extra, t_out, mode) >= base
    assert total_j(llm, gpu, t_in, t_out + extra, mode) > base


@SETTINGS
@given(llms, gpus, tokens, tokens, batches, st.floats(1.01, 10.0))
def test_physical_energy_grows_with_model_size(llm, gpu, t_in, t_out, batch, factor):
    model = list(P.llm_args(wl.llm(llm)))
    hw = P.gpu_args(wl.gpu(gpu), P.defaults()["static_fraction"])
    work, kappa = (t_in, t_out, batch), P.defaults()["kappa"]
    small = sum(P.physical_terms_j(model, work, hw, kappa).values())
    model[0] *= factor  # N: more parameters, same attention shape
    assert sum(P.physical_terms_j(model, work, hw, kappa).values()) > small


@settings(max_examples=25, deadline=None)
@given(llms, gpus, tokens, tokens, batches)
def test_lambdified_physical_terms_equal_the_sympy_expressions(llm, gpu, t_in, t_out, batch):
    values = (*P.llm_args(wl.llm(llm)), t_in, t_out, batch)
    values += (*P.gpu_args(wl.gpu(gpu), P.defaults()["static_fraction"]), P.defaults()["kappa"])
    numeric = P.physical_terms_j(values[:4], values[4:7], values[7:13], values[13])
    subs = {k: sp.Float(v, 30) for k, v in zip(P.ARGS, values, strict=True)}
    subs |= {S.b_w: sp.Integer(16), S.b_kv: sp.Integer(16)}
    for (phase, comp), expr in ((k, PHASE_TERMS[k[0]][k[1]]) for k in numeric):
        exact = float(expr.xreplace(subs).evalf(20))
        assert np.isclose(float(numeric[(phase, comp)]), exact, rtol=1e-9, atol=1e-12)


@SETTINGS
@given(llms, st.data())
def test_kv_bytes_scale_with_kv_heads(llm, data):
    model = wl.llm(llm)
    assume(model.mla_kv_width == 0)  # latent attention caches one latent vector, not per head
    divisors = [h for h in range(1, model.n_heads + 1) if model.n_heads % h == 0]
    heads = data.draw(st.sampled_from(divisors))
    fewer = dataclasses.replace(model, n_kv_heads=heads)
    assert fewer.kv_bytes_per_token * model.n_kv_heads == model.kv_bytes_per_token * heads
