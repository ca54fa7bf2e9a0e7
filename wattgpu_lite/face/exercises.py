"""Graded exercises: the checks the notebooks' "write it yourself" exercises call (issue 32).

Each exercise of a notebook is three cells: the task (markdown), the answer (a code cell tagged
``solution`` that defines one function, ``my_…``) and the check (a code cell tagged ``check``)::

    from wattgpu_lite.face import exercises
    exercises.check("04.1", my_mdape)

:func:`check` calls the student's function on several inputs and compares each answer with the
kit's own function (:data:`EXERCISES` names it). A wrong answer raises :class:`ExerciseError`
(an ``AssertionError``) that says which input, what was expected, what came back, and a hint;
an answer not written yet (the student edition's stub raises ``NotImplementedError``) says what
to write. A passing answer returns :class:`Passed`, which a notebook displays as one line.
``python -m wattgpu_lite.face.student`` writes the student edition (the stubs).
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import sympy as sp

from wattgpu_lite import metrics
from wattgpu_lite.energy import symbolic, symbolic_physical
from wattgpu_lite.energy.traffic import bytes_table
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.face import explorer
from wattgpu_lite.hybrid.fit import conformal
from wattgpu_lite.runs import measurements
from wattgpu_lite.selection import accounting
from wattgpu_lite.selection.verdict import MEETS, sla_verdicts
from wattgpu_lite.specs.catalog import gpu, llm
from wattgpu_lite.specs.llm import LLM
from wattgpu_lite.wattgpu import features
from wattgpu_lite.wattgpu import metrics as wmetrics
from wattgpu_lite.wattgpu.evaluation import held_out_masks

RTOL = 1e-9  # the answers are the same arithmetic as the kit's: they agree to rounding
SEED = 0  # every random input of a check is drawn from this seed
# values at which two sympy expressions are compared when they differ (typical sizes of an 8 B
# model at 500 prompt and 300 output tokens; the paper's Table 2 constants are mere test points)
_POINT = {symbolic.K: 2, symbolic.N: 8e9, symbolic.n_l: 32, symbolic.d: 4096, symbolic.T_in: 500, symbolic.T_out: 300, symbolic.B: 16,
          symbolic.alpha: 1e-12, symbolic.e_mem: 1e-11, symbolic.b_w: 16, symbolic.b_kv: 16, symbolic.N0: 1e9, symbolic.gamma0: 0.5,
          symbolic.gamma_exp: 0.1, symbolic.s_coef: 0.2, symbolic.s_exp: 0.3, symbolic.eta_coef: 0.1, symbolic.eta_exp: 0.2,
          symbolic_physical.N_all: 7.5e9, symbolic_physical.E: 8, symbolic_physical.k: 2, symbolic_physical.L_moe: 32, symbolic_physical.N_exp: 1.2e8, symbolic_physical.b_e: 16}  # fmt: skip


class ExerciseError(AssertionError):
    """A graded answer that does not pass: which input, expected, got, and a hint."""


@dataclass(frozen=True)
class Case:
    """One input of a check: the arguments, a short description, the kit's answer."""

    label: str
    args: tuple
    expected: Any


@dataclass(frozen=True)
class Exercise:
    """A graded exercise: the function the student writes and the kit's function it must equal."""

    key: str  # "NN.k": notebook NN, exercise k
    signature: str  # what the student writes, e.g. "my_mdape(y_true, y_pred)"
    library: str  # the kit's function the answer is compared with
    task: str  # one sentence: what the function returns
    hint: str  # what a wrong answer most often misses
    cases: Callable[[], list[Case]]
    kind: str = "number"  # "number" (arrays, rtol 1e-9), "exact" (labels, booleans) or "sympy"

    @property
    def name(self) -> str:
        return self.signature.split("(")[0]


@dataclass(frozen=True)
class Passed:
    """A passing answer; a notebook shows it as one line."""

    key: str
    name: str
    library: str
    n_cases: int

    def __repr__(self) -> str:
        if self.key.startswith("lab."):
            return f"✓ {self.key}: {self.name} is {self.library}"
        inputs = "one input" if self.n_cases == 1 else f"{self.n_cases} inputs"
        return f"✓ exercise {self.key}: {self.name} gives what {self.library} gives on {inputs}"


# --- the inputs of each check --------------------------------------------------------------------
def _cases(kit: Callable, inputs: Iterable[tuple[str, tuple]]) -> list[Case]:
    """One case per (label, args) input, its expected answer ``kit(*args)``."""
    return [Case(label, args, kit(*args)) for label, args in inputs]


def _sympy_case(expected: sp.Expr) -> Callable[[], list[Case]]:
    return lambda: [Case("no arguments", (), expected)]


# the Qwen2.5-0.5B config.json of notebook 00 §5, and the same with other attention shapes
_QWEN_CONFIG = {"model_type": "qwen2", "num_hidden_layers": 24, "hidden_size": 896,
                "intermediate_size": 4864, "num_attention_heads": 14, "num_key_value_heads": 2,
                "vocab_size": 151936, "max_position_embeddings": 32768,
                "tie_word_embeddings": True, "hidden_act": "silu"}  # fmt: skip
_KV_SHAPES = ({}, {"num_key_value_heads": 14}, {"num_key_value_heads": 7},
              {"num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336,
               "num_attention_heads": 32, "num_key_value_heads": 8})  # fmt: skip


def _kv_cases() -> list[Case]:
    label = "the Qwen2.5-0.5B config"
    inputs = [(label + (f" with {c}" if c else ""), ({**_QWEN_CONFIG, **c},)) for c in _KV_SHAPES]
    return _cases(lambda config: LLM.from_hf_config(config).kv_bytes_per_token, inputs)


def _offline_energy_cases() -> list[Case]:
    runs = measurements.load(dense_only=True).query("scenario == 'offline'")
    rows = runs.sort_values(["gpu", "llm", "rep"]).groupby("gpu").head(1)
    inputs = [
        (f"{r.llm} on the {r.gpu}: power_w={r.power_w}, itl_s={r.itl_s}", (r.power_w, r.itl_s))
        for r in rows.itertuples()
    ]
    arrays = (rows["power_w"].to_numpy(), rows["itl_s"].to_numpy())
    inputs.append(("numpy arrays, one run per GPU", arrays))
    return _cases(accounting.offline_energy_per_token_j, inputs)


def _experts_cases() -> list[Case]:
    def kit(e: int, k: int, b: int) -> float:
        at = {symbolic_physical.E: e, symbolic_physical.k: k, symbolic.B: b}
        return float(symbolic_physical.experts_touched(symbolic.B).subs(at))

    grid = [(8, 2, 4), (8, 2, 1), (8, 8, 3), (64, 8, 16), (128, 8, 1), (256, 8, 64)]
    return _cases(kit, ((f"E={e}, k={k}, B={b}", (e, k, b)) for e, k, b in grid))


def _weight_bits_cases() -> list[Case]:
    tokens = (symbolic.B, symbolic.B * symbolic.T_in)
    return _cases(symbolic_physical.weight_bits_read, ((f"tokens = {t}", (t,)) for t in tokens))


# dense models without sliding windows, in 16 bits: the whole traffic model is the arithmetic
# of the exercise (notebook 02 §1)
_TRAFFIC_LLMS = ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct",
                 "Qwen/Qwen2.5-7B-Instruct")  # fmt: skip
_WORKLOADS = ((500, 500, 64), (500, 300, 1), (2000, 100, 8))


def _traffic(phase: str, column: str) -> Callable[[], list[Case]]:
    decode = phase == "decode"

    def cases() -> list[Case]:
        out = []
        for name, (t_in, t_out, batch) in itertools.product(_TRAFFIC_LLMS, _WORKLOADS):
            table = bytes_table(llm(name), t_in, t_out, batch).set_index(["phase", "component"])
            args = (llm(name), t_in, t_out, batch) if decode else (llm(name), t_in, batch)
            label = f"wl.llm({name!r}), t_in={t_in}" + (f", t_out={t_out}" if decode else "")
            out.append(Case(f"{label}, batch={batch}", args, table.loc[phase, column].to_numpy()))
        return out

    return cases


_FEATURE_GPUS = ("H100 NVL", "A100 SXM4 40GB", "L4", "T4", "B200")


def _latency_cases(field: str, kit: Callable) -> Callable[[], list[Case]]:
    def cases() -> list[Case]:
        values = {name: getattr(gpu(name), field) for name in _FEATURE_GPUS}
        grid = itertools.product((8.03, 70.6), values.items())
        inputs = [(f"params_b={p}, {field}={v} ({name})", (p, v)) for p, (name, v) in grid]
        array = np.array(list(values.values()), dtype=float)
        sizes = np.linspace(0.5, 70.0, len(array))
        return _cases(kit, [*inputs, ("numpy arrays, one value per GPU", (sizes, array))])

    return cases


def _mdape_cases() -> list[Case]:
    rng = np.random.default_rng(SEED)
    inputs = []
    for n in (5, 6, 101):
        truth = rng.uniform(50, 700, n)
        inputs.append((f"{n} runs (numpy arrays)", (truth, truth * rng.lognormal(0.0, 0.2, n))))
    series = (pd.Series([100.0, 200.0, 400.0]), pd.Series([110.0, 150.0, 400.0]))
    inputs.append(("pandas Series [100, 200, 400] vs [110, 150, 400]", series))
    inputs.append(("lists [10, 20] vs [5, 30]", ([10.0, 20.0], [5.0, 30.0])))
    return _cases(metrics.mdape_pct, inputs)


def _predictions(seed: int, n_llms: int, n_gpus: int, repeats: int) -> pd.DataFrame:
    """Out-of-fold predictions in the shape of notebook 04's ``library``: llm, gpu, scenario,
    y_true, y_pred (one row per run)."""
    rng = np.random.default_rng(seed)
    rows = [(f"llm{i}", f"gpu{g}", s) for i in range(n_llms) for g in range(n_gpus)
            for s in ("offline", "server_low") for _ in range(repeats)]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["llm", "gpu", "scenario"])
    frame["y_true"] = rng.uniform(0.01, 0.1, len(frame))
    frame["y_pred"] = frame["y_true"] * rng.lognormal(0.0, 0.5, len(frame))
    return frame


def _tau_cases() -> list[Case]:
    shapes = ((SEED, 3, 4, 2), (SEED + 1, 5, 6, 3), (SEED + 2, 2, 3, 1))
    inputs = [
        (f"{n} LLMs × {g} GPUs × 2 scenarios, {r} run(s) each", (_predictions(s, n, g, r),))
        for s, n, g, r in shapes
    ]
    lonely = _predictions(SEED + 3, 3, 3, 2)
    lonely = lonely[~((lonely["llm"] == "llm0") & (lonely["gpu"] != "gpu0"))]
    inputs.append(("one LLM measured on a single GPU (its groups rank nothing)", (lonely,)))
    return _cases(wmetrics.gpu_tau, inputs)


def _test_folds(frame: pd.DataFrame) -> np.ndarray:
    """The kit's answer to 04.3: the cross-validation fold that tests each run of ``frame``."""
    fold = np.full(len(frame), -1)
    for k, (_, mask) in enumerate(held_out_masks(frame, "cv")):
        fold[mask] = k
    return fold


def _fold_cases() -> list[Case]:
    inputs = []
    for seed, n_llms, n_gpus in ((SEED, 6, 4), (SEED + 1, 9, 5)):
        pred = _predictions(seed, n_llms, n_gpus, 2).sample(frac=1.0, random_state=seed)
        frame = pred[["llm", "gpu", "scenario"]].reset_index(drop=True)
        inputs.append((f"{len(frame)} runs of {n_llms} LLMs × {n_gpus} GPUs, shuffled", (frame,)))
    return _cases(_test_folds, inputs)


def _plans(seed: int, sla_ms: float) -> pd.DataFrame:
    """Plans in the shape of notebook 05's ``plans``: gpu, itl_ms, itl_ms_hi, fits, meets_sla."""
    rng = np.random.default_rng(seed)
    itl = np.concatenate([[sla_ms, sla_ms * 0.7, sla_ms * 1.2], rng.uniform(0.3, 1.5, 9) * sla_ms])
    hi = itl * np.concatenate([[1.0, sla_ms / (sla_ms * 0.7), 1.3], rng.uniform(1.0, 1.6, 9)])
    return pd.DataFrame({"gpu": [f"gpu{i}" for i in range(len(itl))], "itl_ms": itl,
                         "itl_ms_hi": hi, "fits": True, "meets_sla": itl <= sla_ms})  # fmt: skip


def _verdict_cases() -> list[Case]:
    plans = [(_plans(seed, sla), sla) for seed, sla in ((SEED, 50.0), (SEED + 1, 20.0))]
    inputs = [(f"{len(p)} plans at an SLA of {sla:g} ms", (p, sla)) for p, sla in plans]
    return _cases(lambda p, sla: (sla_verdicts(p, sla) == MEETS).to_numpy(), inputs)


def _server_energy_cases() -> list[Case]:
    def kit(p: Any, rate: Any, t_out: int) -> Any:
        return accounting.server_energy_per_request_j(p, rate) / t_out * 1000

    grid = [(300.0, 0.1, 300), (650.0, 2.0, 500), (72.0, 0.05, 100)]
    inputs = [(f"power_w={p}, rate_qps={r}, t_out={t}", (p, r, t)) for p, r, t in grid]
    arrays = (np.array([300.0, 650.0]), np.array([0.1, 2.0]), 300)
    return _cases(kit, [*inputs, ("numpy arrays of power and rate, t_out=300", arrays)])


def _quantile_cases() -> list[Case]:
    rng = np.random.default_rng(SEED)
    inputs = []
    for n, level in ((10, 0.8), (57, 0.5), (200, 0.9)):
        scores, groups = rng.exponential(0.2, n), rng.integers(0, 4, n)
        weights = 1.0 / np.bincount(groups)[groups]
        inputs.append((f"{n} scores in 4 GPUs, level {level}", (scores, weights, level)))
    ties = (np.array([0.1, 0.2, 0.2, 0.4]), np.array([1.0, 1.0, 1.0, 1.0]), 0.5)
    inputs.append(("ties: scores [0.1, 0.2, 0.2, 0.4], equal weights, level 0.5", ties))
    return _cases(conformal.weighted_quantile, inputs)


def _group_quantile_cases() -> list[Case]:
    rng = np.random.default_rng(SEED)
    inputs = []
    for n, spread, level in ((40, 0.2, 0.8), (120, 1.0, 0.8), (120, 0.2, 0.95)):
        groups = np.array([f"gpu{g}" for g in rng.integers(0, 5, n)])
        scale = np.where(groups == "gpu0", spread * 5, 0.1)  # one GPU the model misjudges
        label = f"{n} scores in 5 GPUs (one misjudged, spread {spread}), level {level}"
        inputs.append((label, (rng.exponential(scale), groups, level)))
    return _cases(conformal.group_quantile, inputs)


_SUMMATION = "sum over the steps with sp.summation(term, (symbolic.j, 0, symbolic.T_out - 1))"
EXERCISES: dict[str, Exercise] = {e.key: e for e in (
    Exercise("00.1", "my_kv_bytes_per_token(config)", "wl.LLM.from_hf_config(config).kv_bytes_per_token",
             "the KV-cache bytes one token takes, from a config.json dictionary, at 2 bytes per value",
             "every layer caches a key and a value vector of num_key_value_heads × head_dim values, "
             "head_dim = hidden_size // num_attention_heads; times num_hidden_layers, times 2 bytes",
             _kv_cases),
    Exercise("00.2", "my_offline_energy_per_token_j(power_w, itl_s)",
             "selection.accounting.offline_energy_per_token_j",
             "the energy of one generated token offline: the mean power times the inter-token latency",
             "joules are watts times seconds; ITL is the seconds per generated token",
             _offline_energy_cases),
    Exercise("01.1", "my_decode_flops()", "symbolic.flops_decode",
             "the FLOPs of a request's decode steps as one sympy expression",
             f"step j costs K·N + 4·n_ℓ·d·(T_in + j) FLOPs; {_SUMMATION}",
             _sympy_case(symbolic.flops_decode), "sympy"),
    Exercise("01.2", "my_prefill_flops()", "symbolic.flops_prefill",
             "the FLOPs of a request's prefill as one sympy expression, its attention sum kept to "
             "the leading T_in² term as the paper does",
             "the weights cost K·N per prompt token; prompt position i attends to i keys at 4·d "
             "FLOPs in each of the n_ℓ layers: symbolic.n_l * sp.summation(4 * symbolic.d * symbolic.i, (symbolic.i, 1, "
             "symbolic.T_in)); the paper keeps its T_in² term, sp.LT(sp.expand(that sum), symbolic.T_in)",
             _sympy_case(symbolic.flops_prefill), "sympy"),
    Exercise("01.3", "my_attention_read_bits()", "symbolic.bits_attn_read",
             "the bits attention reads from the KV cache over a request's decode steps",
             "step j reads a key and a value vector (d values of b_kv bits each) per layer for each "
             f"of the T_in + j tokens before it, amplified by symbolic.s_attn; {_SUMMATION}",
             _sympy_case(symbolic.bits_attn_read), "sympy"),
    Exercise("01.4", "my_energy_request()", "symbolic.energy_request",
             "the energy of one request: α times all FLOPs plus e_HBM·η times all bits",
             "FLOPs: symbolic.flops_prefill + symbolic.flops_decode; bits: symbolic.bits_params + symbolic.bits_kv_write + "
             "symbolic.bits_attn_read; the compute term is symbolic.alpha times the FLOPs, the memory term "
             "symbolic.e_mem * symbolic.eta times the bits",
             _sympy_case(symbolic.energy_request), "sympy"),
    Exercise("01b.1", "my_experts_touched(E, k, B)", "symbolic_physical.experts_touched",
             "the expected number of distinct experts (of E) that B tokens routed to k each read",
             "an expert escapes all B tokens with probability (1 − k/E)^B; the expected count is E "
             "times the chance of being read", _experts_cases),
    Exercise("01b.2", "my_weight_bits_read(tokens)", "symbolic_physical.weight_bits_read",
             "the bits one pass over `tokens` tokens reads from the weights",
             "b_w bits for each always-read weight (symbolic_physical.N_all) and for the d values each token "
             "gathers from the input table; b_e bits for each weight of the touched experts "
             "(symbolic_physical.L_moe layers × symbolic_physical.N_exp weights × symbolic_physical.experts_touched(tokens))",
             _weight_bits_cases, "sympy"),
    Exercise("02.1", "my_decode_bytes_per_token(llm, t_in, t_out, batch)", "energy.traffic.bytes_table",
             "the decode bytes per generated token: [weights, KV writes, attention reads]",
             "the streamed weights (llm.params_always_b, in billions, 2 bytes each) are divided "
             "by the batch, the gathered table row (llm.hidden_size values) is not; a token writes "
             "llm.n_layers × llm.kv_width values and reads back T_in + (T_out − 1)/2 tokens' worth "
             "on average", _traffic("decode", "bytes_per_output_token")),
    Exercise("02.2", "my_prefill_bytes_per_request(llm, t_in, batch)", "energy.traffic.bytes_table",
             "the prefill bytes of one request: [weights, KV writes, attention reads]",
             "one pass reads the streamed weights once for the whole batch (2 bytes per "
             "parameter of llm.params_always_b, divided by the batch) and gathers one table row "
             "(llm.hidden_size values) per prompt token; the prompt's keys and values are written "
             "once (llm.n_layers × llm.kv_width values per token); flash attention keeps them on "
             "chip, so attention reads nothing from memory", _traffic("prefill", "bytes_per_request")),
    Exercise("03.1", "my_bandwidth_latency_s(params_b, bandwidth_gbs)",
             "wattgpu.features.bandwidth_latency_s",
             "the seconds to read N billion FP16 parameters once at BW GB/s",
             "2 bytes per parameter; both N and BW are in billions, so the 1e9 cancel",
             _latency_cases("bandwidth_gbs", features.bandwidth_latency_s)),
    Exercise("03.2", "my_compute_latency_s(params_b, fp16_tflops)",
             "wattgpu.features.compute_latency_s",
             "the seconds for one token's 2·N FLOPs at the GPU's peak dense FP16 rate",
             "N is in billions of parameters (1e9), the rate in TFLOP/s (1e12)",
             _latency_cases("fp16_tflops", features.compute_latency_s)),
    Exercise("04.1", "my_mdape(y_true, y_pred)", "metrics.mdape_pct",
             "the median of |predicted − measured| / measured, in %",
             "the median, not the mean; divide by the measured value; times 100",
             _mdape_cases),
    Exercise("04.2", "my_gpu_tau(pred)", "wattgpu.metrics.gpu_tau",
             "the mean over (LLM, scenario) groups of Kendall's τ between the GPUs' measured and "
             "predicted order",
             "average the runs of each (llm, scenario, gpu) first; skip groups with fewer than two "
             "GPUs; scipy.stats.kendalltau(measured, predicted)[0]; the mean of the group τs",
             _tau_cases),
    Exercise("04.3", "my_cv_test_fold(frame)", "wattgpu.evaluation.held_out_masks(frame, 'cv')",
             "for each run of `frame`, the fold of GroupKFold(n_splits=5) that tests it",
             "groups = frame['llm'] + '|' + frame['gpu']; enumerate "
             "GroupKFold(n_splits=5).split(frame, groups=groups) and write k at the test rows",
             _fold_cases, "exact"),
    Exercise("05.1", "my_meets_at_upper_bound(plans, itl_sla_ms)", "selection.verdict.sla_verdicts",
             "one boolean per plan: the upper end of its ITL interval is within the SLA",
             "compare the column itl_ms_hi (not itl_ms) with the SLA; a plan exactly at it meets it "
             "(≤); return a numpy array", _verdict_cases, "exact"),
    Exercise("05.2", "my_server_energy_per_1k_tokens_j(power_w, rate_qps, t_out)",
             "selection.accounting.server_energy_per_request_j / t_out × 1000",
             "the energy per 1,000 generated tokens of a server at mean power P̄ serving λ req/s",
             "the GPU draws P̄ for the whole 1/λ seconds between requests: P̄ / λ joules per "
             "request, spread over its t_out tokens", _server_energy_cases),
    Exercise("06.1", "my_weighted_quantile(scores, weights, level)", "hybrid.fit.conformal.weighted_quantile",
             "the smallest score whose share of the total weight, counting every score up to it, "
             "reaches `level`",
             "sort the scores (np.argsort), accumulate their weights (np.cumsum), divide by the "
             "total and take the first score where the share reaches level", _quantile_cases),
    Exercise("06.2", "my_group_quantile(scores, groups, level)", "hybrid.fit.conformal.group_quantile",
             "the interval half-width: the quantile at `level` where every group weighs the same, "
             "raised to the largest of the groups' own 60 % quantiles",
             "weights 1 / (scores of the group) for the level; each group's floor is "
             "np.quantile(its scores, 0.6, method='higher'); return the larger of the two",
             _group_quantile_cases),
)}  # fmt: skip


# --- the check -----------------------------------------------------------------------------------
def exercise(key: str) -> Exercise:
    """The exercise ``key`` ("04.1"); an unknown key raises with the close ones."""
    if key not in EXERCISES:
        close = difflib.get_close_matches(key, EXERCISES, n=3, cutoff=0.5)
        raise InvalidInputError(f"no graded exercise {key!r}; close: {close or sorted(EXERCISES)}")
    return EXERCISES[key]


def _call(ex: Exercise, answer: Callable, case: Case) -> Any:
    try:
        return answer(*case.args)
    except NotImplementedError:  # the student edition's stub
        raise ExerciseError(
            f"Exercise {ex.key}: {ex.name} is not written yet. In the answer cell above, replace "
            f"`raise NotImplementedError` with the body of `def {ex.signature}`: {ex.task}. Run "
            f"that cell, then this one.\nHint: {ex.hint}."
        ) from None
    except Exception as err:  # the student's code failed: say where, keep the cause
        raise ExerciseError(
            f"Exercise {ex.key}: {ex.name} raised {type(err).__name__}: {err}\n"
            f"Input: {case.label}.\nThe exercise asks for `def {ex.signature}`: {ex.task}.\n"
            f"Hint: {ex.hint}."
        ) from err


def _show(value: Any) -> str:
    text = np.array2string(np.asarray(value), precision=6, threshold=12) if np.ndim(value) else None
    return text if text is not None else repr(value)


def _same_numbers(expected: Any, got: Any, exact: bool) -> bool:
    try:
        e, g = np.asarray(expected), np.asarray(got)
        if exact or e.shape != g.shape:
            return e.shape == g.shape and bool(np.array_equal(e, g))
        return bool(
            np.allclose(g.astype(float), e.astype(float), rtol=RTOL, atol=0, equal_nan=True)
        )
    except (TypeError, ValueError):
        return False


def _sympy_problem(ex: Exercise, case: Case, got: Any) -> str | None:
    """None if ``got`` equals the expected expression; else what differs, at :data:`_POINT`."""
    if not isinstance(got, sp.Expr):
        return (f"{ex.name} returned {type(got).__name__} {got!r}, not a sympy expression: build "
                "it from the symbols of S (and SP)")  # fmt: skip
    difference = sp.simplify(sp.expand(got - case.expected))
    if difference == 0:
        return None
    at = {s: v for s, v in _POINT.items() if s in case.expected.free_symbols | got.free_symbols}
    unknown = sorted(map(str, got.free_symbols - case.expected.free_symbols))
    extra = f" It uses symbols the kit's does not: {unknown}." if unknown else ""
    return (f"yours − kit's = {sp.factor(difference)}.{extra}\nAt {at}: expected "
            f"{float(case.expected.subs(at)):.6g}, got {float(got.subs(at)) if not unknown else '?'}")  # fmt: skip


def check(key: str, answer: Callable) -> Passed:
    """Run the graded exercise ``key`` on ``answer`` (the student's function): :class:`Passed`,
    or :class:`ExerciseError` saying which input, expected, got, and a hint."""
    ex = exercise(key)
    if not callable(answer):
        raise ExerciseError(
            f"Exercise {ex.key}: check() wants the function itself, got {type(answer).__name__} "
            f"{answer!r}. Write `def {ex.signature}:` in the answer cell and pass {ex.name}."
        )
    cases = ex.cases()
    for case in cases:
        got = _call(ex, answer, case)
        if ex.kind == "sympy":
            problem = _sympy_problem(ex, case, got)
        else:
            same = _same_numbers(case.expected, got, exact=ex.kind == "exact")
            problem = None if same else f"expected {_show(case.expected)}, got {_show(got)}"
        if problem:
            raise ExerciseError(
                f"Exercise {ex.key}: {ex.name} differs from the kit's {ex.library}.\n"
                f"Input: {case.label}.\n{problem}\nHint: {ex.hint}."
            )
    return Passed(ex.key, ex.name, ex.library, len(cases))


# --- the dashboard lab sheet (notebooks/dashboard_lab.md): a plan read off the dashboard ---------
@dataclass(frozen=True)
class PlanQuestion:
    """A question the dashboard answers: the cheapest plan that meets an SLA at a rate."""

    key: str
    llm: str
    rate_qps: float
    itl_sla_ms: float


PLAN_QUESTIONS = {"lab.1": PlanQuestion("lab.1", "meta-llama/Llama-3.1-8B-Instruct", 2.0, 50.0)}


def dashboard_ranking(q: PlanQuestion) -> pd.DataFrame:
    """The dashboard's table for the question, as its controls would hold it (a custom rate, every
    default GPU, "best" GPUs per replica, the default tokens): :func:`explorer.explorer_ranking`."""
    controls = explorer.ExplorerControls(
        llm=q.llm, load="custom rate", rate_qps=q.rate_qps, itl_sla_ms=q.itl_sla_ms
    )
    return explorer.explorer_ranking(controls)


def check_pick(key: str, gpu: str, num_gpus: int) -> Passed:
    """Check a plan read off the dashboard (GPU type, GPUs per replica) against the dashboard's
    own pick for the question ``key``: the first plan of its ranking that meets the SLA."""
    if key not in PLAN_QUESTIONS:
        raise InvalidInputError(f"no lab question {key!r}; there are {sorted(PLAN_QUESTIONS)}")
    q = PLAN_QUESTIONS[key]
    table = dashboard_ranking(q)
    pick = table[table["meets_sla"]].iloc[0]
    if gpu == pick["gpu"] and int(num_gpus) == int(pick["num_gpus"]):
        return Passed(key, f"{gpu} ×{int(num_gpus)}", "the dashboard's pick", 1)
    where = (f"the question: {q.llm} at {q.rate_qps:g} req/s under an ITL SLA of "
             f"{q.itl_sla_ms:g} ms, 'best' GPUs per replica")  # fmt: skip
    if gpu not in set(table["gpu"]):
        close = difflib.get_close_matches(gpu, table["gpu"].tolist(), n=3, cutoff=0.4)
        raise ExerciseError(f"Lab {key}: {gpu!r} is not a GPU of the dashboard's table for "
                            f"{where}; close: {close}.")  # fmt: skip
    row = table[table["gpu"] == gpu].iloc[0]
    if int(num_gpus) != int(row["num_gpus"]):
        raise ExerciseError(f"Lab {key}: for {gpu} the dashboard's least-energy count is not "
                            f"{int(num_gpus)} GPUs per replica; read the plan column of {where}.")  # fmt: skip
    less = table["energy_per_1k_tokens_j"] < row["energy_per_1k_tokens_j"]
    cheaper = int((table["meets_sla"] & less).sum())
    raise ExerciseError(
        f"Lab {key}: {gpu} ×{int(num_gpus)} ({row['verdict']} the SLA) is not the pick: {cheaper} plan(s) "
        f"that meet the SLA use less energy per 1,000 tokens ({where}).\nHint: a plan that misses the "
        "SLA never wins; among those that meet it, the least energy per 1,000 tokens does."
    )
