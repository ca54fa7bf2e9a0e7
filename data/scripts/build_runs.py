"""Build data/watt_counts_runs.csv from the shared per-run copy of the Watt Counts subset.

Run from the repository root (not run by the tests):

    .venv/bin/python data/scripts/build_runs.py [REFERENCE_DIR]

REFERENCE_DIR defaults to ../shared/reference and must hold wattcounts/watt_counts_runs.csv and
wattgpu/model_features.csv. The script prints the row counts and the new sha256, which must then be
copied into ``DATA_SHA256`` in wattgpu_lite/runs/table.py. See data/SOURCES.md.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pandas as pd

from wattgpu_lite.runs import schema as wc

OUT = Path(__file__).resolve().parents[1] / "watt_counts_runs.csv"
# reference column -> aggregate column (see wattgpu_lite.runs.schema.AGGREGATE_COLUMNS)
RENAME = {
    "model": "llm",
    "gpu_type": "gpu_smi_name",
    "num_requests": "n_requests",
    "avg_prompt_tokens": "prompt_tokens",
    "avg_generation_tokens": "generated_tokens",
    "gpu_power_draw_watts": "power_w",
    "avg_e2e_latency_seconds": "e2e_latency_s",
    "energy_efficiency_tokens_per_joule": "tokens_per_j",
    "throughput_tokens_per_second": "throughput_tps",
}


def dense_llms(model_features: pd.DataFrame) -> set[str]:
    """LLMs with total == active parameters, no expert fields, and attention heads (WattGPU's rule)."""
    experts = [c for c in model_features.columns if "expert" in c.lower()]
    moe = model_features["total_b_params"] != model_features["active_b_params"]
    moe |= model_features[experts].notna().any(axis=1)
    moe |= model_features[["num_attention_heads", "n_head"]].isna().all(axis=1)
    return set(model_features.loc[~moe, "model_name"])


def aggregates(runs: pd.DataFrame, dense: set[str]) -> pd.DataFrame:
    """Per-run aggregates in the shape wattcounts.runs_table expects (rows in src_row order)."""
    agg = runs.sort_values("src_row").rename(columns=RENAME)
    # measurement window [s] = generated tokens / throughput (the upstream measurement_duration)
    agg["duration_s"] = agg["n_requests"] * agg["generated_tokens"] / agg["throughput_tps"]
    agg["itl_server_s"] = agg["e2e_latency_s"] / agg["generated_tokens"]
    agg["itl_server_definition"] = wc.ITL_SERVER_APPROX
    agg["dense"] = agg["llm"].isin(dense)
    return agg


def main(reference: Path) -> None:
    runs = pd.read_csv(reference / "wattcounts" / "watt_counts_runs.csv")
    features = pd.read_csv(reference / "wattgpu" / "model_features.csv", sep=";", low_memory=False)
    table = wc.runs_table(aggregates(runs, dense_llms(features)))
    table.to_csv(OUT, index=False, float_format="%.7g", lineterminator="\n")
    print(f"{len(runs)} runs in, {len(table)} out ({len(runs) - len(table)} dropped)")
    print(table.groupby(["scenario", "dense"]).size().to_string())
    print("sha256", hashlib.sha256(OUT.read_bytes()).hexdigest())


if __name__ == "__main__":
    default = Path(__file__).resolve().parents[3] / "shared" / "reference"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
