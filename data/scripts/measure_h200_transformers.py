"""Measure decode inter-token latency and NVML power on one GPU, harness "transformers (eager)".

This is the scripted source of ``data/h200_transformers_runs.csv``: it ran once on a machine with
one NVIDIA H200 (no network), and anyone with a GPU, torch, transformers and nvidia-ml-py can run
it again::

    python data/scripts/measure_h200_transformers.py --out results/ [--budget-s 330]

What it does, per model and per (batch, prompt tokens) point:

- builds the model from its published ``config.json`` (the copies in ``tests/fixtures/configs``,
  see that folder's README) with **random weights** in bfloat16 on the GPU: the bytes read and
  the FLOPs of a decode step do not depend on the weights' values;
- prefills ``batch`` random prompts of ``prompt_tokens`` tokens in one forward (time = the
  prefill, reported, not a TTFT of a server), then runs a few warm-up decode steps;
- times a window of greedy decode steps (``torch.cuda.synchronize`` before and after; no host
  sync inside the window): ITL = window / steps, for every sequence of the batch at once — a
  static batch, all sequences in flight, no scheduler (``harness`` fixed_batch);
- power: the GPU's cumulative energy counter (``nvmlDeviceGetTotalEnergyConsumption``, mJ) read
  at the window's ends, mean power = ΔE / Δt (board power, one GPU); NVML's power reading is
  sampled every 20 ms beside it as a check.

Eager PyTorch, no CUDA graphs, no paged attention, transformers' own DynamicCache: a harness whose
host time per step (Python and kernel launches) is large, which is why it is a *separate source*
for the kit and never pooled with engine runs without its own constants.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "tests" / "fixtures" / "configs"

# (config file, grid name): the models, in the order they are measured (most useful first)
MODELS = [
    ("meta-llama__Llama-3.1-8B.json", "full"),
    ("Qwen__Qwen2.5-32B.json", "full"),
    ("Qwen__Qwen3-30B-A3B.json", "moe"),
    ("mistralai__Mistral-7B-Instruct-v0.3.json", "full"),
    ("Qwen__Qwen3-8B.json", "full"),
]
# (batch, prompt tokens): short prompts over batch 1..256, then long prompts
GRIDS = {
    "full": [
        (1, 512),
        (2, 512),
        (4, 512),
        (8, 512),
        (16, 512),
        (32, 512),
        (64, 512),
        (128, 256),
        (256, 256),
        (1, 2048),
        (8, 2048),
        (32, 2048),
        (1, 8192),
        (8, 8192),
    ],
    "moe": [(1, 512), (4, 512), (16, 512), (64, 512), (256, 256), (1, 8192), (8, 8192)],
}
WARM_STEPS = 4
WINDOW_S = 1.5
MIN_STEPS = 12
MEM_CAP_BYTES = 120e9  # skip a point whose weights + KV + prefill activations would pass this
FIELDS = [
    "model_hf_id",
    "config_file",
    "batch_size",
    "prompt_tokens",
    "warm_steps",
    "decode_steps",
    "mean_context_tokens",
    "itl_ms",
    "prefill_s",
    "window_s",
    "energy_j",
    "power_w",
    "power_w_sampled",
    "sm_clock_mhz",
    "mem_clock_mhz",
    "temperature_c",
    "peak_memory_gb",
    "status",
]


def hf_id(config_file: str) -> str:
    return config_file.removesuffix(".json").replace("__", "/", 1)


def kv_bytes_per_token(cfg: dict) -> float:
    """2 (K and V) × layers × KV heads × head dim × 2 bytes (bfloat16)."""
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    kv_heads = cfg.get("num_key_value_heads") or cfg["num_attention_heads"]
    return 2 * cfg["num_hidden_layers"] * kv_heads * head_dim * 2


def fits(cfg: dict, weight_bytes: float, batch: int, prompt: int) -> bool:
    """Weights + the KV cache at the window's end + the prefill's MLP activations ≤ the cap."""
    tokens = batch * (prompt + 400)
    inter = cfg.get("intermediate_size", 4 * cfg["hidden_size"])
    act = batch * prompt * (3 * inter + 4 * cfg["hidden_size"]) * 2
    return weight_bytes + tokens * kv_bytes_per_token(cfg) + act <= MEM_CAP_BYTES


class PowerSampler(threading.Thread):
    """NVML power readings (W) every 20 ms while ``on`` is set."""

    def __init__(self, nvml, handle):
        super().__init__(daemon=True)
        self.nvml, self.handle = nvml, handle
        self.on = threading.Event()
        self.stop = threading.Event()
        self.readings: list[float] = []

    def run(self):
        while not self.stop.is_set():
            if self.on.is_set():
                try:
                    self.readings.append(self.nvml.nvmlDeviceGetPowerUsage(self.handle) / 1e3)
                except Exception:  # noqa: BLE001 - a missed reading is only a missed reading
                    pass
            time.sleep(0.02)


def energy_mj(nvml, handle) -> float:
    return float(nvml.nvmlDeviceGetTotalEnergyConsumption(handle))


def build_model(torch, transformers, config_file: str):
    raw = json.loads((CONFIGS / config_file).read_text())
    raw.pop("quantization_config", None)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "config.json").write_text(json.dumps(raw))
        cfg = transformers.AutoConfig.from_pretrained(tmp)
    torch.set_default_dtype(torch.bfloat16)
    with torch.device("cuda"):
        try:
            model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16)
        except TypeError:
            model = transformers.AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.bfloat16)
    torch.set_default_dtype(torch.float32)
    model.eval()
    return model, raw


def measure_point(torch, model, raw, batch, prompt, nvml, handle, sampler) -> dict:
    vocab = raw["vocab_size"]
    gen = torch.Generator(device="cuda").manual_seed(batch * 100_003 + prompt)
    ids = torch.randint(0, vocab, (batch, prompt), device="cuda", generator=gen)
    torch.cuda.reset_peak_memory_stats()
    with torch.inference_mode():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = model(input_ids=ids, use_cache=True, logits_to_keep=1)
        nxt = out.logits[:, -1].argmax(-1, keepdim=True)
        torch.cuda.synchronize()
        prefill_s = time.perf_counter() - t0
        cache = out.past_key_values
        del out
        for _ in range(WARM_STEPS):
            out = model(input_ids=nxt, past_key_values=cache, use_cache=True)
            nxt = out.logits[:, -1].argmax(-1, keepdim=True)
        torch.cuda.synchronize()
        sampler.readings.clear()
        sampler.on.set()
        e0, t0 = energy_mj(nvml, handle), time.perf_counter()
        steps = 0
        while True:
            for _ in range(4):
                out = model(input_ids=nxt, past_key_values=cache, use_cache=True)
                nxt = out.logits[:, -1].argmax(-1, keepdim=True)
            steps += 4
            torch.cuda.synchronize()
            if time.perf_counter() - t0 >= WINDOW_S and steps >= MIN_STEPS:
                break
        t1, e1 = time.perf_counter(), energy_mj(nvml, handle)
        sampler.on.clear()
    window_s = t1 - t0
    readings = list(sampler.readings)
    return {
        "batch_size": batch,
        "prompt_tokens": prompt,
        "warm_steps": WARM_STEPS,
        "decode_steps": steps,
        "mean_context_tokens": prompt + WARM_STEPS + (steps + 1) / 2,
        "itl_ms": 1e3 * window_s / steps,
        "prefill_s": prefill_s,
        "window_s": window_s,
        "energy_j": (e1 - e0) / 1e3,
        "power_w": (e1 - e0) / 1e3 / window_s,
        "power_w_sampled": sum(readings) / len(readings) if readings else float("nan"),
        "sm_clock_mhz": nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_SM),
        "mem_clock_mhz": nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_MEM),
        "temperature_c": nvml.nvmlDeviceGetTemperature(handle, nvml.NVML_TEMPERATURE_GPU),
        "peak_memory_gb": torch.cuda.max_memory_allocated() / 1e9,
        "status": "ok",
    }


def idle_power(nvml, handle, seconds: float = 4.0) -> dict:
    """Mean board power over ``seconds`` with the CUDA context open and nothing running."""
    e0, t0 = energy_mj(nvml, handle), time.perf_counter()
    samples = []
    while time.perf_counter() - t0 < seconds:
        samples.append(nvml.nvmlDeviceGetPowerUsage(handle) / 1e3)
        time.sleep(0.05)
    t1, e1 = time.perf_counter(), energy_mj(nvml, handle)
    return {
        "idle_power_w": (e1 - e0) / 1e3 / (t1 - t0),
        "idle_power_w_sampled": sum(samples) / len(samples),
        "idle_window_s": t1 - t0,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--budget-s", type=float, default=330.0, help="start no new point after this many seconds"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    import pynvml as nvml
    import torch
    import transformers

    args.out.mkdir(parents=True, exist_ok=True)
    nvml.nvmlInit()
    handle = nvml.nvmlDeviceGetHandleByIndex(0)
    torch.cuda.init()
    torch.zeros(1, device="cuda")
    meta = {
        "gpu_name": nvml.nvmlDeviceGetName(handle),
        "driver": nvml.nvmlSystemGetDriverVersion(),
        "power_limit_w": nvml.nvmlDeviceGetEnforcedPowerLimit(handle) / 1e3,
        "memory_total_gb": nvml.nvmlDeviceGetMemoryInfo(handle).total / 1e9,
        "max_sm_clock_mhz": nvml.nvmlDeviceGetMaxClockInfo(handle, nvml.NVML_CLOCK_SM),
        "max_mem_clock_mhz": nvml.nvmlDeviceGetMaxClockInfo(handle, nvml.NVML_CLOCK_MEM),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "cuda": torch.version.cuda,
        "python": sys.version.split()[0],
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    meta.update(idle_power(nvml, handle))
    print(json.dumps(meta), flush=True)
    (args.out / "meta.json").write_text(json.dumps(meta, indent=1))
    sampler = PowerSampler(nvml, handle)
    sampler.start()
    path = args.out / "runs.csv"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        for config_file, grid in MODELS:
            if time.perf_counter() - start > args.budget_s:
                break
            t0 = time.perf_counter()
            try:
                model, raw = build_model(torch, transformers, config_file)
            except Exception as exc:  # noqa: BLE001 - recorded, the next model is tried
                print(f"{config_file}: build failed: {exc!r}", flush=True)
                writer.writerow(
                    {
                        "model_hf_id": hf_id(config_file),
                        "config_file": config_file,
                        "status": f"build failed: {type(exc).__name__}: {exc}"[:300],
                    }
                )
                fh.flush()
                continue
            weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
            print(
                f"{config_file}: built in {time.perf_counter() - t0:.1f} s, "
                f"{weight_bytes / 1e9:.2f} GB",
                flush=True,
            )
            for batch, prompt in GRIDS[grid]:
                if time.perf_counter() - start > args.budget_s:
                    break
                row = {
                    "model_hf_id": hf_id(config_file),
                    "config_file": config_file,
                    "batch_size": batch,
                    "prompt_tokens": prompt,
                }
                if not fits(raw, weight_bytes, batch, prompt):
                    row["status"] = "skipped: over the memory cap"
                else:
                    try:
                        row.update(
                            measure_point(torch, model, raw, batch, prompt, nvml, handle, sampler)
                        )
                    except Exception as exc:  # noqa: BLE001 - recorded, the next point is tried
                        row["status"] = f"failed: {type(exc).__name__}: {exc}"[:300]
                    torch.cuda.empty_cache()
                print(
                    {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()},
                    flush=True,
                )
                writer.writerow(row)
                fh.flush()
            del model
            torch.cuda.empty_cache()
    sampler.stop.set()
    meta["finished_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    meta["elapsed_s"] = time.perf_counter() - start
    (args.out / "meta.json").write_text(json.dumps(meta, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
