"""The external check per GPU: the hybrid beside the backbone alone, a plain roofline and EcoLogits.

For each GPU and quantity (ITL, throughput, power, J/token): rows, median absolute percentage error
(MdAPE), 80 % coverage and median interval width hi/lo of the hybrid (backbone + correction) and of
the backbone alone; the plain roofline's MdAPE, and EcoLogits' on the energy rows.

The plain roofline answers the same question (same GPUs, same sequences in flight B — the kit's, so
a rate row's load comes from the backbone's Little's law — same tokens), with no fitted constant:

    step t = max(W·b_w + B·(T_in + T_out/2)·kv, 2·N_active·B / (G·F)) / (G·BW) on bytes, FLOPs
    ITL = t, throughput = replicas · B / t, power = G · TDP (in scope), J/token = power / throughput

with W the active weights, b_w bytes per weight of the served format (16-bit 2, FP8 1, FP4 4.25 bits
with its scales), kv the KV bytes per token, BW the HBM bandwidth and F the peak FLOP/s of the
format (FP16 where the GPU has no faster one).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd

from wattgpu_lite.datafiles import data_dir, read_csv
from wattgpu_lite.energy.backbone import training_runs
from wattgpu_lite.hybrid.report import external, external_scope
from wattgpu_lite.specs.catalog import gpu, llm

BYTES_PER_WEIGHT = {"bf16": 2.0, "fp8": 1.0, "mxfp4": 4.25 / 8, "nvfp4": 4.5 / 8}


def peak_flops(device, weights: str) -> float:
    """Peak FLOP/s of one GPU in the served format (FP16 when the GPU has no faster one)."""
    tflops = {"fp8": device.fp8_tflops, "mxfp4": device.fp4_tflops, "nvfp4": device.fp4_tflops}
    value = tflops.get(weights, np.nan)
    return float(value if np.isfinite(value) else device.fp16_tflops) * 1e12


def roofline_step_s(question: pd.Series, in_flight: float) -> float:
    """One decode step of B sequences on G GPUs, bytes or FLOPs bound (module docstring)."""
    m, g, n = llm(question["llm"]), gpu(question["gpu"]), question["num_gpus"]
    active = m.params_active_b * 1e9
    ctx = question["t_in"] + question["t_out"] / 2
    read = active * BYTES_PER_WEIGHT[question["weights"]] + in_flight * ctx * m.kv_bytes_per_token
    flops = 2 * active * in_flight
    return max(read / (n * g.bandwidth_gbs * 1e9), flops / (n * peak_flops(g, question["weights"])))


def roofline(rows: pd.DataFrame, frame: pd.DataFrame, pred: pd.DataFrame) -> dict[str, np.ndarray]:
    """The plain roofline's answer per quantity, in each measurement's scope."""
    load = pred["in_flight"].to_numpy(dtype=float)
    step = np.array(
        [
            roofline_step_s(q, b) if np.isfinite(b) else np.nan
            for (_, q), b in zip(frame.iterrows(), load, strict=True)
        ]
    )
    reps = rows["replicas"].to_numpy(dtype=float)
    g = frame["num_gpus"].to_numpy(dtype=float)
    tdp = np.array([gpu(name).tdp_w for name in frame["gpu"]]) * g
    thr = reps * load / step
    power, energy = (
        external_scope.scope_factor(rows[c], reps, g) * tdp for c in ("power_scope", "energy_scope")
    )
    return {
        "itl_s": step,
        "throughput_tokens_per_s": thr,
        "power_w": power,
        "energy_per_token_j": energy / thr,
    }


@cache
def roofline_frame() -> pd.DataFrame:
    """Long frame (row index in the asked rows, quantity, roofline) on the same rows as compare()."""
    keep, frame = external.asked()
    rows = external.table().iloc[keep].reset_index(drop=True)
    answer = roofline(rows, frame, external._predicted(0.8, True))
    return pd.concat(
        [
            pd.DataFrame({"ask": np.arange(len(rows)), "quantity": q, "roofline": v})
            for q, v in answer.items()
        ],
        ignore_index=True,
    )


def _scores(ext: pd.DataFrame, tag: str, key: str) -> pd.DataFrame:
    """Rows, MdAPE, median predicted/measured, coverage and median width per (``key``,
    quantity), columns suffixed by ``tag``."""
    ext = ext.assign(ratio=ext["predicted"] / ext["measured"])
    return (
        ext.groupby([key, "quantity"])
        .agg(
            rows=("ape_pct", "size"),
            mdape=("ape_pct", "median"),
            ratio=("ratio", "median"),
            coverage80=("covered", "mean"),
            width=("width", "median"),
        )
        .add_suffix(f"_{tag}")
        .rename(columns={f"rows_{tag}": "rows"})
    )


def baselines(hybrid: pd.DataFrame, key: str) -> pd.DataFrame:
    """Roofline and EcoLogits MdAPE per (``key``, quantity) on the hybrid's rows."""
    roof = roofline_frame().set_index(["ask", "quantity"])["roofline"]
    rl = roof.reindex(pd.MultiIndex.from_frame(hybrid[["ask", "quantity"]])).to_numpy()
    out = hybrid.assign(
        roofline_ape=np.abs(rl / hybrid["measured"] - 1) * 100,
        ecologits_ape=(hybrid["ecologits"] / hybrid["measured"] - 1).abs() * 100,
    )
    return out.groupby([key, "quantity"]).agg(
        mdape_roofline=("roofline_ape", "median"), mdape_ecologits=("ecologits_ape", "median")
    )


def _report(key: str, level: float) -> pd.DataFrame:
    """The hybrid, the backbone alone, the roofline and EcoLogits per (``key``, quantity)."""
    hybrid, backbone = external.compare(level, True), external.compare(level, False)
    table = _scores(hybrid, "hybrid", key).join(
        _scores(backbone, "backbone", key).drop(columns="rows")
    )
    return table.join(baselines(hybrid, key)).reset_index()


def per_gpu(level: float = 0.8) -> pd.DataFrame:
    """Per GPU as asked (the catalog board; a source that does not state the form factor is read as
    SXM) and quantity, with whether training saw it: hybrid, backbone alone, roofline,
    EcoLogits (see the module docstring)."""
    table = _report("gpu_asked", level).rename(columns={"gpu_asked": "gpu"})
    boards = set(training_runs.measured_boards().values())  # the spec rows the hybrid trained on
    trained = {name: name in boards for name in table["gpu"].unique()}
    return table.assign(in_training=table["gpu"].map(trained))


def per_source(level: float = 0.8) -> pd.DataFrame:
    """Per source (``source_title``) and quantity: the same columns as :func:`per_gpu`'s, without
    the training flag (a source may cover several GPUs)."""
    return _report("source_title", level).rename(columns={"source_title": "source"})


def _source_name(title: str) -> str:
    """A source title's name: up to the first ":", " (" or " '"."""
    cuts = [i for i in (title.find(":"), title.find(" ("), title.find(" '")) if i > 0]
    return title[: min(cuts, default=len(title))]


def _source_part(title: str) -> str:
    """What tells a source from another of the same name: the text after the last " - ", else
    after a quoted title (up to its date), else the last two steps of the path in parentheses."""
    if " - " in title:
        return title.rsplit(" - ", 1)[1]
    if "', " in title:
        return title.rsplit("', ", 1)[1].split(" (")[0]
    inner = title[title.rindex("(") + 1 : -1] if title.endswith(")") else ""
    return "/".join(inner.split("/")[-2:])


def source_labels(titles, width: int = 70) -> dict[str, str]:
    """A short, distinct label per source title: its name, with its part where several sources
    share the name, at most ``width`` characters."""
    titles = list(dict.fromkeys(titles))
    names = [_source_name(t) for t in titles]
    labels = {}
    for title, name in zip(titles, names, strict=True):
        label = f"{name}, {_source_part(title)}" if names.count(name) > 1 else name
        labels[title] = label if len(label) <= width else label[: width - 1] + "…"
    return labels


def h200_harness_pairs(model_hf_id: str = "meta-llama/Llama-3.1-8B") -> pd.DataFrame:
    """The kit's H200 measurements (``data/h200_decode_measurements.csv``) of one BF16 model, the
    eager transformers loop beside the CUDA-graph decoder at the same batch and context: ITL (ms),
    board power (W) and energy per output token P · ITL / B (J) of each, indexed by (batch,
    context tokens)."""
    table = read_csv(data_dir() / "h200_decode_measurements.csv")
    ok = table[
        (table["model_hf_id"] == model_hf_id)
        & (table["weights"] == "bf16")
        & (table["status"] == "ok")
    ]
    eager = ok[ok["harness"] == "transformers_eager"]
    eager = eager.assign(context_tokens=eager["prompt_tokens"].astype(float))
    graphs = ok[ok["harness"] == "cuda_graphs_decoder"]
    pair = eager.merge(graphs, on=["batch_size", "context_tokens"], suffixes=("_eager", "_graphs"))
    for run in ("eager", "graphs"):
        pair[f"energy_per_token_j_{run}"] = (
            pair[f"power_w_{run}"] * pair[f"itl_ms_{run}"] / 1e3 / pair["batch_size"]
        )
    cols = [
        f"{q}_{run}"
        for q in ("itl_ms", "power_w", "energy_per_token_j")
        for run in ("eager", "graphs")
    ]
    return pair.set_index(["batch_size", "context_tokens"])[cols]
