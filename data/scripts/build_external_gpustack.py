"""Append GPUStack Performance Lab benchmark logs to data/external_measurements.csv.

Source (Apache-2.0): github.com/gpustack/gpustack @ 47277d79f4a5bae12a2d25e9ecbed2a2177a5f2d,
docs/performance-lab/<model>/<gpu>.md. Each page prints `vllm bench serve` "Serving Benchmark
Result" blocks, each after the serving command it measured. Read from a clone at that commit:

    git clone https://github.com/gpustack/gpustack /tmp/gpustack
    .venv/bin/python data/scripts/build_external_gpustack.py /tmp/gpustack

Pages (catalog models only): qwen3-235b-a22b/h100, qwen3-8b/h100-latency, glm-4.5-air/h100,
gpt-oss-20b/h100. Per block: itl_ms = Mean TPOT (excl. 1st token), ttft_ms = Mean TTFT,
throughput = Output token throughput, tokens per request = totals / successful requests (derived).
A block with "Maximum request concurrency" is a closed loop; any other ran at request rate inf
(all requests sent at once: requests_total = Peak concurrent requests, else successful requests).
GPUs = tensor x pipeline parallel size of the command. Left out: blocks after a crash (no
result), speculative-decoding commands (EAGLE/MTP: TPOT is not one step), commands with data
parallel (layout), commands serving another model than the page's or a bare model name without its
organisation (GLM-4.5-Air's "optimized" command: BF16 or FP8 checkpoint not said), runs whose mean
output is under 10 tokens (the 128-in/4-out case: TPOT over 3 steps), and a block that repeats
another's numbers exactly (Qwen3-8B's BS=4 baseline is section 1's vLLM run).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from external_append import append_rows, read_table  # noqa: E402

COMMIT = "47277d79f4a5bae12a2d25e9ecbed2a2177a5f2d"
# page -> (catalog model, GPU as the page states it, page model prefix, MoE)
PAGES = {
    "qwen3-235b-a22b/h100": ("Qwen/Qwen3-235B-A22B", "H100 (form factor not stated)",
                             "Qwen3-235B-A22B", True),
    "qwen3-8b/h100-latency": ("Qwen/Qwen3-8B", "H100 SXM", "Qwen3-8B", False),
    "glm-4.5-air/h100": ("zai-org/GLM-4.5-Air", "H100 SXM", "GLM-4.5-Air", True),
    "gpt-oss-20b/h100": ("openai/gpt-oss-20b", "H100 SXM", "gpt-oss-20b", True),
}  # fmt: skip
SERVE = re.compile(r"(vllm serve|sglang\.launch_server|trtllm-serve)")
FIELD = re.compile(r"^\s*([A-Za-z][^:]*?):\s+([-0-9.]+)\s*$")


def size(cmd: str, *flags: str) -> int:
    for f in flags:
        m = re.search(rf"(?:^|\s){re.escape(f)}[ =](\d+)", cmd)
        if m:
            return int(m[1])
    return 1


def blocks(text: str):
    """(section heading, serving command, '# label', {field: value}) per result block."""
    lines, i = text.splitlines(), 0
    head = cmd = label = ""
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            head, label = line.strip("# ").strip(), ""
        elif SERVE.search(line) and "bench serve" not in line:
            cmd = line.strip()
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1].strip() + " " + lines[i].strip()
            label = ""
        elif line.strip().startswith("# "):
            label = line.strip()[2:]
        elif "Serving Benchmark Result" in line:
            vals, i = {}, i + 1
            while i < len(lines) and not lines[i].strip().startswith("====="):
                m = FIELD.match(lines[i])
                if m:
                    vals[m[1].strip()] = float(m[2])
                i += 1
            yield head, cmd, label, vals
        i += 1


def versions(text: str) -> dict[str, str]:
    return {
        m[1].lower(): m[2] for m in re.finditer(r"^- (vLLM|SGLang|TensorRT-LLM): (\S+)", text, re.M)
    }


def rows(root: str) -> list[dict]:
    out = []
    for page, (model, gpu, stem, moe) in PAGES.items():
        path = f"docs/performance-lab/{page}.md"
        text = subprocess.run(["git", "-C", root, "show", f"{COMMIT}:{path}"], capture_output=True,
                              text=True, check=True).stdout  # fmt: skip
        title = text.splitlines()[0].lstrip("# ").strip()
        ver = versions(text)
        for head, cmd, label, v in blocks(text):
            served = re.search(r"(?:serve|--model(?:-path)?)\s+(\S+)", cmd)
            served = served[1] if served else ""
            n = v.get("Successful requests")
            bare = (
                "/" not in served
            )  # e.g. 'GLM-4.5-Air': which checkpoint (BF16 or FP8) is not said
            if (
                not n
                or bare
                or stem.lower() not in served.lower()
                or re.search(r"speculative|mtp|--dp", cmd)
            ):
                continue
            t_out = v["Total generated tokens"] / n
            if t_out < 10:
                continue
            engine = ("vLLM" if "vllm serve" in cmd else "SGLang" if "sglang" in cmd
                      else "TensorRT-LLM")  # fmt: skip
            tp = size(cmd, "-tp", "--tp", "--tp-size", "--tp_size", "--tensor-parallel-size")
            pp = size(cmd, "-pp", "--pp-size", "--pipeline-parallel-size")
            if "gpt-oss" in served:
                precision = "MXFP4 MoE weights (native checkpoint; not restated in source)"
            elif "fp8" in served.lower():
                precision = f"FP8 (checkpoint {served})"
            else:
                precision = f"16-bit (checkpoint {served}, BF16)"
            closed = "Maximum request concurrency" in v
            sent = v.get("Peak concurrent requests", n)
            row = {
                "row_class": "moe_fp8_multigpu" if moe or "FP8" in precision else "dense",
                "model_hf_id": model, "model_label_in_source": served, "gpu": gpu,
                "num_gpus": tp * pp, "precision": precision, "engine": engine,
                "engine_version": ver.get(engine.lower(), "not stated"),
                "harness": "closed_loop" if closed else "all_at_once", "replicas": 1.0,
                "input_tokens": round(v["Total input tokens"] / n, 2), "output_tokens": round(t_out, 2),
                "itl_ms": v["Mean TPOT (ms)"], "ttft_ms": v["Mean TTFT (ms)"],
                "throughput_tokens_per_s": v["Output token throughput (tok/s)"],
                "derived": ("input_tokens, output_tokens = Total input/generated tokens / Successful "
                            f"requests ({v['Total input tokens']:g}, {v['Total generated tokens']:g} / {n:g}); "
                            "itl_ms = Mean TPOT (excl. 1st token); ttft_ms = Mean TTFT"),
                "source_title": f"GPUStack Performance Lab: {title} (gpustack/gpustack docs/performance-lab/{page}.md)",
                "source_url": f"https://github.com/gpustack/gpustack/blob/{COMMIT}/{path}",
                "source_location": f"section '{head}'" + (f", case '{label}'" if label else "")
                                   + f", block after `{cmd}`",
                "notes": (f"vllm bench serve; launch: {cmd}. "
                          + (f"max-concurrency {v['Maximum request concurrency']:g} (closed loop). " if closed else
                             f"Request rate inf: all {sent:g} requests submitted at once (peak concurrent "
                             "requests as printed); the running batch is set by the engine's limits. ")
                          + ("Random dataset: output lengths can fall below the nominal value. "
                             if "random" in label else "")
                          + ("GPU form factor not stated by the page. " if "not stated" in gpu else "")
                          + "Licence of source repo: Apache-2.0."),
            }  # fmt: skip
            if closed:
                row["concurrency"] = v["Maximum request concurrency"]
            else:
                row["requests_total"] = sent
            out.append(row)
    return out


def main(root: str) -> None:
    table = read_table()
    new = pd.DataFrame(rows(root))
    same = [
        "model_label_in_source",
        "engine",
        "num_gpus",
        "itl_ms",
        "ttft_ms",
        "throughput_tokens_per_s",
    ]
    new = new.drop_duplicates(subset=same)
    append_rows(table, new)


if __name__ == "__main__":
    main(sys.argv[1])
