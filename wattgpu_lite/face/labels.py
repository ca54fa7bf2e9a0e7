"""Readable names for raw columns, with units: ``mdape_pct`` -> "MdAPE (%)", ``power_w`` ->
"power (W)". For legends, axis labels and displayed tables (``readable_columns(table)``); the data
keeps its raw, unit-suffixed names. Part of the figure style (:mod:`wattgpu_lite.face.style`).
Also an interval's basis in words (:data:`BASIS`) and a plan's "interval from" cell
(:func:`interval_from`), which the rank tables and the explanation figures show.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from wattgpu_lite.hybrid.predict.chain import ITL_FROM_OTHERS

UNITS = {
    "pct": "%",
    "w": "W",
    "kw": "kW",
    "s": "s",
    "ms": "ms",
    "us": "µs",
    "j": "J",
    "mj": "mJ",
    "wh": "Wh",
    "kwh": "kWh",
    "gbs": "GB/s",
    "gb": "GB",
    "tflops": "TFLOP/s",
    "mhz": "MHz",
    "qps": "req/s",
    "nm": "nm",
    "g": "g",
    "usd": "USD",
    "points": "points",
}
WORDS = {
    "mdape": "MdAPE",
    "itl": "ITL",
    "ttft": "TTFT",
    "tdp": "TDP",
    "gpu": "GPU",
    "llm": "LLM",
    "kv": "KV",
    "fp16": "FP16",
    "fp8": "FP8",
    "cv": "CV",
    "logo": "LOGO",
    "lolo": "LOLO",
    "sla": "SLA",
    "tau": "τ",
    "abs": "absolute",
    "over": "/",
    "xgb": "XGBoost",
    "co2": "CO₂",
    "kfold": "plain KFold",
    "ecologits": "EcoLogits",
}
LABELS = {
    "pearson_r": "Pearson r",
    "gpu_tau": "GPU-ranking τ",
    "llm_tau": "LLM-ranking τ",
    "n_runs": "runs",
    "n_heads": "attention heads",
    "n_kv_heads": "KV heads",
    "n_layers": "layers",
    "y_true": "measured",
    "y_pred": "predicted",
    "params_b": "parameters (billions)",
    "params_nominal_b": "published parameters (billions)",
    "log_params_nominal_b": "ln published parameters (billions)",
    "transistors_m": "transistors (millions)",
    "all": "ours, all GPUs",
    "paper_7gpu": "ours, paper's 7 GPUs",
    # choosing a GPU (notebook 05, the dashboard)
    "num_gpus": "GPUs per replica",
    "energy_per_1k_tokens_j": "energy per 1,000 tokens (J)",
    "kg_co2e_per_mtok": "kg CO₂e per million tokens",
    "cost_per_mtok": "electricity cost per million tokens",
    "runs_itl_ms": "ITL as the runs define it (ms)",
    "answered": "GPUs answered",  # of those both sources hold, e.g. "6 of 7" (study.agreement)
    "same_verdicts": "same SLA verdict",
    "meets_sla": "meets SLA",
    "verdict": "SLA verdict",
    "why_not": "why not",
    # the Watt Counts scenarios (panel titles, legends)
    "offline": "offline (1,000 prompts at once)",
    "server_low": "server, low load (0.017 req/s)",
    "server_high": "server, high load (0.33 req/s)",
    # energy model (notebooks 01, 02)
    "e_out_mj_ours": "ours: mJ per generated token",
    "e_out_mj_paper": "paper: mJ per generated token",
    "e_in_mj_ours": "ours: mJ per prompt token",
    "e_in_mj_paper": "paper: mJ per prompt token",
    "coverage80": "coverage of the 80 % interval",
    "coverage90": "coverage of the 90 % interval",
    "mdape_ci90_lo": "MdAPE, 90 % CI low (%)",
    "mdape_ci90_hi": "MdAPE, 90 % CI high (%)",
    # interval widths (high / low) and the external measurements (notebooks 06, A2)
    "width80_hi_lo": "80 % interval width (high / low)",
    "width_hi_lo": "80 % interval width (high / low)",
    "coverage80_unpaired": "coverage of the unpaired 80 % interval",
    "width80_unpaired_hi_lo": "unpaired 80 % interval width (high / low)",
    "throughput_tokens_per_s": "throughput (tokens/s)",
    "in_flight": "requests in flight",
    "mdape_backbone": "MdAPE, backbone (%)",
    "mdape_hybrid": "MdAPE, hybrid (%)",
    "width_backbone": "width, backbone (high / low)",
    "width_hybrid": "width, hybrid (high / low)",
    "coverage_kit": "coverage, kit's interval",
    "width_kit": "width, kit's (high / low)",
    "coverage_x": "coverage, from other sources",
    "width_x": "width, from other sources (high / low)",
}
# the energy estimators compared in notebook 01b (legend of ``measured_vs_estimated``): own names,
# as ``label("paper")`` stays "paper" (the paper's published numbers, notebook 04)
ESTIMATE_METHODS = {
    "physical": "physical mode (this kit)",
    "paper": "the paper's equations",
    "ecologits": "EcoLogits",
}
# a raw column name: lower-case words joined by underscores (``e_out_mj_ours``, ``server_high``),
# not part of a path or a model name (``meta-llama/my_model``)
RAW_NAME = re.compile(r"(?<![\w/.\-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/\-])")


def label(column: object) -> object:
    """A raw column name as a readable label with its unit: ``mdape_pct`` -> "MdAPE (%)",
    ``power_w`` -> "power (W)", ``paper_gpu_tau`` -> "paper GPU-ranking τ". Non-text passes."""
    if not isinstance(column, str) or " " in column:
        return column
    if column in LABELS:
        return LABELS[column]
    if column.startswith("paper_"):
        return f"paper {label(column[len('paper_') :])}"
    words = column.split("_")
    unit = UNITS.get(words[-1]) if len(words) > 1 else None
    text = " ".join(WORDS.get(w, w) for w in (words[:-1] if unit else words))
    return f"{text} ({unit})" if unit else text


def readable_columns(table):
    """The table with readable column (and index) names, for display only."""
    out = table.rename(columns=label)
    out.index = out.index.set_names([label(n) for n in out.index.names])
    return out


def raw_names(texts: Iterable[str]) -> list[str]:
    """The raw column names (``snake_case`` identifiers) left in figure ``texts``: a title,
    legend or axis label should read ``label(name)`` instead. Empty list: none."""
    return [m.group(0) for text in texts for m in RAW_NAME.finditer(str(text))]


DASH = "—"  # shown where a value does not exist (no rank, a plan that does not fit)
# the hybrid predictor's interval bases (intervals.BASES) in words
BASIS = {"cv": "learned, GPU and LLM seen", "new gpu": "learned, new GPU",
         "new llm": "learned, new LLM", "new gpu and llm": "learned, new GPU and LLM",
         "physics": "physics alone"}  # fmt: skip


def interval_from(basis: str, fits: bool, itl_from: str | None) -> str:
    """A plan's "interval from" cell: its basis (:data:`BASIS`), the ITL's source first where it
    is other harnesses' errors (a cross-source cell); "—" for a plan that does not fit."""
    if not fits:
        return DASH
    power = BASIS.get(basis, DASH)
    return f"ITL: {ITL_FROM_OTHERS}; power: {power}" if itl_from == ITL_FROM_OTHERS else power
