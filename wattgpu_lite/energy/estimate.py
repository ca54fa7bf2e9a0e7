"""``wl.estimate_energy``: the energy of one request, by component, as an :class:`EnergyEstimate`.

Physical mode (the default, as in the CLI) evaluates :mod:`wattgpu_lite.energy.physical` for any
dense or mixture-of-experts LLM, any weight format and a replica of ``num_gpus`` GPUs; paper mode
the printed equations of Vartziotis et al. (:mod:`wattgpu_lite.energy.paper`, re-exported here).
"""

from __future__ import annotations

import numbers
from dataclasses import replace
from pathlib import Path

import numpy as np

from wattgpu_lite import checks
from wattgpu_lite.energy import notes
from wattgpu_lite.energy.backbone import energy_terms, row_arrays
from wattgpu_lite.energy.breakdown import COMPONENTS  # noqa: F401  (re-exported)
from wattgpu_lite.energy.paper import (  # noqa: F401  (re-exported: the paper-mode API)
    paper_in_per_token_j,
    paper_out_per_token_j,
    paper_request_j,
    paper_terms_j,
)
from wattgpu_lite.energy.precision import compute_peak_tflops, weight_bits
from wattgpu_lite.energy.request import Request, check_request, check_workload
from wattgpu_lite.energy.result import EnergyEstimate
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.specs import catalog
from wattgpu_lite.specs.engine import check_serving
from wattgpu_lite.specs.layout import Parallel, layout_of
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm
from wattgpu_lite.specs.workload import DEFAULT_T_IN, DEFAULT_T_OUT

MODES = ("physical", "paper")
# a bare model size (billions): 10 M parameters (smaller than any LLM served) to 100,000 B
# (~60x the largest published, Switch-C's 1,571 B): outside, the paper's terms are no answer
BARE_PARAMS_B = (0.01, 100_000)
_PAPER_KEYS = {"compute_prefill": ("prefill", "compute"), "compute_decode": ("decode", "compute"),
               "parameter_reads": ("prefill", "parameter_reads"),
               "kv_writes": ("decode", "kv_writes"), "attention_reads": ("decode", "attention_reads")}  # fmt: skip


def resolve(llm, gpu):
    """(LLM, GPU) from names, dataclasses, config.json / spec.json paths or dicts: a string is
    a catalog name before a same-named relative path (specs.resolve decides both)."""
    if not isinstance(llm, catalog.LLM | str | Path | dict):
        raise InvalidInputError(
            f"llm must be a name, LLM, config path or dict; got "
            f"{type(llm).__name__} {checks.shown(llm)}; pass a catalog name "
            "(wl.llms()), a wl.LLM, a config.json path or dict, or in "
            "mode='paper' a size in billions of parameters (8 for 8B)"
        )
    return resolve_llm(llm), resolve_gpu(gpu)


def _paper(llm, gpu, work, n_layers, *, d_model, moe=False) -> EnergyEstimate:
    """Paper mode: H100 (Table 1) or A100 (Table 6) coefficients, weights once, no static term."""
    hw = "A100" if gpu.upper().startswith("A100") else "H100"
    t = paper_terms_j(llm[1] * 1e9, n_layers, d_model, work[0], t_out=work[1], hardware=hw)
    terms = tuple((*_PAPER_KEYS[k], float(v)) for k, v in t.items())
    return EnergyEstimate(
        llm=llm[0],
        gpu=gpu,
        mode="paper",
        t_in=work[0],
        t_out=work[1],
        batch=work[2],
        num_gpus=1,
        weights="bf16",
        weight_bits=16.0,
        expert_parallel=False,
        compute_peak="",
        compute_peak_tflops=None,
        coefficients=f"paper Table {1 if hw == 'H100' else 6} ({hw})",
        kappa=None,
        static_fraction=None,
        terms=terms,
        notes=notes.paper_notes(n_layers, d_model, work[2], moe),
    )


def _physical(req: Request, *, asked: bool) -> EnergyEstimate:
    """Physical mode: the backbone (one engine with ``wl.predict(..., correction=False)``) at
    its shipped constants, split into the physical terms
    (:mod:`~wattgpu_lite.energy.backbone.energy_terms`), for the checked request ``req``;
    ``asked``: its KV cache, engine or limit was given (else defaults)."""
    llm, gpu, layout, fmt = req.llm, req.gpu, req.layout, req.weights
    work, c = (req.t_in, req.t_out, req.batch), energy_terms.shipped_constants()
    peak, which = compute_peak_tflops(gpu, fmt)
    kv = {"kv_cache": req.kv_cache, "engine": req.engine, "max_num_seqs": req.max_num_seqs}
    serving = tuple(kv.values()) if asked else None  # the notes name what was asked
    deploy = {"num_gpus": layout, "weights": [fmt], **(kv if asked else {})}
    rows, _ = row_arrays.build([llm], [gpu], work[0], work[1], **deploy)
    t, engine = energy_terms.request_breakdown(rows, np.array([float(work[2])]), c)
    terms = tuple((ph, comp, float(v[0])) for (ph, comp), v in t.items())
    idle = float(engine["idle_power_w"][0]) / layout.num_gpus
    basis = (
        f"backbone: TDP / {which.upper()} peak, {gpu.memory_type}; η_bw {c.eta_bw:.3g}, "
        f"η_f {c.eta_flops:.3g} (fitted)"
    )
    return EnergyEstimate(
        llm=llm.name,
        gpu=gpu.name,
        mode="physical",
        t_in=work[0],
        t_out=work[1],
        batch=work[2],
        num_gpus=layout.num_gpus,
        weights=fmt,
        weight_bits=weight_bits(llm, fmt),
        expert_parallel=layout.ep > 1,
        compute_peak=which,
        compute_peak_tflops=peak,
        coefficients=basis,
        kappa=c.kappa,
        static_fraction=idle / gpu.tdp_w,
        terms=terms,
        notes=notes.physical_notes(llm, gpu, work, layout, fmt=fmt, serving=serving)
        + notes.scale_note(float(engine["dynamic_scale"][0]))
        + notes.weights_notes(llm, req.weights_asked, end="."),
        llm_architecture=llm.architecture_name,
        tp=layout.tp,
        ep=layout.ep,
        power_w=float(engine["power_w"][0]),
        step_time_s=float(engine["step_time_s"][0]),
    )


GPU_REQUIRED = (
    "estimate_energy needs gpu, the GPU that serves the request: pass it after the "
    'LLM, estimate_energy(llm, "H100 NVL"), or by name, gpu="H100 NVL" — a '
    "catalog name (wl.gpus()), a wl.gpu(...), a spec dict or the path of a spec "
    ".json (--gpu on the command line)"
)


def bare_size_b(size, mode: str) -> float:
    """A bare model size in billions of parameters as a float: paper mode only, finite and in
    :data:`BARE_PARAMS_B` (InvalidInputError naming ``llm``, the range and the fix)."""
    if mode != "paper":
        raise InvalidInputError(
            "a bare parameter count works only in paper mode and must be "
            "> 0; pass an LLM name or config.json for physical mode."
        )
    lo, hi = BARE_PARAMS_B
    return checks.check_number(
        "llm",
        size,
        lo,
        hi,
        unit="billion parameters",
        label="llm (a bare model size in billions of parameters)",
        fix=f"pass the size in billions from {lo:g} to {hi:,} (8 for an "
        "8B model), or the model's name or config.json",
    )


def estimate_energy(
    llm,
    gpu=None,
    *,
    batch: float = 1.0,
    t_in: int = DEFAULT_T_IN,
    t_out: int = DEFAULT_T_OUT,
    mode: str = "physical",
    num_gpus: int = 1,
    weights: str | None = None,
    expert_parallel: bool = False,
    parallel: Parallel | None = None,
    kv_cache: str | None = None,
    engine: str | None = None,
    max_num_seqs: int | None = None,
) -> EnergyEstimate:
    """Energy of one request of ``t_in`` prompt and ``t_out`` generated tokens, by component.

    ``llm`` and ``gpu`` by position, the rest by name, in ``wl.predict``'s order (load, tokens,
    layout, format).

    ``llm``: catalog name, LLM, a config.json path or dict, or in paper mode a bare size in
    billions (dense terms only, with a warning). ``gpu`` (required; InvalidInputError saying
    how to pass it): catalog name, GPU or spec. ``batch``: sequences sharing each step. ``mode``: "physical" (default) or "paper" (printed equations;
    the GPU only picks H100 vs A100 coefficients; one GPU, 16-bit weights). ``num_gpus``: GPUs of
    the replica (tensor parallel; ``expert_parallel=True`` puts a MoE's whole experts on them);
    ``parallel``: the replica's layout instead, ``wl.Parallel(tp=4)``, ``wl.Parallel(ep=8)``.
    ``weights``: served format ("bf16", "fp8", "fp4", "int4", ...; None = the model's own).
    ``kv_cache``: the KV cache's format ("auto", the default: 16 bits; "fp8": half the KV bytes
    written and read), ``engine`` ("vllm", the default, "sglang", "tensorrt-llm") and
    ``max_num_seqs`` (None: the engine's default): physical mode only; the engine and its limit
    decide how many sequences fit at once (a note when ``batch`` is more).
    Energies are for the whole replica. Default tokens: the kit's one default (specs.workload).
    Physical mode builds the kit's one checked request
    (:func:`~wattgpu_lite.energy.request.check_request`: the checks and messages of
    ``wl.predict``, the load a batch); paper mode its load and token checks alone. ``batch`` is a
    float, as everywhere in the kit.
    """
    if gpu is None:  # required, as --gpu is: no GPU is everyone's default
        raise InvalidInputError(GPU_REQUIRED)
    if mode not in MODES:
        near = [m for m in MODES if isinstance(mode, str) and m == mode.strip().lower()]
        raise InvalidInputError(
            f"mode must be one of {MODES}, got {checks.shown(mode)}; pass "
            f"mode={(near or ['physical'])[0]!r} (the kit's modes are lower "
            "case; 'physical' is the default)"
        )
    serving = {"kv_cache": kv_cache, "engine": engine, "max_num_seqs": max_num_seqs}
    work = {"batch": batch, "t_in": t_in, "t_out": t_out}
    layout = {"num_gpus": num_gpus, "parallel": parallel, "expert_parallel": expert_parallel}
    if mode == "paper":
        return _paper_mode(llm, gpu, work, layout, asked={"weights": weights, **serving})
    if isinstance(llm, numbers.Real) and not isinstance(llm, bool):
        bare_size_b(llm, mode)  # InvalidInputError: a bare size is paper mode's only
    model, device = resolve(llm, gpu)
    req = check_request(model, device, weights=weights, **layout, **work, **serving)
    return _physical(req, asked=tuple(serving.values()) != (None, None, None))


def _paper_mode(llm, gpu, work: dict, layout: dict, *, asked: dict) -> EnergyEstimate:
    """Paper mode's own rules (one GPU at 16 bits, vLLM's defaults; a bare size in billions)
    and the load and token checks of every request (:func:`check_workload`: ``work``'s batch
    and tokens, within the model's context length when it has one)."""
    lay = layout_of(**layout)
    check_serving(asked["kv_cache"], asked["engine"], asked["max_num_seqs"])
    if lay.num_gpus != 1 or layout["expert_parallel"] or any(v is not None for v in asked.values()):
        raise InvalidInputError(
            "paper mode models one GPU at 16 bits; num_gpus, weights, "
            "expert_parallel, kv_cache, engine and max_num_seqs apply to "
            "mode='physical': drop them, or pass mode='physical'"
        )
    if isinstance(llm, numbers.Real) and not isinstance(llm, bool):
        size, name = bare_size_b(llm, "paper"), resolve_gpu(gpu).name  # it picks the table
        _, bat, _, t_in, t_out = check_workload(None, **work)
        return _paper((f"{size:g}B (bare)", size), name, (t_in, t_out, bat), None, d_model=None)
    llm, gpu = resolve(llm, gpu)
    _, bat, _, t_in, t_out = check_workload(llm.context_length, **work)
    est = _paper(
        (llm.name, llm.params_nominal_b),
        gpu.name,
        (t_in, t_out, bat),
        llm.n_layers,
        d_model=llm.hidden_size,
        moe=llm.is_moe,
    )
    return replace(est, llm_architecture=llm.architecture_name)
