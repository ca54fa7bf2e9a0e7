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
from collections.abc import Callable

from wattgpu_lite.energy import symbolic
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.face import exercise_cases
from wattgpu_lite.face.grading import Exercise, ExerciseError, Passed, check_pick, grade  # noqa: F401
from wattgpu_lite.wattgpu import features

_SUMMATION = "sum over the steps with sp.summation(term, (symbolic.j, 0, symbolic.T_out - 1))"
EXERCISES: dict[str, Exercise] = {
    e.key: e
    for e in (
        Exercise(
            "00.1",
            "my_kv_bytes_per_token(config)",
            "wl.LLM.from_hf_config(config).kv_bytes_per_token",
            "the KV-cache bytes one token takes, from a config.json dictionary, at 2 bytes per "
            "value",
            hint="every layer caches a key and a value vector of num_key_value_heads × head_dim "
            "values, head_dim = hidden_size // num_attention_heads; times num_hidden_layers, "
            "times 2 bytes",
            cases=exercise_cases.kv_cases,
        ),
        Exercise(
            "00.2",
            "my_offline_energy_per_token_j(power_w, itl_s)",
            "selection.accounting.offline_energy_per_token_j",
            "the energy of one generated token offline: the mean power times the inter-token "
            "latency",
            hint="joules are watts times seconds; ITL is the seconds per generated token",
            cases=exercise_cases.offline_energy_cases,
        ),
        Exercise(
            "01.1",
            "my_decode_flops()",
            "symbolic.flops_decode",
            "the FLOPs of a request's decode steps as one sympy expression",
            hint=f"step j costs K·N + 4·n_ℓ·d·(T_in + j) FLOPs; {_SUMMATION}",
            cases=exercise_cases.sympy_case(symbolic.flops_decode),
            kind="sympy",
        ),
        Exercise(
            "01.2",
            "my_prefill_flops()",
            "symbolic.flops_prefill",
            "the FLOPs of a request's prefill as one sympy expression, its attention sum kept to "
            "the leading T_in² term as the paper does",
            hint="the weights cost K·N per prompt token; prompt position i attends to i keys at 4·d "
            "FLOPs in each of the n_ℓ layers: symbolic.n_l * sp.summation(4 * symbolic.d * "
            "symbolic.i, (symbolic.i, 1, symbolic.T_in)); the paper keeps its T_in² term, "
            "sp.LT(sp.expand(that sum), symbolic.T_in)",
            cases=exercise_cases.sympy_case(symbolic.flops_prefill),
            kind="sympy",
        ),
        Exercise(
            "01.3",
            "my_attention_read_bits()",
            "symbolic.bits_attn_read",
            "the bits attention reads from the KV cache over a request's decode steps",
            hint="step j reads a key and a value vector (d values of b_kv bits each) per layer for "
            f"each of the T_in + j tokens before it, amplified by symbolic.s_attn; {_SUMMATION}",
            cases=exercise_cases.sympy_case(symbolic.bits_attn_read),
            kind="sympy",
        ),
        Exercise(
            "01.4",
            "my_energy_request()",
            "symbolic.energy_request",
            "the energy of one request: α times all FLOPs plus e_HBM·η times all bits",
            hint="FLOPs: symbolic.flops_prefill + symbolic.flops_decode; bits: symbolic.bits_params + "
            "symbolic.bits_kv_write + symbolic.bits_attn_read; the compute term is "
            "symbolic.alpha times the FLOPs, the memory term symbolic.e_mem * symbolic.eta times "
            "the bits",
            cases=exercise_cases.sympy_case(symbolic.energy_request),
            kind="sympy",
        ),
        Exercise(
            "01b.1",
            "my_experts_touched(E, k, B)",
            "symbolic_physical.experts_touched",
            "the expected number of distinct experts (of E) that B tokens routed to k each read",
            hint="an expert escapes all B tokens with probability (1 − k/E)^B; the expected count is "
            "E times the chance of being read",
            cases=exercise_cases.experts_cases,
        ),
        Exercise(
            "01b.2",
            "my_weight_bits_read(tokens)",
            "symbolic_physical.weight_bits_read",
            "the bits one pass over `tokens` tokens reads from the weights",
            hint="b_w bits for each always-read weight (symbolic_physical.N_all) and for the d values "
            "each token gathers from the input table; b_e bits for each weight of the touched "
            "experts (symbolic_physical.L_moe layers × symbolic_physical.N_exp weights × "
            "symbolic_physical.experts_touched(tokens))",
            cases=exercise_cases.weight_bits_cases,
            kind="sympy",
        ),
        Exercise(
            "02.1",
            "my_decode_bytes_per_token(llm, t_in, t_out, batch)",
            "energy.traffic.bytes_table",
            "the decode bytes per generated token: [weights, KV writes, attention reads]",
            hint="the streamed weights (llm.params_always_b, in billions, 2 bytes each) are divided "
            "by the batch, the gathered table row (llm.hidden_size values) is not; a token "
            "writes llm.n_layers × llm.kv_width values and reads back T_in + (T_out − 1)/2 "
            "tokens' worth on average",
            cases=exercise_cases.traffic("decode", "bytes_per_output_token"),
        ),
        Exercise(
            "02.2",
            "my_prefill_bytes_per_request(llm, t_in, batch)",
            "energy.traffic.bytes_table",
            "the prefill bytes of one request: [weights, KV writes, attention reads]",
            hint="one pass reads the streamed weights once for the whole batch (2 bytes per parameter "
            "of llm.params_always_b, divided by the batch) and gathers one table row "
            "(llm.hidden_size values) per prompt token; the prompt's keys and values are written "
            "once (llm.n_layers × llm.kv_width values per token); flash attention keeps them on "
            "chip, so attention reads nothing from memory",
            cases=exercise_cases.traffic("prefill", "bytes_per_request"),
        ),
        Exercise(
            "03.1",
            "my_bandwidth_latency_s(params_b, bandwidth_gbs)",
            "wattgpu.features.bandwidth_latency_s",
            "the seconds to read N billion FP16 parameters once at BW GB/s",
            hint="2 bytes per parameter; both N and BW are in billions, so the 1e9 cancel",
            cases=exercise_cases.latency_cases("bandwidth_gbs", features.bandwidth_latency_s),
        ),
        Exercise(
            "03.2",
            "my_compute_latency_s(params_b, fp16_tflops)",
            "wattgpu.features.compute_latency_s",
            "the seconds for one token's 2·N FLOPs at the GPU's peak dense FP16 rate",
            hint="N is in billions of parameters (1e9), the rate in TFLOP/s (1e12)",
            cases=exercise_cases.latency_cases("fp16_tflops", features.compute_latency_s),
        ),
        Exercise(
            "04.1",
            "my_mdape(y_true, y_pred)",
            "metrics.mdape_pct",
            "the median of |predicted − measured| / measured, in %",
            hint="the median, not the mean; divide by the measured value; times 100",
            cases=exercise_cases.mdape_cases,
        ),
        Exercise(
            "04.2",
            "my_gpu_tau(pred)",
            "wattgpu.metrics.gpu_tau",
            "the mean over (LLM, scenario) groups of Kendall's τ between the GPUs' measured and "
            "predicted order",
            hint="average the runs of each (llm, scenario, gpu) first; skip groups with fewer than "
            "two GPUs; scipy.stats.kendalltau(measured, predicted)[0]; the mean of the group τs",
            cases=exercise_cases.tau_cases,
        ),
        Exercise(
            "04.3",
            "my_cv_test_fold(frame)",
            "wattgpu.evaluation.held_out_masks(frame, 'cv')",
            "for each run of `frame`, the fold of GroupKFold(n_splits=5) that tests it",
            hint="groups = frame['llm'] + '|' + frame['gpu']; enumerate "
            "GroupKFold(n_splits=5).split(frame, groups=groups) and write k at the test rows",
            cases=exercise_cases.fold_cases,
            kind="exact",
        ),
        Exercise(
            "05.1",
            "my_meets_at_upper_bound(plans, itl_sla_ms)",
            "selection.verdict.sla_verdicts",
            "one boolean per plan: the upper end of its ITL interval is within the SLA",
            hint="compare the column itl_ms_hi (not itl_ms) with the SLA; a plan exactly at it meets "
            "it (≤); return a numpy array",
            cases=exercise_cases.verdict_cases,
            kind="exact",
        ),
        Exercise(
            "05.2",
            "my_server_energy_per_1k_tokens_j(power_w, rate_qps, t_out)",
            "selection.accounting.server_energy_per_request_j / t_out × 1000",
            "the energy per 1,000 generated tokens of a server at mean power P̄ serving λ req/s",
            hint="the GPU draws P̄ for the whole 1/λ seconds between requests: P̄ / λ joules per "
            "request, spread over its t_out tokens",
            cases=exercise_cases.server_energy_cases,
        ),
        Exercise(
            "06.1",
            "my_weighted_quantile(scores, weights, level)",
            "hybrid.fit.conformal.weighted_quantile",
            "the smallest score whose share of the total weight, counting every score up to it, "
            "reaches `level`",
            hint="sort the scores (np.argsort), accumulate their weights (np.cumsum), divide by the "
            "total and take the first score where the share reaches level",
            cases=exercise_cases.quantile_cases,
        ),
        Exercise(
            "06.2",
            "my_group_quantile(scores, groups, level)",
            "hybrid.fit.conformal.group_quantile",
            "the interval half-width: the quantile at `level` where every group weighs the same, "
            "raised to the largest of the groups' own 60 % quantiles",
            hint="weights 1 / (scores of the group) for the level; each group's floor is "
            "np.quantile(its scores, 0.6, method='higher'); return the larger of the two",
            cases=exercise_cases.group_quantile_cases,
        ),
    )
}


def exercise(key: str) -> Exercise:
    """The exercise ``key`` ("04.1"); an unknown key raises with the close ones."""
    if not isinstance(key, str):
        got = f"got {key!r:.40} ({type(key).__name__}); write it in quotes as the check cell does"
        raise InvalidInputError(
            f"an exercise key is text like '04.1' (lesson 04, exercise 1), {got}"
        )
    if key not in EXERCISES:
        close = difflib.get_close_matches(key, EXERCISES, n=3, cutoff=0.5)
        raise InvalidInputError(f"no graded exercise {key!r}; close: {close or sorted(EXERCISES)}")
    return EXERCISES[key]


def check(key: str, answer: Callable) -> Passed:
    """Run the graded exercise ``key`` on ``answer`` (the student's function): :class:`Passed`,
    or :class:`ExerciseError` saying which input, expected, got, and a hint (:func:`grade`)."""
    return grade(exercise(key), answer)
