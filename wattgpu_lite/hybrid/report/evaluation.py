"""``wl.evaluate``: held-out errors of either model, the one function the CLI's ``evaluate`` calls.

    wl.evaluate("power", "logo")                    # WattGPU as published, refitted (a table)
    wl.evaluate(model="hybrid", strategy="lolo")    # the hybrid's nested protocol (shipped tables)

The WattGPU model is :func:`wattgpu_lite.wattgpu.evaluation.evaluate` (cross-validated here). The
hybrid's figures come from its nested protocol (data/hybrid/nested_<strategy>.csv, LOGO or LOLO):
:func:`hybrid_tables` gives the three tables (pooled with a GPU-bootstrap 90 % interval, per
held-out group, the paper's 7-GPU reading of power beside our 8); ``evaluate(model="hybrid")``
stacks them in one frame whose first column, ``table``, names each row's table. Strategy "loso"
is the backbone's calibration across harnesses, one published source held out at a time
(:mod:`~wattgpu_lite.hybrid.report.calibrated`: pooled, per source, per regime, and how many
cells meet issue 28's goals). It lives here, in the hybrid's report, because that is the one
layer that may read both models.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from wattgpu_lite.checks import check_flag
from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.report import calibrated, results
from wattgpu_lite.hybrid.report.calibrated import QUANTITY
from wattgpu_lite.jsonio import document_frame
from wattgpu_lite.wattgpu import evaluation as wattgpu_evaluation

MODELS = ("wattgpu", "hybrid")
#: the nested protocol holds out one GPU or one LLM; "loso" one published source (other harnesses)
HYBRID_STRATEGIES = ("logo", "lolo", "loso")
TARGETS = ("power", "itl")


def check_hybrid_strategy(strategy: str) -> str:
    """``strategy`` if the hybrid has it (LOGO, LOLO, LOSO), else InvalidInputError."""
    if strategy not in HYBRID_STRATEGIES:
        raise InvalidInputError(
            f"the hybrid is evaluated by strategy 'logo', 'lolo' (its nested protocol) or "
            f"'loso' (one published source held out), got {strategy!r}"
        )
    return strategy


def loso_tables(target: str | None = None) -> dict[str, pd.DataFrame]:
    """The backbone's leave-one-source-out tables (:mod:`~wattgpu_lite.hybrid.report.calibrated`,
    data/hybrid/calibrated_rows.csv): pooled, per source (beside the plain roofline and
    EcoLogits), per regime, per configuration (the runs' or not: where the shipped ITL intervals
    are built this way), and the goals met per source and per regime; ``target`` ("power" or
    "itl") keeps that quantity's rows only (None: ITL, power, throughput and J/token)."""
    rows = calibrated.shipped()
    if target is not None:
        rows = rows[rows["quantity"] == QUANTITY[_check_target(target)]]
    by_source, by_regime = calibrated.per_source(rows), calibrated.per_regime(rows)
    return {
        "pooled": calibrated.pooled(rows),
        "per_source": by_source,
        "per_regime": by_regime,
        "per_configuration": calibrated.per_configuration(rows),
        "goals_per_source": calibrated.goals(by_source),
        "goals_per_regime": calibrated.goals(by_regime),
    }


def hybrid_tables(strategy: str = "logo", target: str | None = None) -> dict[str, pd.DataFrame]:
    """The hybrid's three evaluation tables (:data:`TABLES`) from the shipped nested results of
    ``strategy``; ``target`` ("power" or "itl") keeps its rows only (None: both)."""
    if check_hybrid_strategy(strategy) == "loso":
        return loso_tables(target)
    res = results.shipped(strategy)
    if target is not None:
        res = res[res["target"] == _check_target(target)]
    return {
        "pooled": results.pooled(res),
        "per_group": results.per_group(res),
        "paper_reading": results.paper_reading(res),
    }


def stacked(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Tables as one frame, a first column ``table`` naming each row's table (missing cells NaN)."""
    parts = [t.assign(table=name)[["table", *t.columns]] for name, t in tables.items()]
    return pd.concat(parts, ignore_index=True)


def _check_target(target: str) -> str:
    if target not in TARGETS:
        raise InvalidInputError(f"target must be one of {TARGETS}, got {target!r}")
    return target


def evaluate(
    target: str | None = None,
    strategy: str = "logo",
    progress: bool | None = None,
    features: Sequence[str] | None = None,
    reading: str = "all",
    model: str = "wattgpu",
) -> pd.DataFrame:
    """Held-out errors of ``model`` beside the paper's.

    ``model="wattgpu"``: :func:`wattgpu_lite.wattgpu.evaluation.evaluate` of ``target`` (default
    "power"), ``strategy`` ("cv", "logo", "lolo" or "all"), ``features`` and ``reading``.
    ``model="hybrid"``: :func:`hybrid_tables` of ``strategy`` ("logo", "lolo" or "loso") stacked
    (:func:`stacked`), ``target`` None for both targets; ``features``, ``reading`` and
    ``progress`` (True or False; default: shown) are WattGPU's (a refit) and are refused when
    given with the hybrid.
    """
    if model not in MODELS:
        raise InvalidInputError(f"model must be one of {MODELS}, got {model!r}")
    if progress is not None:  # "no" was read as true
        check_flag("progress", progress, label="evaluate: progress")
    if model == "wattgpu" and strategy == "loso":
        raise InvalidInputError(
            "strategy 'loso' holds out one published source of another harness; only the "
            "hybrid's backbone is calibrated across harnesses: use model='hybrid' "
            "(CLI: --model hybrid --strategy loso)"
        )
    if model == "wattgpu":
        table = wattgpu_evaluation.evaluate(
            target or "power",
            strategy,
            progress=progress is not False,
            features=features,
            reading=reading,
        )
        return document_frame(
            table, "evaluate", model="wattgpu", target=target or "power", strategy=strategy
        )
    if features is not None or reading != "all" or progress is not None:
        raise InvalidInputError(
            "features=, reading= and progress= re-score WattGPU (model='wattgpu'); the "
            "hybrid's figures are its shipped nested results"
        )
    tables = hybrid_tables(strategy, target)
    columns = {name: list(t.columns) for name, t in tables.items()}
    return document_frame(
        stacked(tables),
        "evaluate",
        columns,
        model="hybrid",
        strategy=strategy,
        target=target or "all",
    )
