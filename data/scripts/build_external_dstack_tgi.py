"""Append dstack's TGI-vs-vLLM Llama-3.1-405B rows on 8x MI300X to data/external_measurements.csv.

Source (Apache-2.0): github.com/dstackai/benchmarks @ 06c957ab51572ca18db9c1f4bb254a9eb86df4d7,
amd/tgi_vs_vllm/ — README.md (setup, commands, versions) and {vllm,tgi}/data/result_*_{short,long,
single_prompt}.csv (the tables behind the README's charts):
https://github.com/dstackai/benchmarks/tree/06c957ab51572ca18db9c1f4bb254a9eb86df4d7/amd/tgi_vs_vllm

Harness: a modified vLLM benchmark_serving.py, sonnet data set, --num-prompt N requests sent at
once (no --request-rate: rate inf), prompts of 80 ("short"), 10,000 ("long") or 16,000-128,000
tokens (one prompt, "single_prompt"). Server: meta-llama/Llama-3.1-405B-Instruct on 8x MI300X,
vLLM 0.6.3.dev116 (--tensor-parallel-size=8) or TGI sha-11d7af7-rocm (--num-shard 8); the weights'
dtype is not set (the checkpoint's BF16). Per row: itl_ms = Mean TPOT, ttft_ms = Mean TTFT,
throughput = Output token throughput, tokens per request = totals / successful requests (derived).
Left out: result_*_QPS_high.csv (its request rates are not in the file).

    git clone https://github.com/dstackai/benchmarks /tmp/dstack
    .venv/bin/python data/scripts/build_external_dstack_tgi.py /tmp/dstack
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from external_append import append_rows, read_table  # noqa: E402

COMMIT = "06c957ab51572ca18db9c1f4bb254a9eb86df4d7"
DIR = "amd/tgi_vs_vllm"
TITLE = ("dstack: Benchmarking TGI vs vLLM on AMD 8 x MI300x with LLaMA 3.1 405B "
         "(dstackai/benchmarks amd/tgi_vs_vllm)")  # fmt: skip
ENGINES = {"vllm": ("vLLM", "0.6.3.dev116+g151ef4ef (ROCm 6.1)", "vllm serve --tensor-parallel-size=8"),
           "tgi": ("TGI (text-generation-inference)", "ghcr.io/huggingface/text-generation-inference:sha-11d7af7-rocm",
                   "text-generation-launcher --num-shard 8 --sharded true --max-total-tokens 130000")}  # fmt: skip
CASES = {"short": "sonnet prompts of about 80 tokens", "long": "sonnet prompts of 10,000 tokens",
         "single_prompt": "one sonnet prompt of 16,000-128,000 tokens"}  # fmt: skip


def rows(root: str) -> list[dict]:
    out = []
    for key, (engine, version, launch) in ENGINES.items():
        for case, what in CASES.items():
            path = f"{DIR}/{key}/data/result_{key}_{case}.csv"
            text = subprocess.run(["git", "-C", root, "show", f"{COMMIT}:{path}"],
                                  capture_output=True, text=True, check=True).stdout  # fmt: skip
            for i, r in pd.read_csv(io.StringIO(text)).iterrows():
                n = int(r["Successful requests"])
                t_in, t_out = r["Total input tokens"] / n, r["Total generated tokens"] / n
                out.append({
                    "row_class": "dense", "model_hf_id": "meta-llama/Llama-3.1-405B-Instruct",
                    "model_label_in_source": "meta-llama/Llama-3.1-405B-Instruct", "gpu": "MI300X",
                    "num_gpus": 8, "precision": "16-bit (checkpoint default BF16; dtype not set)",
                    "engine": engine, "engine_version": version, "harness": "all_at_once",
                    "requests_total": float(n), "replicas": 1.0, "input_tokens": round(t_in, 2),
                    "output_tokens": round(t_out, 2), "itl_ms": r["Mean TPOT (ms)"],
                    "ttft_ms": r["Mean TTFT (ms)"],
                    "throughput_tokens_per_s": r["Output token throughput (tok/s)"],
                    "derived": (f"input_tokens, output_tokens = Total input/generated tokens / Successful "
                                f"requests ({r['Total input tokens']:g}, {r['Total generated tokens']:g} / {n}); "
                                "itl_ms = Mean TPOT; ttft_ms = Mean TTFT"),
                    "source_title": TITLE,
                    "source_url": f"https://github.com/dstackai/benchmarks/blob/{COMMIT}/{path}",
                    "source_location": f"{path} @ {COMMIT[:8]}, data row {i + 1}",
                    "notes": (f"benchmark_serving.py (dstack's modification), {what}, {n} request(s) sent at "
                              f"once (no request rate: inf); the engine runs what its KV cache holds. Launch: "
                              f"{launch}, TP8 on 8x AMD Instinct MI300X. Apache-2.0 repository."),
                })  # fmt: skip
    return out


def main(root: str) -> None:
    table = read_table()
    new = pd.DataFrame(rows(root))
    append_rows(table, new)


if __name__ == "__main__":
    main(sys.argv[1])
