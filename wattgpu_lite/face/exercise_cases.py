"""The inputs of each graded exercise's check, with the kit's answer to each (:class:`Case`).

:data:`wattgpu_lite.face.exercises.EXERCISES` names, for each exercise, one of the builders here;
a builder returns the same cases on every call (its random inputs are drawn from :data:`SEED`).
"""

from __future__ import annotations

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
from wattgpu_lite.hybrid.fit import conformal
from wattgpu_lite.runs import measurements
from wattgpu_lite.selection import accounting
from wattgpu_lite.selection.verdict import MEETS, sla_verdicts
from wattgpu_lite.specs.catalog import gpu, llm
from wattgpu_lite.specs.llm import LLM
from wattgpu_lite.wattgpu import metrics as wattgpu_metrics
from wattgpu_lite.wattgpu.evaluation import held_out_masks

SEED = 0  # every random input of a check is drawn from this seed


@dataclass(frozen=True)
class Case:
    """One input of a check: the arguments, a short description, the kit's answer."""

    label: str
    args: tuple
    expected: Any


def _cases(kit: Callable, inputs: Iterable[tuple[str, tuple]]) -> list[Case]:
    """One case per (label, args) input, its expected answer ``kit(*args)``."""
    return [Case(label, args, kit(*args)) for label, args in inputs]


def sympy_case(expected: sp.Expr) -> Callable[[], list[Case]]:
    return lambda: [Case("no arguments", (), expected)]


# the Qwen2.5-0.5B config.json of notebook 00 §5, and the same with other attention shapes
_QWEN_CONFIG = {"model_type": "qwen2", "num_hidden_layers": 24, "hidden_size": 896,
                "intermediate_size": 4864, "num_attention_heads": 14, "num_key_value_heads": 2,
                "vocab_size": 151936, "max_position_embeddings": 32768,
                "tie_word_embeddings": True, "hidden_act": "silu"}  # fmt: skip
_KV_SHAPES = ({}, {"num_key_value_heads": 14}, {"num_key_value_heads": 7},
              {"num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336,
               "num_attention_heads": 32, "num_key_value_heads": 8})  # fmt: skip


def kv_cases() -> list[Case]:
    label = "the Qwen2.5-0.5B config"
    inputs = [(label + (f" with {c}" if c else ""), ({**_QWEN_CONFIG, **c},)) for c in _KV_SHAPES]
    return _cases(lambda config: LLM.from_hf_config(config).kv_bytes_per_token, inputs)


def offline_energy_cases() -> list[Case]:
    runs = measurements.load(dense_only=True).query("scenario == 'offline'")
    rows = runs.sort_values(["gpu", "llm", "rep"]).groupby("gpu").head(1)
    inputs = [
        (f"{r.llm} on the {r.gpu}: power_w={r.power_w}, itl_s={r.itl_s}", (r.power_w, r.itl_s))
        for r in rows.itertuples()
    ]
    arrays = (rows["power_w"].to_numpy(), rows["itl_s"].to_numpy())
    inputs.append(("numpy arrays, one run per GPU", arrays))
    return _cases(accounting.offline_energy_per_token_j, inputs)


def experts_cases() -> list[Case]:
    def kit(e: int, k: int, b: int) -> float:
        at = {symbolic_physical.E: e, symbolic_physical.k: k, symbolic.B: b}
        return float(symbolic_physical.experts_touched(symbolic.B).subs(at))

    grid = [(8, 2, 4), (8, 2, 1), (8, 8, 3), (64, 8, 16), (128, 8, 1), (256, 8, 64)]
    return _cases(kit, ((f"E={e}, k={k}, B={b}", (e, k, b)) for e, k, b in grid))


def weight_bits_cases() -> list[Case]:
    tokens = (symbolic.B, symbolic.B * symbolic.T_in)
    return _cases(symbolic_physical.weight_bits_read, ((f"tokens = {t}", (t,)) for t in tokens))


# dense models without sliding windows, in 16 bits: the whole traffic model is the arithmetic
# of the exercise (notebook 02 §1)
_TRAFFIC_LLMS = (
    "meta-llama/Llama-3.1-8B-Instruct",
    "meta-llama/Llama-3.1-70B-Instruct",
    "Qwen/Qwen2.5-7B-Instruct",
)
_WORKLOADS = ((500, 500, 64), (500, 300, 1), (2000, 100, 8))


def traffic(phase: str, column: str) -> Callable[[], list[Case]]:
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


def latency_cases(field: str, kit: Callable) -> Callable[[], list[Case]]:
    def cases() -> list[Case]:
        values = {name: getattr(gpu(name), field) for name in _FEATURE_GPUS}
        grid = itertools.product((8.03, 70.6), values.items())
        inputs = [(f"params_b={p}, {field}={v} ({name})", (p, v)) for p, (name, v) in grid]
        array = np.array(list(values.values()), dtype=float)
        sizes = np.linspace(0.5, 70.0, len(array))
        return _cases(kit, [*inputs, ("numpy arrays, one value per GPU", (sizes, array))])

    return cases


def mdape_cases() -> list[Case]:
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
    runs = itertools.product(
        range(n_llms), range(n_gpus), ("offline", "server_low"), range(repeats)
    )
    rows = [(f"llm{i}", f"gpu{g}", s) for i, g, s, _ in runs]
    frame = pd.DataFrame(rows, columns=["llm", "gpu", "scenario"])
    frame["y_true"] = rng.uniform(0.01, 0.1, len(frame))
    frame["y_pred"] = frame["y_true"] * rng.lognormal(0.0, 0.5, len(frame))
    return frame


def tau_cases() -> list[Case]:
    shapes = ((SEED, 3, 4, 2), (SEED + 1, 5, 6, 3), (SEED + 2, 2, 3, 1))
    inputs = [
        (f"{n} LLMs × {g} GPUs × 2 scenarios, {r} run(s) each", (_predictions(s, n, g, r),))
        for s, n, g, r in shapes
    ]
    lonely = _predictions(SEED + 3, 3, 3, 2)
    lonely = lonely[~((lonely["llm"] == "llm0") & (lonely["gpu"] != "gpu0"))]
    inputs.append(("one LLM measured on a single GPU (its groups rank nothing)", (lonely,)))
    return _cases(wattgpu_metrics.gpu_tau, inputs)


def _test_folds(frame: pd.DataFrame) -> np.ndarray:
    """The kit's answer to 04.3: the cross-validation fold that tests each run of ``frame``."""
    fold = np.full(len(frame), -1)
    for k, (_, mask) in enumerate(held_out_masks(frame, "cv")):
        fold[mask] = k
    return fold


def fold_cases() -> list[Case]:
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
    plans = pd.DataFrame({"gpu": [f"gpu{i}" for i in range(len(itl))], "itl_ms": itl})
    return plans.assign(itl_ms_hi=hi, fits=True, meets_sla=itl <= sla_ms)


def verdict_cases() -> list[Case]:
    plans = [(_plans(seed, sla), sla) for seed, sla in ((SEED, 50.0), (SEED + 1, 20.0))]
    inputs = [(f"{len(p)} plans at an SLA of {sla:g} ms", (p, sla)) for p, sla in plans]
    return _cases(lambda p, sla: (sla_verdicts(p, sla) == MEETS).to_numpy(), inputs)


def server_energy_cases() -> list[Case]:
    def kit(p: Any, rate: Any, t_out: int) -> Any:
        return accounting.server_energy_per_request_j(p, rate) / t_out * 1000

    grid = [(300.0, 0.1, 300), (650.0, 2.0, 500), (72.0, 0.05, 100)]
    inputs = [(f"power_w={p}, rate_qps={r}, t_out={t}", (p, r, t)) for p, r, t in grid]
    arrays = (np.array([300.0, 650.0]), np.array([0.1, 2.0]), 300)
    return _cases(kit, [*inputs, ("numpy arrays of power and rate, t_out=300", arrays)])


def quantile_cases() -> list[Case]:
    rng = np.random.default_rng(SEED)
    inputs = []
    for n, level in ((10, 0.8), (57, 0.5), (200, 0.9)):
        scores, groups = rng.exponential(0.2, n), rng.integers(0, 4, n)
        weights = 1.0 / np.bincount(groups)[groups]
        inputs.append((f"{n} scores in 4 GPUs, level {level}", (scores, weights, level)))
    ties = (np.array([0.1, 0.2, 0.2, 0.4]), np.array([1.0, 1.0, 1.0, 1.0]), 0.5)
    inputs.append(("ties: scores [0.1, 0.2, 0.2, 0.4], equal weights, level 0.5", ties))
    return _cases(conformal.weighted_quantile, inputs)


def group_quantile_cases() -> list[Case]:
    rng = np.random.default_rng(SEED)
    inputs = []
    for n, spread, level in ((40, 0.2, 0.8), (120, 1.0, 0.8), (120, 0.2, 0.95)):
        groups = np.array([f"gpu{g}" for g in rng.integers(0, 5, n)])
        scale = np.where(groups == "gpu0", spread * 5, 0.1)  # one GPU the model misjudges
        label = f"{n} scores in 5 GPUs (one misjudged, spread {spread}), level {level}"
        inputs.append((label, (rng.exponential(scale), groups, level)))
    return _cases(conformal.group_quantile, inputs)
