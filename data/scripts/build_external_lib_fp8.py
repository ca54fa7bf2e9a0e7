"""Append LLM-Inference-Bench FP8-weight vLLM rows (Fig. 3 data) to data/external_measurements.csv.

Source (BSD-3-Clause): argonne-lcf/LLM-Inference-Bench @ ae7e7a41173badc99f7b59da1657a0172813e5e5:
- Plots/Fig_3/A100_H100_quant_all_results.csv: rows Hardware='Nvidia H100 GPU', Framework=vLLM,
  kv_cache_dtype='Weight = fp8, KV Cache = fp8' (Llama-3-8B quantised by vLLM to FP8 weights and
  FP8 KV cache);
- Plots/Fig_3/qaunt_results/throughput_results_Meta-Llama-3-8B-Instruct-FP8 (1).csv: MI300X, vLLM,
  the neuralmagic/Meta-Llama-3-8B-Instruct-FP8 checkpoint.
Both print Latency [s] and Throughput = B x 2L / Latency (input + output), like the throughput file
of build_external_lib_throughput.py; the harness is the same offline static batch, one GPU.
Left out: the 16-bit-weight rows (FP16 weights with an FP8 or FP16 KV cache: the kit has no KV-cache
format, and FP16/FP16 repeats the throughput file), the A100 rows (A100-SXM4-40GB, a training GPU),
the TensorRT-LLM rows, and the GH200 FP8 file (its engine is not labelled). The MI300X file prints
24 of its 30 (B, L) configurations twice (repeat runs, within 3.5 % of each other): the first
printed is kept.

    git clone https://github.com/argonne-lcf/LLM-Inference-Bench /tmp/lib
    .venv/bin/python data/scripts/build_external_lib_fp8.py /tmp/lib
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from external_append import append_rows, read_table  # noqa: E402

COMMIT = "ae7e7a41173badc99f7b59da1657a0172813e5e5"
TITLE = ("LLM-Inference-Bench: Inference Benchmarking of Large Language Models on AI Accelerators "
         "(Chitty-Venkata et al., arXiv 2411.00136) - repository data for Fig. 3 (quantisation)")  # fmt: skip
FILES = {
    "H100 SXM": ("Plots/Fig_3/A100_H100_quant_all_results.csv", "Nvidia H100 GPU",
                 "FP8 weights and FP8 KV cache (file: 'Weight = fp8, KV Cache = fp8'; vLLM quantisation of "
                 "the 16-bit checkpoint)"),
    "MI300X": ("Plots/Fig_3/qaunt_results/throughput_results_Meta-Llama-3-8B-Instruct-FP8 (1).csv",
               "AMD MI300X GPU", "FP8 (checkpoint neuralmagic/Meta-Llama-3-8B-Instruct-FP8)"),
}  # fmt: skip
NOTE = ("Offline static batch (LLM-Inference-Bench harness, as for its throughput rows): one generate() on "
        "B random-token prompts of L tokens, ignore_eos, L output tokens; Latency = mean of the timed "
        "calls. vLLM splits a batch the KV cache cannot hold into waves. ")  # fmt: skip


def read(root: str, path: str) -> pd.DataFrame:
    text = subprocess.run(["git", "-C", root, "show", f"{COMMIT}:{path}"], capture_output=True,
                          text=True, check=True).stdout  # fmt: skip
    return pd.read_csv(io.StringIO(text), skip_blank_lines=True)


def rows(root: str) -> list[dict]:
    out = []
    for gpu, (path, hw, precision) in FILES.items():
        f = read(root, path)
        f = f[(f["Hardware"] == hw) & (f["Framework"] == "vLLM")]
        if "kv_cache_dtype" in f:
            f = f[f["kv_cache_dtype"] == "Weight = fp8, KV Cache = fp8"]
        f = f.drop_duplicates(subset=["Input Output Length", "Batch Size"], keep="first")
        lat_col = "latency" if "latency" in f else "Latency"
        for _, r in f.iterrows():
            L, B, lat = int(r["Input Output Length"]), int(r["Batch Size"]), float(r[lat_col])
            where = (f"{path} @ {COMMIT[:8]}, row Hardware='{hw}', Framework=vLLM, Model={r['Model']}, "
                     f"Input Output Length={L}, Batch Size={B}")  # fmt: skip
            out.append({
                "row_class": "moe_fp8_multigpu", "model_hf_id": "meta-llama/Meta-Llama-3-8B",
                "model_label_in_source": r["Model"], "gpu": gpu, "num_gpus": 1, "precision": precision,
                "engine": "vLLM", "engine_version": "not stated in results file", "batch_size": float(B),
                "harness": "fixed_batch", "replicas": 1.0, "input_tokens": float(L), "output_tokens": float(L),
                "throughput_tokens_per_s": float(f"{B * L / lat:.7g}"),
                "derived": (f"throughput_tokens_per_s = {B} x {L} output tokens / Latency, Latency = "
                            f"{lat:.6g} s as printed (the file's throughput counts input + output tokens, "
                            "2x this)"),
                "source_title": TITLE,
                "source_url": ("https://github.com/argonne-lcf/LLM-Inference-Bench/blob/" + COMMIT + "/"
                               + path.replace(" ", "%20")),
                "source_location": where,
                "notes": NOTE + ("H100 taken as SXM as for the repository's other H100 rows. " if gpu == "H100 SXM"
                                 else "Instruct FP8 checkpoint; the catalog's Llama-3-8B architecture. ")
                         + "BSD-3-Clause repository.",
            })  # fmt: skip
    return out


def main(root: str) -> None:
    table = read_table()
    new = pd.DataFrame(rows(root))
    append_rows(table, new)


if __name__ == "__main__":
    main(sys.argv[1])
