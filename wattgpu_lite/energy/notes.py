"""What an energy estimate should tell its reader: notes on the result (the deployments it
refuses, :func:`wattgpu_lite.energy.args.check_deployment`, never get this far).

Noted: weights that do not fit, a batch beyond the KV cache, a precision without its own tensor
cores (the peak used), tensor groups that run at different peaks, the experts a decode step
touches.
"""

from __future__ import annotations

import numpy as np

from wattgpu_lite.energy.occupancy import kv_capacity_seqs, weight_bytes, weights_fit
from wattgpu_lite.energy.precision import compute_peak_tflops, streamed_formats
from wattgpu_lite.specs.engine import DEFAULT_ENGINE, kv_bytes_scale, kv_cache_bits
from wattgpu_lite.specs.engine import engine as engine_of
from wattgpu_lite.specs.layout import as_layout


def experts_per_step(llm, batch: float) -> float:
    """Expected distinct experts of one MoE layer a decode step of ``batch`` tokens reads:
    ``E·(1 − (1 − k/E)^batch)``, :func:`~wattgpu_lite.energy.symbolic_physical.experts_touched`
    in numbers (a test holds them equal; no sympy on the estimate path)."""
    n, active = float(llm.n_experts), float(llm.n_experts_active)
    return float(n * (1 - (1 - active / n) ** batch))


def physical_notes(llm, gpu, work, num_gpus, *, fmt, serving=None) -> tuple[str, ...]:
    """Notes on a physical-mode estimate (see the module docstring); ``serving``: the checked
    (KV-cache format, engine, concurrency limit), None at the defaults (vLLM, "auto", 256)."""
    t_in, t_out, batch = work
    kv, eng, limit = (None, None, None) if serving is None else serving
    who = engine_of(eng)
    name = "vLLM" if who.name == "vllm" else who.name
    lay, out = as_layout(num_gpus), []
    if not weights_fit(llm, gpu, num_gpus, fmt, engine=eng):
        free = "" if who.memory_share_of == "total" else " (of the memory the weights leave)"
        share = f"{who.gpu_memory_share:g}{free}"
        out.append(
            f"the {fmt} weights ({weight_bytes(llm, fmt) / 1e9:.1f} GB) do not fit in {share} "
            f"of {lay.num_gpus} × {gpu.memory_gb:g} GB: {name} could not load them; the numbers "
            "are what the request would cost if it could."
        )
    elif batch > (
        cap := float(
            kv_capacity_seqs(
                llm,
                gpu,
                t_in,
                t_out,
                num_gpus=num_gpus,
                weights=fmt,
                kv_cache=kv,
                engine=eng,
                max_num_seqs=limit,
            )
        )
    ):
        most = who.max_num_seqs if limit is None else limit
        out.append(
            f"batch {batch} exceeds the {cap:.0f} sequences {name} runs at once here (KV "
            f"cache at {t_in}/{t_out} tokens, at most {most}): it would queue the rest."
        )
    out.extend(layout_notes(llm, gpu, lay, fmt))
    if llm.is_moe:
        out.append(
            f"a decode step of {batch} tokens reads {experts_per_step(llm, batch):.1f} of "
            f"{llm.n_experts} routed experts per MoE layer (top-{llm.n_experts_active})."
        )
    out.extend(f"{note}." for note in serving_notes(kv, eng))
    return tuple(out)


def layout_notes(llm, gpu, num_gpus, fmt: str) -> tuple[str, ...]:
    """Notes on how the deployment runs, for every answer of one (``wl.predict``,
    ``wl.explain``, ``wl.estimate_energy``): a format without its own tensor cores (the FP16
    peak used), tensor groups at different peaks, the KV cache a tensor-parallel group
    copies (MLA latents; KV heads fewer than the GPUs)."""
    lay, out = as_layout(num_gpus), []
    if fmt in ("fp8", "mxfp4", "nvfp4") and compute_peak_tflops(gpu, fmt)[1] == "fp16":
        out.append(
            f"{gpu.name} has no {fmt[-3:].upper()} tensor cores: the {fmt} weights run "
            "weight-only (dequantised to 16 bits) at the FP16 peak."
        )
    out.extend(group_peaks_note(llm, gpu, fmt))
    if lay.tp > 1 and llm.mla_kv_width:
        out.append(
            f"tensor parallel keeps a copy of the latent (MLA) cache on each of the {lay.tp} "
            "GPUs of a group: the KV capacity counts it, the KV traffic once (a lower "
            "bound); data-parallel attention (Parallel(ep=...)) avoids it."
        )
    elif lay.tp > llm.n_kv_heads:
        out.append(
            f"tp={lay.tp} > {llm.n_kv_heads} KV heads: vLLM replicates KV heads; the KV "
            "capacity counts it, the KV traffic once (a lower bound)."
        )
    return tuple(out)


def serving_notes(kv_cache: str | None = None, engine: str | None = None) -> tuple[str, ...]:
    """Notes on how a request is served when it is not how most of the rows the kit's constants
    were fitted on ran (vLLM, a 16-bit KV cache): the engine whose defaults are used, an 8-bit KV
    cache; empty at the defaults. ``wl.predict`` and ``wl.estimate_energy`` both add them."""
    who, out = engine_of(engine), []
    if who.name != DEFAULT_ENGINE:
        out.append(
            f"engine {who.name!r}: one set of constants serves every engine, fitted on the Watt "
            "Counts vLLM runs and other harnesses' published rows, most of them vLLM's; "
            f"{who.name}'s documented defaults ({who.defaults_text()}; data/engines.csv) are "
            "used, its own speed is not modelled"
        )
    if kv_bytes_scale(kv_cache) != 1.0:
        out.append(
            f"KV cache {kv_cache}: {kv_cache_bits(kv_cache):g} bits per cached K or V "
            "element (half the KV bytes written and read per token, twice the tokens the "
            "cache holds); the kit's constants were fitted almost only on 16-bit KV caches"
        )
    return tuple(out)


def weights_notes(llm, weights: str | None = None, end: str = "") -> tuple[str, ...]:
    """A note when the weights asked (``weights``, else the model's own format) are FP32, which
    the kit serves in FP16 as vLLM serves an FP32 checkpoint
    (:func:`~wattgpu_lite.energy.precision.canonical_format`); empty otherwise. ``wl.predict``
    and ``wl.estimate_energy`` both add it (``end``: "." for the estimate's sentences)."""
    asked = llm.weight_format if weights is None else str(weights).lower()
    if asked != "fp32":
        return ()
    return (
        "weights fp32 are served as fp16, as vLLM serves an FP32 checkpoint: the numbers are "
        f"16-bit serving's (half the weight bytes), not FP32 kernels'{end}",
    )


def group_peaks_note(llm, gpu, fmt: str) -> tuple[str, ...]:
    """A note when the always-read weights (with attention) and the routed experts run at
    different compute peaks (gpt-oss on a GPU with FP4 tensor cores); empty otherwise."""
    always, expert = streamed_formats(llm, fmt)
    (peak_a, which_a), (peak_e, which_e) = (compute_peak_tflops(gpu, f) for f in (always, expert))
    if which_a == which_e:
        return ()
    return (
        f"each tensor group at its own peak: attention and the always-read {always} weights "
        f"at the {which_a.upper()} peak ({peak_a:g} TFLOP/s), the routed {expert} experts at "
        f"the {which_e.upper()} peak ({peak_e:g} TFLOP/s).",
    )


def scale_note(dynamic_scale: float) -> tuple[str, ...]:
    """A note when the dynamic terms were scaled to the backbone's busy power (f ≠ 1)."""
    if abs(dynamic_scale - 1.0) < 5e-3:  # within rounding of the printed 1.00
        return ()
    why = (
        "held at its peak past the compute-bound turn (power never falls with load)"
        if dynamic_scale > 1
        else "capped at the TDP"
    )
    return (
        f"the dynamic terms are scaled by {dynamic_scale:.3g} to the backbone's busy power, {why}.",
    )


def paper_notes(n_layers, d_model, batch: int, moe: bool) -> tuple[str, ...]:
    """Notes on a paper-mode estimate: ignored batch, MoE as dense, missing attention shape."""
    out = [] if batch == 1 else [f"paper mode has no batch: batch {batch} is ignored."]
    if moe:
        out.append("paper mode treats a mixture-of-experts model as dense (N = all parameters).")
    if not np.all(np.asarray([n_layers or 0, d_model or 0]) > 0):
        out.append("no layers or width: dense K·N terms only (no attention FLOPs or KV traffic).")
    return tuple(out)
