"""The kit's own H200 measurements (data/h200_decode_measurements.csv): physically possible, and
the rows of data/external_measurements.csv built from them are exactly what the build script writes."""

from __future__ import annotations

import csv
import json

import data_scripts
import numpy as np
import pandas as pd
import pytest

from wattgpu_lite.datafiles import data_dir, read_bytes, read_csv
from wattgpu_lite.specs.catalog import gpu, llm


@pytest.fixture(scope="module")
def build():
    return data_scripts.load("build_h200_tables")


@pytest.fixture(scope="module")
def measured() -> pd.DataFrame:
    table = read_csv(data_dir() / "h200_decode_measurements.csv")
    return table[table["status"] == "ok"].reset_index(drop=True)


def test_every_point_is_measured_or_says_why(build):
    table = read_csv(data_dir() / "h200_decode_measurements.csv")
    assert list(table.columns) == build.COLUMNS
    assert set(table["harness"]) == {build.GRAPHS, build.EAGER}
    reasons = set(table.loc[table["status"] != "ok", "status"])
    assert reasons == {"skipped: over the memory cap"}
    assert (table["status"] == "ok").sum() == 156


def test_no_step_beats_the_bytes_it_must_read(measured):
    """ITL ≥ (weights + KV cache) bytes / the H200's peak bandwidth: every measured step reads
    every weight once and the whole KV cache of its batch."""
    h200 = gpu("H200 SXM")
    bits = measured["weights"].map({"bf16": 16, "fp8": 8}).to_numpy()
    params = np.array([llm(name).params_b * 1e9 for name in measured["model_hf_id"]])
    kv = np.array([llm(name).kv_bytes_per_token for name in measured["model_hf_id"]])
    moe = np.array([llm(name).n_experts > 0 for name in measured["model_hf_id"]])
    active = np.array([llm(name).params_active_b * 1e9 for name in measured["model_hf_id"]])
    weight_bytes = np.where(moe, active, params) * bits / 8
    kv_bytes = kv * measured["batch_size"].to_numpy() * measured["context_tokens"].to_numpy()
    floor_s = (weight_bytes + kv_bytes) / (h200.bandwidth_gbs * 1e9)
    ratio = measured["itl_ms"].to_numpy() / 1e3 / floor_s
    assert ratio.min() > 1.0
    assert ratio.min() < 2.5  # the graph harness comes within 2.5x of the bytes floor somewhere


def test_power_lies_between_the_idle_measured_and_a_short_boost_over_the_limit(measured):
    meta = json.loads(read_bytes(data_dir() / "h200_meta.json"))
    idle_w = min(m["idle_power_w"] for m in meta.values())
    limit_w = {m["power_limit_w"] for m in meta.values()}
    assert limit_w == {700.0}
    assert measured["power_w"].min() > idle_w
    # the energy counter over a 1.2-1.4 s window may average a few % over the enforced limit
    assert measured["power_w"].max() <= 1.05 * 700.0


def test_eager_steps_are_bound_by_the_host_not_the_gpu(measured, build):
    """The same model, batch and context: the eager loop's step is several times the graph's."""
    eager = measured[measured["harness"] == build.EAGER]
    graphs = measured[(measured["harness"] == build.GRAPHS) & (measured["weights"] == "bf16")]
    eager = eager.assign(context_tokens=eager["prompt_tokens"])
    pairs = eager.merge(
        graphs, on=["model_hf_id", "batch_size", "context_tokens"], suffixes=("_eager", "_graphs")
    )
    assert len(pairs) >= 20
    ratio = pairs["itl_ms_eager"] / pairs["itl_ms_graphs"]
    assert ratio.min() > 2.0


def test_external_rows_are_the_build_scripts(build):
    """Byte for byte: the lines of external_measurements.csv from this source are the script's."""
    lines = read_bytes(data_dir() / "external_measurements.csv").decode().splitlines(keepends=True)
    header = next(csv.reader([lines[0]]))
    title_at = header.index("source_title")
    ours = [
        line for line in lines[1:] if next(csv.reader([line]))[title_at] in build.TITLE.values()
    ]
    expected = build.shipped_external_rows()[header].to_csv(index=False, header=False)
    assert len(ours) == 94  # the graph harness's measured points; the eager host is not modelled
    assert "".join(ours) == expected


def test_the_eager_host_costs_energy_per_token_as_well_as_time():
    """Llama-3.1-8B on the H200: the eager loop's steps take longer and its GPU draws less, yet
    each token costs more energy than the graph decoder's at the same batch and context."""
    from wattgpu_lite.hybrid.report.external_per_gpu import h200_harness_pairs

    pairs = h200_harness_pairs("meta-llama/Llama-3.1-8B")
    assert len(pairs) == 12
    assert (pairs["itl_ms_eager"] > 2 * pairs["itl_ms_graphs"]).all()
    assert (pairs["power_w_eager"] < pairs["power_w_graphs"]).all()
    assert (pairs["energy_per_token_j_eager"] > pairs["energy_per_token_j_graphs"]).all()
