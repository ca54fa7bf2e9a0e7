"""Build data/h200_decode_measurements.csv and data/h200_meta.json from the two H200 scripts' output,
and (``--external``) their rows of data/external_measurements.csv.

    python data/scripts/build_h200_tables.py RESULTS_DIR              # the measurement table
    python data/scripts/build_h200_tables.py RESULTS_DIR --external   # and the external rows
    python data/scripts/build_h200_tables.py --external               # external rows, shipped table

RESULTS_DIR holds what ``measure_h200_transformers.py`` (runs.csv, meta.json) and
``measure_h200_graphs.py`` (graph_steps.csv, graph_meta.json) wrote. Rows a script skipped or
could not measure are kept in the measurement table with their status and left out of the
external table. So are the eager harness's rows: the kit models engines that replay a step's
kernels (CUDA graphs), not a host that launches each kernel from Python, so it cannot ask that
harness as it ran; they stay in the measurement table as the measure of that host time. The external rows (harness ``decode_window``: a static batch, every sequence in
flight, timed over its decode steps alone) carry ``itl_ms`` and ``power_w`` (one GPU's board
power, ``gpu0``, no idle in the window); no throughput or energy per token, which a reader would
take for a whole run's. Token counts: the harness decodes at a constant context C, written as a
prompt of C − 64 tokens and 128 output tokens (mean decode context C).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import pandas as pd

DATA = Path(__file__).resolve().parents[1]
MEASUREMENTS = DATA / "h200_decode_measurements.csv"
META = DATA / "h200_meta.json"
EXTERNAL = DATA / "external_measurements.csv"
GRAPHS = "cuda_graphs_decoder"
EAGER = "transformers_eager"
TITLE = {
    GRAPHS: "wattgpu_lite H200 decode steps, PyTorch decoder with CUDA graphs (this repository)",
    EAGER: "wattgpu_lite H200 decode steps, transformers eager loop (this repository)",
}
SCRIPT = {GRAPHS: "data/scripts/measure_h200_graphs.py",
          EAGER: "data/scripts/measure_h200_transformers.py"}  # fmt: skip
ENGINE = {GRAPHS: "PyTorch decoder with CUDA graphs (kit script)",
          EAGER: "transformers eager loop, DynamicCache (kit script)"}  # fmt: skip
COLUMNS = [
    "harness",
    "model_hf_id",
    "weights",
    "batch_size",
    "rows_computed",
    "prompt_tokens",
    "context_tokens",
    "decode_steps",
    "itl_ms",
    "prefill_s",
    "window_s",
    "energy_j",
    "power_w",
    "power_w_nvml_sampled",
    "sm_clock_mhz",
    "temperature_c",
    "status",
]
INT_COLUMNS = (
    "batch_size",
    "rows_computed",
    "prompt_tokens",
    "decode_steps",
    "sm_clock_mhz",
    "temperature_c",
)
ROUND = {"itl_ms": 4, "prefill_s": 4, "window_s": 4, "energy_j": 3, "power_w": 2,
         "power_w_nvml_sampled": 2, "context_tokens": 1}  # fmt: skip


def measurements(results: Path) -> pd.DataFrame:
    """The two harnesses' rows in one table (graph rows first), in the scripts' order."""
    graphs = pd.read_csv(results / "graph_steps.csv").assign(harness=GRAPHS)
    graphs = graphs.rename(columns={"power_w_sampled": "power_w_nvml_sampled"})
    graphs["prompt_tokens"] = pd.NA
    eager = pd.read_csv(results / "runs.csv").assign(harness=EAGER, weights="bf16")
    eager = eager.rename(
        columns={"power_w_sampled": "power_w_nvml_sampled", "mean_context_tokens": "context_tokens"}
    )
    eager["rows_computed"] = eager["batch_size"]
    table = pd.concat([graphs, eager], ignore_index=True)[COLUMNS]
    for col in INT_COLUMNS:
        table[col] = table[col].astype("Int64")
    return table.round(ROUND)


def meta(results: Path) -> dict:
    """Both runs' machine, versions and idle power, keyed by harness."""
    return {
        GRAPHS: json.loads((results / "graph_meta.json").read_text()),
        EAGER: json.loads((results / "meta.json").read_text()),
    }


def external_rows(table: pd.DataFrame, info: dict) -> pd.DataFrame:
    """The measured rows as rows of data/external_measurements.csv (its columns, its units)."""
    ok = table[(table["status"] == "ok") & (table["harness"] == GRAPHS)].reset_index(drop=True)
    precision = ok["weights"].map(
        {
            "bf16": "bf16",
            "fp8": "fp8 (e4m3 weights and activations, per-tensor scale; bf16 KV cache)",
        }
    )
    note = pd.Series(
        "decode only, constant context (KV written at a cycling slot, attention over "
        "all context_tokens); random weights; ITL and power over the timed window "
        "only",
        index=ok.index,
    )
    padded = ok["rows_computed"] != ok["batch_size"]
    note = note.where(
        ~padded, note + "; FP8 GEMM rows padded to " + ok["rows_computed"].astype(str)
    )
    return pd.DataFrame(
        {
            "row_class": "dense",
            "model_hf_id": ok["model_hf_id"],
            "model_label_in_source": ok["model_hf_id"],
            "gpu": "H200 SXM",
            "num_gpus": 1,
            "precision": precision,
            "engine": ENGINE[GRAPHS],
            "engine_version": f"torch {info[GRAPHS]['torch']}",
            "batch_size": ok["batch_size"],
            "concurrency": pd.NA,
            "request_rate_qps": pd.NA,
            "harness": "decode_window",
            "requests_total": ok["batch_size"],
            "replicas": 1,
            "input_tokens": (ok["context_tokens"] - 64).round(0).astype("Int64"),
            "output_tokens": 128,
            "power_w": ok["power_w"],
            "power_scope": "gpu0",
            "idle_in_window_s": 0.0,
            "itl_ms": ok["itl_ms"],
            "ttft_ms": pd.NA,
            "throughput_tokens_per_s": pd.NA,
            "energy_per_output_token_j": pd.NA,
            "energy_scope": pd.NA,
            "derived": "input_tokens = context_tokens - 64, output_tokens = 128 (mean decode context = "
            "the measured constant context)",
            "source_title": TITLE[GRAPHS],
            "source_url": "data/h200_decode_measurements.csv",
            "source_location": f"harness {GRAPHS}, written by {SCRIPT[GRAPHS]}",
            "notes": note,
        }
    )


def write_external(rows: pd.DataFrame) -> None:
    """Replace this source's rows of data/external_measurements.csv by ``rows``; every other line
    is kept byte for byte."""
    text = EXTERNAL.read_text()
    lines = text.splitlines(keepends=True)
    header = next(csv.reader([lines[0]]))
    title_at = header.index("source_title")
    kept = [line for line in lines[1:] if next(csv.reader([line]))[title_at] not in TITLE.values()]
    EXTERNAL.write_text(lines[0] + "".join(kept) + rows[header].to_csv(index=False, header=False))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "results",
        type=Path,
        nargs="?",
        help="the scripts' output folder (omit to reuse the shipped table)",
    )
    parser.add_argument("--external", action="store_true")
    args = parser.parse_args(argv)
    if args.results is not None:
        table = measurements(args.results)
        table.to_csv(MEASUREMENTS, index=False)
        META.write_text(json.dumps(meta(args.results), indent=1) + "\n")
        print(f"{len(table)} rows -> {MEASUREMENTS.name}", file=sys.stderr)
    if args.external:
        write_external(shipped_external_rows())
    return 0


def shipped_external_rows() -> pd.DataFrame:
    """:func:`external_rows` of the shipped measurement table and metadata."""
    table = pd.read_csv(MEASUREMENTS, dtype={c: "Int64" for c in INT_COLUMNS})
    return external_rows(table, json.loads(META.read_text()))


if __name__ == "__main__":
    raise SystemExit(main())
