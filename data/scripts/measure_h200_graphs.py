"""Measure one decode step's latency and NVML power on one GPU, harness "PyTorch decoder, CUDA graphs".

The scripted source of ``data/h200_graph_steps.csv`` (run once on a machine with one NVIDIA H200,
no network; anyone with a GPU, torch and nvidia-ml-py can run it again)::

    python data/scripts/measure_h200_graphs.py --out results/ [--budget-s 240]

The eager harness beside it (``measure_h200_transformers.py``) is bound by the host: every
kernel is launched from Python, 40-100 ms a step on this machine whatever the model. This one
measures the GPU's side of a decode step, as engines run it (CUDA graphs, no host work inside a
step):

- a dense decoder written here from a model's published ``config.json`` (the copies in
  ``tests/fixtures/configs``): embeddings, per layer RMSNorm, one fused QKV projection (with the
  config's bias, and Qwen3's per-head q/k RMSNorm), rotary embedding, a KV cache of a fixed
  ``context`` tokens per sequence, attention over all of it
  (``torch.nn.functional.scaled_dot_product_attention``, each KV head's query heads taken as its
  query rows, so no KV head is copied), the output projection,
  a gated SiLU MLP with gate and up fused, and the LM head with a greedy argmax; random
  weights (bytes and FLOPs do not depend on their values);
- one step (write one token's K and V into the cache at a slot that cycles through the context,
  then attend over the whole context) is captured in a CUDA graph per (batch, context) and
  replayed: ITL = window / steps at a constant context, every sequence of the batch in flight;
- weights in bfloat16, or in FP8 (e4m3, per-tensor scale, ``torch._scaled_mm`` with the
  activations cast to FP8: W8A8); KV cache in bfloat16. FP8 GEMMs need a row count that is a
  multiple of 16, so an FP8 batch is padded to one (``rows_computed``);
- power: the GPU's cumulative energy counter (``nvmlDeviceGetTotalEnergyConsumption``) at the
  window's ends, mean power = ΔE / Δt (board power of one GPU).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure_h200_transformers import CONFIGS, PowerSampler, energy_mj, hf_id, idle_power  # noqa: E402

# (config file, weight formats): the models, most useful first
MODELS = [
    ("meta-llama__Llama-3.1-8B.json", ("bf16", "fp8")),
    ("Qwen__Qwen2.5-32B.json", ("bf16", "fp8")),
    ("Qwen__Qwen3-8B.json", ("bf16",)),
    ("mistralai__Mistral-7B-Instruct-v0.3.json", ("bf16",)),
]
GRID = [
    (1, 512),
    (2, 512),
    (4, 512),
    (8, 512),
    (16, 512),
    (32, 512),
    (64, 512),
    (128, 512),
    (256, 512),
    (1, 2048),
    (8, 2048),
    (32, 2048),
    (128, 2048),
    (1, 8192),
    (8, 8192),
    (32, 8192),
]
WINDOW_S = 1.2
MEM_CAP_BYTES = 125e9
FIELDS = [
    "model_hf_id",
    "config_file",
    "weights",
    "batch_size",
    "rows_computed",
    "context_tokens",
    "decode_steps",
    "itl_ms",
    "window_s",
    "energy_j",
    "power_w",
    "power_w_sampled",
    "sm_clock_mhz",
    "temperature_c",
    "weight_gb",
    "kv_cache_gb",
    "status",
]


class Decoder:
    """A dense decoder's weights (random) and one graph-capturable decode step."""

    def __init__(self, torch, cfg: dict, weights: str):
        self.torch, self.cfg, self.weights = torch, cfg, weights
        d, n_layers = cfg["hidden_size"], cfg["num_hidden_layers"]
        self.heads = cfg["num_attention_heads"]
        self.kv_heads = cfg.get("num_key_value_heads") or self.heads
        self.head_dim = cfg.get("head_dim") or d // self.heads
        inter, vocab = cfg["intermediate_size"], cfg["vocab_size"]
        self.qk_norm = cfg["model_type"] == "qwen3"
        self.bias = bool(cfg.get("attention_bias")) or cfg["model_type"] == "qwen2"
        self.eps = cfg.get("rms_norm_eps", 1e-6)
        qkv_out = (self.heads + 2 * self.kv_heads) * self.head_dim
        self.embed = self.param(vocab, d, plain=True)
        self.layers = [
            {
                "qkv": self.param(d, qkv_out),
                "o": self.param(self.heads * self.head_dim, d),
                "gate_up": self.param(d, 2 * inter),
                "down": self.param(inter, d),
                "qkv_bias": self.randn(qkv_out) if self.bias else None,
                "norm1": self.ones(d),
                "norm2": self.ones(d),
                "q_norm": self.ones(self.head_dim),
                "k_norm": self.ones(self.head_dim),
            }
            for _ in range(n_layers)
        ]
        self.final_norm = self.ones(d)
        self.head = self.param(d, vocab)
        theta = cfg.get("rope_theta", 10000.0)
        inv = 1.0 / theta ** (torch.arange(0, self.head_dim, 2, device="cuda") / self.head_dim)
        ang = torch.arange(cfg.get("max_position_embeddings", 32768), device="cuda")[:, None] * inv
        ang = torch.cat([ang, ang], -1)
        self.cos, self.sin = ang.cos().to(torch.bfloat16), ang.sin().to(torch.bfloat16)
        self.one = torch.ones((), device="cuda", dtype=torch.float32)

    def randn(self, *shape):
        return self.torch.randn(*shape, device="cuda", dtype=self.torch.bfloat16) * 0.02

    def ones(self, n):
        return self.torch.ones(n, device="cuda", dtype=self.torch.bfloat16)

    def param(self, k: int, n: int, plain: bool = False):
        """A (k → n) weight: bf16 as (k, n); FP8 as (n, k) row-major, used transposed."""
        if self.weights == "fp8" and not plain:
            return self.randn(n, k).to(self.torch.float8_e4m3fn)
        return self.randn(k, n)

    def weight_bytes(self) -> int:
        tensors = [self.embed, self.head, self.final_norm]
        for layer in self.layers:
            tensors += [t for t in layer.values() if t is not None]
        return sum(t.numel() * t.element_size() for t in tensors)

    def linear(self, x, w):
        if self.weights == "fp8":
            return self.torch._scaled_mm(
                x.to(self.torch.float8_e4m3fn),
                w.t(),
                scale_a=self.one,
                scale_b=self.one,
                out_dtype=self.torch.bfloat16,
            )
        return x @ w

    def rms(self, x, w):
        var = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * self.torch.rsqrt(var + self.eps)).to(x.dtype) * w

    def rotate(self, x, cos, sin):
        half = x.shape[-1] // 2
        return x * cos + self.torch.cat([-x[..., half:], x[..., :half]], -1) * sin

    def new_cache(self, rows: int, context: int):
        shape = (rows, self.kv_heads, context, self.head_dim)
        return [(self.randn(*shape), self.randn(*shape)) for _ in self.layers]

    def step(self, tok, slot, cache, position: int):
        """One decode step for ``tok`` (rows,): KV written at ``slot``, attention over the cache."""
        f = self.torch.nn.functional
        rows, hd = tok.shape[0], self.head_dim
        cos = self.cos[position].view(1, 1, 1, hd)
        sin = self.sin[position].view(1, 1, 1, hd)
        x = self.embed[tok]
        for layer, (k_cache, v_cache) in zip(self.layers, cache, strict=True):
            qkv = self.linear(self.rms(x, layer["norm1"]), layer["qkv"])
            if layer["qkv_bias"] is not None:
                qkv = qkv + layer["qkv_bias"]
            q, k, v = qkv.split([self.heads * hd, self.kv_heads * hd, self.kv_heads * hd], -1)
            # grouped-query attention for one new token: each KV head's query heads are its
            # "query positions", so no KV head is repeated and no mask is needed
            q = q.view(rows, self.kv_heads, self.heads // self.kv_heads, hd)
            k = k.view(rows, self.kv_heads, 1, hd)
            v = v.view(rows, self.kv_heads, 1, hd)
            if self.qk_norm:
                q, k = self.rms(q, layer["q_norm"]), self.rms(k, layer["k_norm"])
            q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
            k_cache.index_copy_(2, slot, k)
            v_cache.index_copy_(2, slot, v)
            att = f.scaled_dot_product_attention(q, k_cache, v_cache)
            x = x + self.linear(att.reshape(rows, self.heads * hd), layer["o"])
            gate, up = self.linear(self.rms(x, layer["norm2"]), layer["gate_up"]).chunk(2, -1)
            x = x + self.linear(f.silu(gate) * up, layer["down"])
        logits = self.linear(self.rms(x, self.final_norm), self.head)
        return logits.argmax(-1)


def measure_point(torch, dec: Decoder, batch: int, context: int, nvml, handle, sampler) -> dict:
    rows = -(-batch // 16) * 16 if dec.weights == "fp8" else batch
    cache = dec.new_cache(rows, context)
    tok = torch.randint(0, dec.cfg["vocab_size"], (rows,), device="cuda")
    slot = torch.zeros(1, dtype=torch.long, device="cuda")
    position = context - 1

    def one_step():
        nxt = dec.step(tok, slot, cache, position)
        tok.copy_(nxt)
        slot.add_(1).remainder_(context)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.inference_mode():
        for _ in range(3):
            one_step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.inference_mode():
        with torch.cuda.graph(graph):
            one_step()
        for _ in range(5):
            graph.replay()
        torch.cuda.synchronize()
        sampler.readings.clear()
        sampler.on.set()
        e0, t0 = energy_mj(nvml, handle), time.perf_counter()
        steps = 0
        while time.perf_counter() - t0 < WINDOW_S or steps < 32:
            for _ in range(16):
                graph.replay()
            steps += 16
            torch.cuda.synchronize()
        t1, e1 = time.perf_counter(), energy_mj(nvml, handle)
        sampler.on.clear()
    readings = list(sampler.readings)
    kv_gb = sum(k.numel() * k.element_size() * 2 for k, _ in cache) / 1e9
    del graph
    return {
        "rows_computed": rows,
        "decode_steps": steps,
        "itl_ms": 1e3 * (t1 - t0) / steps,
        "window_s": t1 - t0,
        "energy_j": (e1 - e0) / 1e3,
        "power_w": (e1 - e0) / 1e3 / (t1 - t0),
        "power_w_sampled": sum(readings) / len(readings) if readings else float("nan"),
        "sm_clock_mhz": nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_SM),
        "temperature_c": nvml.nvmlDeviceGetTemperature(handle, nvml.NVML_TEMPERATURE_GPU),
        "kv_cache_gb": kv_gb,
        "status": "ok",
    }


def kv_bytes(dec: Decoder, rows: int, context: int) -> float:
    return 2 * len(dec.layers) * rows * dec.kv_heads * context * dec.head_dim * 2


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--budget-s", type=float, default=240.0, help="start no new point after this many seconds"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    import pynvml as nvml
    import torch

    args.out.mkdir(parents=True, exist_ok=True)
    nvml.nvmlInit()
    handle = nvml.nvmlDeviceGetHandleByIndex(0)
    torch.zeros(1, device="cuda")
    torch.manual_seed(0)
    meta = {
        "gpu_name": nvml.nvmlDeviceGetName(handle),
        "driver": nvml.nvmlSystemGetDriverVersion(),
        "power_limit_w": nvml.nvmlDeviceGetEnforcedPowerLimit(handle) / 1e3,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    meta.update(idle_power(nvml, handle, seconds=3.0))
    print(json.dumps(meta), flush=True)
    sampler = PowerSampler(nvml, handle)
    sampler.start()
    with (args.out / "graph_steps.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        for config_file, formats in MODELS:
            cfg = json.loads((CONFIGS / config_file).read_text())
            for weights in formats:
                if time.perf_counter() - start > args.budget_s:
                    break
                try:
                    dec = Decoder(torch, cfg, weights)
                except Exception as exc:  # noqa: BLE001 - recorded, the next one is tried
                    writer.writerow(
                        {
                            "model_hf_id": hf_id(config_file),
                            "weights": weights,
                            "config_file": config_file,
                            "status": f"build failed: {type(exc).__name__}: {exc}"[:300],
                        }
                    )
                    continue
                weight_b = dec.weight_bytes()
                for batch, context in GRID:
                    if time.perf_counter() - start > args.budget_s:
                        break
                    row = {
                        "model_hf_id": hf_id(config_file),
                        "config_file": config_file,
                        "weights": weights,
                        "batch_size": batch,
                        "context_tokens": context,
                        "weight_gb": weight_b / 1e9,
                    }
                    rows = -(-batch // 16) * 16 if weights == "fp8" else batch
                    if weight_b + kv_bytes(dec, rows, context) > MEM_CAP_BYTES:
                        row["status"] = "skipped: over the memory cap"
                    else:
                        try:
                            row.update(
                                measure_point(torch, dec, batch, context, nvml, handle, sampler)
                            )
                        except Exception as exc:  # noqa: BLE001 - recorded, the next is tried
                            row["status"] = f"failed: {type(exc).__name__}: {exc}"[:300]
                            torch.cuda.synchronize()
                        torch.cuda.empty_cache()
                    print(
                        {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()},
                        flush=True,
                    )
                    writer.writerow(row)
                    fh.flush()
                del dec
                torch.cuda.empty_cache()
    sampler.stop.set()
    meta["elapsed_s"] = time.perf_counter() - start
    (args.out / "graph_meta.json").write_text(json.dumps(meta, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
