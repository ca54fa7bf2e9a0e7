"""Append LLM-Inference-Bench vLLM throughput rows to data/external_measurements.csv (issue 28 item 3).

Source (BSD-3-Clause): argonne-lcf/LLM-Inference-Bench, docs/data/Throughput/All_results.csv @
579a1c7c651a4e5aa3277f5c2c1e84067d8ca778
https://github.com/argonne-lcf/LLM-Inference-Bench/blob/579a1c7c651a4e5aa3277f5c2c1e84067d8ca778/docs/data/Throughput/All_results.csv
(raw: https://raw.githubusercontent.com/argonne-lcf/LLM-Inference-Bench/579a1c7c651a4e5aa3277f5c2c1e84067d8ca778/docs/data/Throughput/All_results.csv)

Columns: Hardware, Num of Hardware, Framework, Model, Input Output Length, Batch Size, Latency [s],
Throughput [(input + output) tokens/s]. Each row is one offline static batch: one LLM.generate() on B
random-token prompts of L tokens with ignore_eos and L output tokens, tensor parallel over the
"Num of Hardware" GPUs; Latency is the mean of the timed calls after warm-ups (the H100 run script
vLLM/H100/run-throughput-bench.sh runs vLLM's benchmark_latency.py with --dtype float16 and
--tensor-parallel-size; the MI300X one benchmark_throughput.py, dtype auto).

Kept: Framework == vLLM on "AMD MI300X GPU" and "Nvidia H100 GPU", the models the kit's catalog knows
(Llama-2-7B/70B, Llama-3-8B/70B, Mistral-7B, Mixtral-8x7B, Qwen2-7B/72B). A (hardware, GPUs, model,
L, B) key printed more than once is left out (the file does not say which repeat is right). Rows
already in the table (same source_location) are skipped, so the script is idempotent, and so is a
run the table already holds from the repository's power data (same GPU, GPUs, model, B and L: the
H100 one-GPU 1024-token runs, whose throughput the Fig. 16 rows carry).
Written: throughput_tokens_per_s = B x L / Latency (output tokens only), the Latency in ``derived``.

    .venv/bin/python data/scripts/build_external_lib_throughput.py PATH/TO/All_results.csv
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from external_append import append_rows, read_table  # noqa: E402

COMMIT = "579a1c7c651a4e5aa3277f5c2c1e84067d8ca778"
URL = ("https://github.com/argonne-lcf/LLM-Inference-Bench/blob/"
       f"{COMMIT}/docs/data/Throughput/All_results.csv")  # fmt: skip
TITLE = ("LLM-Inference-Bench: Inference Benchmarking of Large Language Models on AI Accelerators "
         "(Chitty-Venkata et al., arXiv 2411.00136) - repository throughput data (docs/data/Throughput)")  # fmt: skip
GPUS = {"AMD MI300X GPU": "MI300X", "Nvidia H100 GPU": "H100 SXM"}
MODELS = ("meta-llama/Llama-2-7b-hf", "meta-llama/Meta-Llama-3-8B", "meta-llama/Llama-2-70b-hf",
          "meta-llama/Meta-Llama-3-70B", "mistralai/Mistral-7B-v0.1", "mistralai/Mixtral-8x7B-v0.1",
          "Qwen/Qwen2-7B", "Qwen/Qwen2-72B")  # fmt: skip
MOE = {"mistralai/Mixtral-8x7B-v0.1"}
HARNESS = {
    "MI300X": ("16-bit (vLLM dtype 'auto': the checkpoint's float16/bfloat16)",
               "Offline static batch: one LLM.generate() on B random-token prompts of L tokens, "
               "ignore_eos, L output tokens; Latency = mean wall time of 30 calls after 10 warm-ups "
               "(vLLM/MI300X/benchmark_throughput.py @ dc89c732). vLLM splits a batch the KV cache "
               "cannot hold into waves."),
    "H100 SXM": ("FP16 (--dtype float16 in vLLM/H100/run-throughput-bench.sh)",
                 "Offline static batch: vLLM's benchmark_latency.py (vLLM/H100/"
                 "run-throughput-bench.sh @ 4211f5d4: --input-len L --output-len L --batch-size B "
                 "--tensor-parallel-size, ignore_eos), one generate() on B random-token prompts; "
                 "Latency = mean of the timed iterations after warm-ups (script defaults 30 and 10). "
                 "vLLM splits a batch the KV cache cannot hold into waves. H100 (ALCF JLSE) taken as "
                 "SXM, as for the repository's power rows (595 W measured there, above PCIe/NVL "
                 "limits); the form factor is not printed."),
}  # fmt: skip
DOUBT = ("Doubtful: at batch 1 the MI300X latencies for 128-512 tokens are not proportional to "
         "length; the source does not explain it. ")  # fmt: skip


def rows(src: pd.DataFrame) -> list[dict]:
    v = src[(src["Framework"] == "vLLM") & src["Hardware"].isin(GPUS) & src["Model"].isin(MODELS)]
    key = ["Hardware", "Num of Hardware", "Model", "Input Output Length", "Batch Size"]
    v = v[~v.duplicated(key, keep=False)]
    out = []
    for _, r in v.iterrows():
        g, n, m = GPUS[r["Hardware"]], int(r["Num of Hardware"]), r["Model"]
        L, B, lat = int(r["Input Output Length"]), int(r["Batch Size"]), float(r["Latency"])
        precision, note = HARNESS[g]
        tp = f" TP={n} on {n} GPUs (tensor parallel)." if n > 1 else ""
        doubt = DOUBT if g == "MI300X" and B == 1 and L <= 512 else ""
        moe = " Mixture-of-experts (8 experts, top-2), 16-bit weights." if m in MOE else ""
        out.append({
            "row_class": "moe_fp8_multigpu" if m in MOE else "dense", "model_hf_id": m,
            "model_label_in_source": m, "gpu": g, "num_gpus": n, "precision": precision,
            "engine": "vLLM", "engine_version": "not stated in results file", "batch_size": float(B),
            "harness": "fixed_batch", "replicas": 1.0, "input_tokens": float(L),
            "output_tokens": float(L), "throughput_tokens_per_s": float(f"{B * L / lat:.7g}"),
            "derived": (f"throughput_tokens_per_s = {B} x {L} output tokens / Latency, Latency = "
                        f"{lat:.6g} s as printed (the file's Throughput counts input + output "
                        "tokens, 2x this)"),
            "source_title": TITLE, "source_url": URL,
            "source_location": (f"row Hardware='{r['Hardware']}', Num of Hardware={n}, "
                                f"Framework=vLLM, Model={m}, Input Output Length={L}, "
                                f"Batch Size={B}"),
            "notes": f"{note}{tp}{moe} {doubt}BSD-3-Clause repository.".replace("  ", " "),
        })  # fmt: skip
    return out


def main(path: str) -> None:
    table = read_table()
    new = pd.DataFrame(rows(pd.read_csv(path)))
    same = ["gpu", "num_gpus", "model_hf_id", "batch_size", "input_tokens", "output_tokens"]
    lib = table[table["source_title"].str.startswith("LLM-Inference-Bench")]
    held = set(map(tuple, lib[same].astype(str).to_numpy()))
    new = new[[tuple(k) not in held for k in new[same].astype(str).to_numpy()]]
    append_rows(table, new)


if __name__ == "__main__":
    main(sys.argv[1])
