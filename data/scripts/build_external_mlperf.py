"""Append MLPerf Inference closed-division LLM results (v4.1, v5.1) to data/external_measurements.csv.

Sources (the published results of each round; use governed by MLCommons' results guidelines),
read from a clone of the repository at the pinned commit:
- v4.1: github.com/mlcommons/inference_results_v4.1 @ 198fc46799b3328b36ee4bcbdebfa2db5a8e6183
- v5.1: github.com/mlcommons/inference_results_v5.1 @ 965182b03376a00fcae415c54e560e1c83937932

    git clone https://github.com/mlcommons/inference_results_v4.1 /tmp/v41
    .venv/bin/python data/scripts/build_external_mlperf.py v4.1 /tmp/v41

For every closed system whose accelerator is one catalog GPU outside the training set (H100 SXM,
H100 PCIe, H200 SXM, GH200, B200, GB200, GB300, MI300X, MI325X, RTX 4090; mixed-GPU systems and
MaxQ power systems left out) and every llama2-70b-99 / mixtral-8x7b (and, in v5.1,
llama3.1-8b / llama3.1-405b / deepseek-r1) result in the Offline, Server or Interactive
scenario: ``results/<system>/<benchmark>/<scenario>/performance/run_1/mlperf_log_summary.txt``
gives tokens/s and samples/s (and, for Server/Interactive, target_qps, the TTFT/TPOT
constraints and the mean first-token and time-to-output-token latencies); ``systems/<system>.json``
the accelerator, its count and the software; ``measurements/.../<system>_<scenario>.json`` the
declared weight data type. The -99.9 results are left out (mostly the same engines re-run at a
stricter accuracy target). Rows already in the table (same source_location) are skipped.

Not in the files, so left empty: the mean prompt length of the data set (the rows cannot be asked
until it is) and the replica layout (a submitter's harness config, not read).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from external_append import append_rows, read_table  # noqa: E402

ROUNDS = {"v4.1": "198fc46799b3328b36ee4bcbdebfa2db5a8e6183",
          "v5.1": "965182b03376a00fcae415c54e560e1c83937932"}  # fmt: skip
ROUND = "v4.1"
COMMIT = ROUNDS[ROUND]
BENCH = {
    "llama2-70b-99": "meta-llama/Llama-2-70b-chat-hf",
    "mixtral-8x7b": "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "llama3.1-8b": "meta-llama/Llama-3.1-8B-Instruct",
    "llama3.1-405b": "meta-llama/Llama-3.1-405B-Instruct",
    "deepseek-r1": "deepseek-ai/DeepSeek-R1",
}  # quantised: moe_fp8_multigpu
GPU = [("GH200", "GH200"), ("GB200", "GB200"), ("GB300", "GB300"), ("H100-SXM", "H100 SXM"),
       ("H100 SXM", "H100 SXM"), ("H100-PCIe", "H100 PCIe"), ("H200-SXM", "H200 SXM"),
       ("H200 SXM", "H200 SXM"), ("B200", "B200"), ("MI300X", "MI300X"), ("MI325X", "MI325X"),
       ("RTX 4090", "RTX 4090")]  # fmt: skip
SUMMARY = re.compile(r"^[ \t]*([A-Za-z][^:\n]*?)[ \t]*:[ \t]*([-0-9.eE+]+)[ \t]*$", re.MULTILINE)


def git(root: str, *args: str) -> str:
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True,
                          check=True).stdout  # fmt: skip


def catalog_gpu(name: str) -> str | None:
    if "(x" in name:  # a system mixing GPU models
        return None
    return next((ours for key, ours in GPU if key in name), None)


def row(root: str, path: str, files: set[str]) -> dict | None:
    _, sub, _, system, bench, scen = path.split("/")[:6]
    spec = json.loads(git(root, "show", f"{COMMIT}:closed/{sub}/systems/{system}.json"))
    ours = catalog_gpu(spec.get("accelerator_model_name", ""))
    if ours is None or "MaxQ" in system:  # power rows come from the MLPerf Power artifact
        return None
    n = int(spec["accelerators_per_node"]) * int(spec.get("number_of_nodes") or 1)
    s = dict(SUMMARY.findall(git(root, "show", f"{COMMIT}:{path}")))
    offline = scen == "Offline"
    repo = f"https://github.com/mlcommons/inference_results_{ROUND}/blob/{COMMIT}/"
    key_t, key_s = (("Tokens per second", "Samples per second") if offline else
                    ("Completed tokens per second", "Completed samples per second"))  # fmt: skip
    if key_t not in s:
        return None
    meas = f"closed/{sub}/measurements/{system}/{bench}/{scen}/{system}_{scen}.json"
    w = json.loads(git(root, "show", f"{COMMIT}:{meas}")) if meas in files else {}
    tok, smp = float(s[key_t]), float(s[key_s])
    model = BENCH[bench]
    derived = [f"output_tokens = {key_t} / {key_s} = {tok:g} / {smp:g}"]
    out = {"row_class": "moe_fp8_multigpu", "model_hf_id": model, "model_label_in_source": bench, "gpu": ours,
           "num_gpus": n,
           "precision": (f"declared weight_data_types '{w.get('weight_data_types', 'not stated')}'"
                         f", transformations '{w.get('weight_transformations', 'not stated')}' "
                         "(as declared in the measurements JSON; an fp16 declaration with "
                         "quantization does not name the served format)"),
           "engine": spec.get("framework", "not stated"), "engine_version": f"MLPerf Inference {ROUND}",
           "output_tokens": round(tok / smp, 2), "throughput_tokens_per_s": tok,
           "source_title": (f"MLPerf Inference {ROUND} results, closed division, all submitters "
                            f"(mlcommons/inference_results_{ROUND})"),
           "source_url": repo + path, "source_location": path,
           "notes": (f"Submitter {sub}, system '{spec.get('system_name', system)}', accelerator "
                     f"'{spec.get('accelerator_model_name')}' x {n}. ")}  # fmt: skip
    if offline:
        out.update(harness="all_at_once", requests_total=float(s.get("samples_per_query", "nan")))
        out["notes"] += (
            "MLPerf Offline: LoadGen issues every sample of the query at once "
            "(all-at-once); requests_total = samples_per_query as printed (empty where the summary omits it). "
        )
    else:
        out.update(harness="poisson_rate", request_rate_qps=float(s["target_qps"]),
                   itl_ms=float(s["Mean Time to Output Token (ns)"]) / 1e6,
                   ttft_ms=float(s["Mean First Token latency (ns)"]) / 1e6)  # fmt: skip
        derived.append(
            "itl_ms = Mean Time to Output Token (ns) / 1e6; ttft_ms = Mean First "
            "Token latency (ns) / 1e6; request_rate_qps = target_qps"
        )
        ttft, tpot = (
            float(s.get(k, "nan")) / 1e6 for k in ("ttft_latency (ns)", "tpot_latency (ns)")
        )
        out["notes"] += (
            f"MLPerf {scen}: Poisson arrivals at target_qps, constraints TTFT <= "
            f"{ttft:g} ms and TPOT <= {tpot:g} ms (as printed); completed samples/s = "
            f"{smp:g}. "
        )
    out["derived"] = "; ".join(derived)
    out["notes"] += (
        "Input tokens: the data set's mean prompt length is not in the result files "
        "(left empty). Replica layout: the submitter's harness config was not read "
        "(replicas empty), so the row is reported, not asked. Throughput covers all "
        "GPUs of the system."
    )
    return out


def main(root: str) -> None:
    files = set(git(root, "ls-tree", "-r", "--name-only", COMMIT, "closed").split())
    pat = re.compile(
        r"^closed/[^/]+/results/[^/]+/("
        + "|".join(map(re.escape, BENCH))
        + r")/(Offline|Server|Interactive)/performance/run_1/mlperf_log_summary\.txt$"
    )
    rows = [r for p in sorted(files) if pat.match(p) for r in [row(root, p, files)] if r]
    table = read_table()
    append_rows(table, pd.DataFrame(rows), known=table["source_location"].str.split(" ").str[0])


if __name__ == "__main__":
    ROUND, COMMIT = sys.argv[1], ROUNDS[sys.argv[1]]
    main(sys.argv[2])
