"""Append dstack's Llama-3.1-405B FP8 rows (8x H100 SXM5 vs 8x/4x MI300X) to the external table.

Source (Apache-2.0): github.com/dstackai/benchmarks @ 06c957ab51572ca18db9c1f4bb254a9eb86df4d7,
comparison/h100sxm5_vs_mi300x/ — README.md (setup, commands) and csv_data/throughput_comparsion.csv
(offline) and csv_data/qps_comparison.csv (online), the tables behind the README's charts:
https://github.com/dstackai/benchmarks/tree/06c957ab51572ca18db9c1f4bb254a9eb86df4d7/comparison/h100sxm5_vs_mi300x

- Offline: vLLM's benchmark_throughput.py, --input-len/--output-len fixed (random prompts,
  every request generates output_len tokens), --num-prompts B handed to one generate() call:
  a fixed batch of B. The file's tokens_per_second counts input + output tokens; the output rate is
  B x output_len / elapsed_time (derived).
- Online: vLLM's benchmark_serving.py, ShareGPT, 1000 prompts at --request-rate 16, 32
  and 1000 (Poisson arrivals; 1000/s is in effect all at once, kept as the rate it ran).
  itl_ms = mean_tpot_ms; tokens per request = the file's totals / completed.
- Left out: the '8xMi300x 2FP8-amd' offline rows (their elapsed times equal the 4xMI300X rows' and
  their token counts are twice them: a doubling, not a measurement) and its online rows (two copies
  on 8 GPUs is our reading of the label; the layout is not stated).

Also the same lab's serving-setting sweep on the 8x H100 SXM5 (nvidia/8xh100/README.md and
nvidia/8xh100/charts/qps_output.csv, same commit): vLLM benchmark_serving.py, ShareGPT, 1000 prompts at
request rate 16, 32 and 1000 (Poisson), with num-scheduler-step 1/5/10/15, chunked prefill on/off,
max-num-batched-tokens, max-num-seqs and max-seq-len-to-capture varied as the file's columns say.
The three runs also in qps_comparison.csv (same result file name) are not repeated.

    git clone https://github.com/dstackai/benchmarks /tmp/dstack
    .venv/bin/python data/scripts/build_external_dstack405b.py /tmp/dstack
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
DIR = "comparison/h100sxm5_vs_mi300x"
BASE = f"https://github.com/dstackai/benchmarks/blob/{COMMIT}/{DIR}/"
TITLE = ("dstack: Llama3.1-405B-Fp8 inference performance comparison between 8xH100SXM5 and "
         "8xMi300x (dstackai/benchmarks comparison/h100sxm5_vs_mi300x)")  # fmt: skip
# label -> (gpu, GPUs, model_hf_id (catalog), checkpoint, engine version, launch)
SETUP = {
    "8xH100 1FP8-meta": ("H100 SXM", 8, "meta-llama/Llama-3.1-405B", "meta-llama/Llama-3.1-405B-FP8",
                         "nightly wheel vllm-1.0.0.dev (Nov 2024), PyTorch 2.5.1+cu124",
                         "TP8, --max-model-len 91680, --num-scheduler-step 1"),
    "8xMi300x 1FP8-meta": ("MI300X", 8, "meta-llama/Llama-3.1-405B", "meta-llama/Llama-3.1-405B-FP8",
                           "ghcr.io/embeddedllm/vllm-rocm:cb3b2b9",
                           "TP8, --max-model-len 91680, --enforce-eager, --num-scheduler-step 15"),
    "8xMi300 1FP8-amd": ("MI300X", 8, "meta-llama/Llama-3.1-405B-Instruct",
                         "amd/Llama-3.1-405B-Instruct-FP8-KV", "ghcr.io/embeddedllm/vllm-rocm:cb3b2b9",
                         "TP8, --max-model-len 91680, --enforce-eager, --num-scheduler-step 1"),
    "4xMi300x 1FP8-amd": ("MI300X", 4, "meta-llama/Llama-3.1-405B-Instruct",
                          "amd/Llama-3.1-405B-Instruct-FP8-KV", "ghcr.io/embeddedllm/vllm-rocm:cb3b2b9",
                          "TP4 (label '4xMi300x'; command not printed for it)"),
}  # fmt: skip
SETUP["8xMi300x 1FP8-amd"] = SETUP["8xMi300 1FP8-amd"]
HW = ("Hardware: 8x NVIDIA H100 80GB HBM3 (SXM5) or AMD Instinct MI300X, per the README's "
      "environment dumps. Apache-2.0 repository.")  # fmt: skip


def csv(root: str, name: str) -> pd.DataFrame:
    text = subprocess.run(["git", "-C", root, "show", f"{COMMIT}:{DIR}/csv_data/{name}"],
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    frame = pd.read_csv(io.StringIO(text.lstrip("\ufeff")))
    frame["gpu"] = frame["gpu"].str.split().str.join(" ")
    return frame


def common(label: str, name: str, where: str) -> dict:
    gpu, n, model, ckpt, version, launch = SETUP[label]
    return {"row_class": "moe_fp8_multigpu", "model_hf_id": model,
            "model_label_in_source": f"{ckpt} ('{label}')", "gpu": gpu, "num_gpus": n,
            "precision": f"FP8 (checkpoint {ckpt})", "engine": "vLLM", "engine_version": version,
            "replicas": 1.0, "source_title": TITLE, "source_url": BASE + f"csv_data/{name}",
            "source_location": f"csv_data/{name} @ {COMMIT[:8]}, {where}",
            "notes": f"{launch}. "}  # fmt: skip


def offline(root: str) -> list[dict]:
    out = []
    for _, r in csv(root, "throughput_comparsion.csv").iterrows():
        if r["gpu"] not in SETUP:
            continue
        b, i, o, t = (
            int(r["num_requests"]),
            int(r["input_len"]),
            int(r["output_len"]),
            r["elapsed_time"],
        )
        row = common(
            r["gpu"],
            "throughput_comparsion.csv",
            f"row gpu='{r['gpu']}', input_len={i}, output_len={o}, batch_size={b}",
        )
        row.update(batch_size=float(b), harness="fixed_batch", input_tokens=float(i),
                   output_tokens=float(o), throughput_tokens_per_s=round(b * o / t, 3),
                   derived=(f"throughput_tokens_per_s = num_requests x output_len / elapsed_time = "
                            f"{b} x {o} / {t:g} s (the file's tokens_per_second, {r['tokens_per_second']:.6g},"
                            " counts input + output)"))  # fmt: skip
        row["notes"] += (
            "Offline: vLLM benchmark_throughput.py, B random prompts of input_len "
            "tokens, output_len tokens each, one generate() call (a fixed batch of B; "
            "vLLM runs what its KV cache holds and queues the rest). " + HW
        )
        out.append(row)
    return out


def online(root: str) -> list[dict]:
    out = []
    for _, r in csv(root, "qps_comparison.csv").iterrows():
        if r["gpu"] not in SETUP:
            continue
        n = r["completed"]
        row = common(
            r["gpu"],
            "qps_comparison.csv",
            f"row gpu='{r['gpu']}', request_rate={r['request_rate']:g}",
        )
        row.update(harness="poisson_rate", request_rate_qps=float(r["request_rate"]),
                   requests_total=float(r["num_prompts"]),
                   input_tokens=round(r["total_input_tokens"] / n, 2),
                   output_tokens=round(r["total_output_tokens"] / n, 2),
                   itl_ms=round(r["mean_tpot_ms"], 3), ttft_ms=round(r["mean_ttft_ms"], 3),
                   throughput_tokens_per_s=round(r["output_throughput"], 3),
                   derived=("input_tokens, output_tokens = total_input_tokens, total_output_tokens "
                            f"/ completed ({r['total_input_tokens']}, {r['total_output_tokens']} / {n}); "
                            "itl_ms = mean_tpot_ms; ttft_ms = mean_ttft_ms; throughput = output_throughput"))  # fmt: skip
        row["notes"] += (f"Online: vLLM benchmark_serving.py, ShareGPT, {int(r['num_prompts'])} "
                         f"prompts, Poisson arrivals at {r['request_rate']:g} req/s; chunked prefill "
                         f"{r['enable-chunked-prefill']}, max-num-seqs {r['max-num-seqs']}, "
                         f"num-scheduler-step {r['num-scheduler-step']}. The served rate "
                         f"({r['request_throughput']:.3g} req/s) is below the offered rate: the "
                         "queue grows during the run. " + HW)  # fmt: skip
        out.append(row)
    return out


SWEEP = "nvidia/8xh100/charts/qps_output.csv"
SWEEP_TITLE = ("dstack: 8xH100 benchmark results, Llama3.1-405B-Fp8 with vLLM, serving-setting sweep "
               "(dstackai/benchmarks nvidia/8xh100)")  # fmt: skip


def sweep(root: str) -> list[dict]:
    """The serving-setting sweep on 8x H100 SXM5, less the runs qps_comparison.csv holds."""
    text = subprocess.run(["git", "-C", root, "show", f"{COMMIT}:{SWEEP}"],
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    frame = pd.read_csv(io.StringIO(text.lstrip("\ufeff")))
    held = set(csv(root, "qps_comparison.csv")["filename"].str.replace("nvidia-", "", regex=False))
    out = []
    for i, r in frame.iterrows():
        if r["filename"] in held:
            continue
        n = r["completed"]
        settings = ", ".join(f"{k} {r[k]}" for k in ("num-scheduler-step", "enable-chunked-prefill",
                             "max-num-batched-tokens", "max-num-seqs", "max-seq-len-to-capture",
                             "enable-prefix-caching"))  # fmt: skip
        out.append({
            "row_class": "moe_fp8_multigpu", "model_hf_id": "meta-llama/Llama-3.1-405B",
            "model_label_in_source": "meta-llama/Llama-3.1-405B-FP8", "gpu": "H100 SXM", "num_gpus": 8,
            "precision": "FP8 (checkpoint meta-llama/Llama-3.1-405B-FP8)", "engine": "vLLM",
            "engine_version": SETUP["8xH100 1FP8-meta"][4], "replicas": 1.0, "harness": "poisson_rate",
            "request_rate_qps": float(r["request_rate"]), "requests_total": float(r["num_prompts"]),
            "input_tokens": round(r["total_input_tokens"] / n, 2),
            "output_tokens": round(r["total_output_tokens"] / n, 2),
            "itl_ms": round(r["mean_tpot_ms"], 3), "ttft_ms": round(r["mean_ttft_ms"], 3),
            "throughput_tokens_per_s": round(r["output_throughput"], 3),
            "derived": ("input_tokens, output_tokens = total_input_tokens, total_output_tokens / "
                        f"completed ({r['total_input_tokens']}, {r['total_output_tokens']} / {n}); "
                        "itl_ms = mean_tpot_ms; ttft_ms = mean_ttft_ms; throughput = output_throughput"),
            "source_title": SWEEP_TITLE,
            "source_url": f"https://github.com/dstackai/benchmarks/blob/{COMMIT}/{SWEEP}",
            "source_location": f"{SWEEP} @ {COMMIT[:8]}, data row {i + 1} ({r['filename']})",
            "notes": (f"vLLM benchmark_serving.py, ShareGPT, {r['num_prompts']} prompts, Poisson arrivals "
                      f"at {r['request_rate']:g} req/s (the file's qps column reads {r['qps']:g}); "
                      f"vllm serve TP8 with {settings}. A num-scheduler-step above 1 emits tokens in "
                      "bursts; TPOT is still (latency - TTFT) / (tokens - 1) per request. " + HW),
        })  # fmt: skip
    return out


def main(root: str) -> None:
    table = read_table()
    new = pd.DataFrame(offline(root) + online(root) + sweep(root))
    append_rows(table, new)


if __name__ == "__main__":
    main(sys.argv[1])
