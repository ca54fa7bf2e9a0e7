"""Named request workloads: data/workloads.csv agrees with the traces it cites,
``workload=`` / ``--workload`` / ``workload = "..."`` in wattgpu-lite.toml give the same answer, a
count given wins over the workload's, every result echoes the workload it used, and an unknown
name is one error with its close matches. The default stays ``watt-counts``."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest

import wattgpu_lite as wl
from tests.cli_runner import one_error_line, run_cli
from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.face.cli.main import main
from wattgpu_lite.specs.workload import (
    DEFAULT_T_IN,
    DEFAULT_T_OUT,
    DEFAULT_WORKLOAD,
    WORKLOAD_COLUMNS,
    UnknownWorkloadError,
    request_tokens,
    workload,
    workloads,
)

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
AZURE = "github.com/Azure/AzurePublicDataset at commit b469a113cedca53ddc3bdea71a143dc4b7d8700c"
# The figures of the published Azure 2023 trace files (AzurePublicDataset, the commit above):
# requests, then the mean and median of ContextTokens and GeneratedTokens over every row of
# data/AzureLLMInferenceTrace_conv.csv (git blob 5b9219f2…, sha256 2f1e5b66…) and _code.csv
# (blob 62bd8109…, sha256 54e9a6d2…), as data/scripts/build_workloads.py computes them.
TRACES = {
    "conv": {"blob": "5b9219f2caf93bbbf95ec29894e206115658e235", "requests": 19366,
             "mean": (1154.697, 211.126), "median": (1020, 129)},
    "code": {"blob": "62bd8109d0f2b1bc48206d397ecca48d8de03aab", "requests": 8819,
             "mean": (2047.848, 27.883), "median": (1469, 13)},
}  # fmt: skip


@pytest.fixture(autouse=True)
def _no_environment_or_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for key in ("T_IN", "T_OUT", "GRID_GCO2_PER_KWH", "PRICE_PER_KWH", "PUE", "REGION"):
        monkeypatch.delenv(f"WATTGPU_LITE_{key}", raising=False)


def test_the_table_has_its_columns_one_row_a_name_and_is_in_the_manifest():
    table = workloads()
    assert tuple(table.columns) == WORKLOAD_COLUMNS and table["name"].is_unique
    assert set(table["statistic"]) == {"mean", "median"}
    digest = hashlib.sha256((data_dir() / "workloads.csv").read_bytes()).hexdigest()
    assert f"{digest}  workloads.csv" in (data_dir() / "MANIFEST.sha256").read_text()


@pytest.mark.parametrize(
    ("kind", "statistic"), [(k, s) for k in TRACES for s in ("mean", "median")]
)
def test_each_azure_row_is_its_trace_files_statistic(kind, statistic):
    name = f"azure-{kind}-2023" + ("-median" if statistic == "median" else "")
    row = workloads().set_index("name").loc[name]
    figures = TRACES[kind]
    assert (row["t_in_reported"], row["t_out_reported"]) == pytest.approx(figures[statistic])
    assert (row["t_in"], row["t_out"]) == tuple(round(x) for x in figures[statistic])
    assert row["requests"] == figures["requests"] and row["statistic"] == statistic
    assert AZURE in row["source"] and figures["blob"] in row["source"]
    assert "Splitwise, ISCA 2024" in row["source"] and row["year"] == 2023
    assert ("conversation" if kind == "conv" else "code") in workload(name).population


def test_the_watt_counts_row_is_the_mean_of_the_dense_runs_and_the_kits_default():
    runs = wl.measurements(dense_only=True)
    row = workload(DEFAULT_WORKLOAD)
    table = workloads().set_index("name").loc[DEFAULT_WORKLOAD]
    assert table["t_in_reported"] == pytest.approx(runs["prompt_tokens"].mean(), abs=5e-4)
    assert table["t_out_reported"] == pytest.approx(runs["generated_tokens"].mean(), abs=5e-4)
    assert table["requests"] == runs["n_requests"].sum()
    assert (row.t_in, row.t_out) == (DEFAULT_T_IN, DEFAULT_T_OUT) == (15, 180)


def test_a_count_given_wins_and_the_echo_says_where_each_came_from():
    t_in, t_out, echo = request_tokens(None, 300, "azure-conv-2023")
    assert (t_in, t_out) == (1155, 300)
    assert echo["t_in"] == {"value": 1155, "source": "workload azure-conv-2023"}
    assert echo["t_out"] == {"value": 300, "source": "given"}
    assert echo["workload"]["source"] == "given"
    assert request_tokens(500, 300, "azure-conv-2023")[2].keys() == {"t_in", "t_out"}
    assert request_tokens(None, None)[2]["t_in"] == {"value": 15, "source": "built-in"}


def test_an_unknown_workload_names_the_close_matches():
    with pytest.raises(UnknownWorkloadError, match="'azure-conv-2023'") as err:
        wl.predict(LLAMA, "A30", rate_qps=0.5, workload="azure-conv")
    assert isinstance(err.value, wl.errors.UnknownNameError)


def test_an_unknown_workload_on_the_command_line_is_one_line_exit_2(capsys):
    argv = ["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5", "--workload", "azur"]
    one_error_line(*run_cli(argv, capsys), ["--workload", "azure-conv-2023"])


# the same question asked with a workload, in Python and on the command line
CASES = {
    "predict": (["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5"],
                lambda **w: wl.predict(LLAMA, "A30", rate_qps=0.5, **w)),
    "estimate": (["estimate", "--llm", LLAMA, "--gpu", "L4", "--batch", "4"],
                 lambda **w: wl.estimate_energy(LLAMA, "L4", batch=4, **w)),
    "explain": (["explain", "--llm", LLAMA, "--gpu", "A30", "--batch", "8"],
                lambda **w: wl.explain(LLAMA, "A30", batch=8, **w)),
    "rank": (["rank", "--llm", LLAMA, "--rate-qps", "0.5", "--itl-sla-ms", "100", "--gpus",
              "A30,L4", "--gpu-counts", "1"],
             lambda **w: wl.rank_gpus(LLAMA, rate_qps=0.5, itl_sla_ms=100,
                                      candidates=["A30", "L4"], gpu_counts="1", **w)),
    "compare": (["compare", "--llm", LLAMA, "--gpus", "A30,L4", "--rate-qps", "0.5"],
                lambda **w: wl.compare(LLAMA, gpus=["A30", "L4"], rate_qps=0.5, **w)),
}  # fmt: skip


def _doc(capsys, argv) -> dict:
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _defaults(doc: dict) -> dict:
    return doc["defaults"]


def _without_defaults(doc):
    """The document without any ``defaults`` (an explanation nests its prediction's)."""
    if isinstance(doc, dict):
        return {k: _without_defaults(v) for k, v in doc.items() if k != "defaults"}
    return doc


@pytest.mark.parametrize("command", list(CASES))
def test_the_flag_the_python_argument_and_the_config_key_agree(capsys, tmp_path, command):
    argv, call = CASES[command]
    python = json.loads(call(workload="azure-code-2023-median").to_json())
    flag = _doc(capsys, [*argv, "--workload", "azure-code-2023-median"])
    assert flag == python
    echo = _defaults(flag)
    assert echo["t_in"] == {"value": 1469, "source": "workload azure-code-2023-median"}
    assert echo["t_out"] == {"value": 13, "source": "workload azure-code-2023-median"}
    assert echo["workload"] == {"value": "azure-code-2023-median", "source": "given",
                                "reference": workload("azure-code-2023-median").source}  # fmt: skip
    (tmp_path / "wattgpu-lite.toml").write_text('workload = "azure-code-2023-median"\n')
    from_file = _doc(capsys, argv)
    assert from_file["defaults"]["workload"]["source"] == f"config {tmp_path / 'wattgpu-lite.toml'}"
    assert _without_defaults(from_file) == _without_defaults(flag)


@pytest.mark.parametrize("command", list(CASES))
def test_every_result_echoes_the_default_workload_and_its_source(capsys, command):
    argv, call = CASES[command]
    echo = _defaults(_doc(capsys, argv))
    assert echo["workload"] == {"value": "watt-counts", "source": "built-in",
                                "reference": workload("watt-counts").source}  # fmt: skip
    assert echo["t_in"] == {"value": 15, "source": "built-in"}
    assert _defaults(json.loads(call().to_json()))["workload"] == echo["workload"]


def test_a_count_given_on_the_line_or_in_the_file_wins_over_the_workload(capsys, tmp_path):
    argv = [*CASES["predict"][0], "--workload", "azure-conv-2023", "--t-out", "64"]
    doc = _doc(capsys, argv)
    assert (doc["inputs"]["t_in"], doc["inputs"]["t_out"]) == (1155, 64)
    (tmp_path / "wattgpu-lite.toml").write_text("t_in = 400\n")
    doc = _doc(capsys, argv)
    assert (doc["inputs"]["t_in"], doc["inputs"]["t_out"]) == (400, 64)
    assert doc["defaults"]["t_in"]["source"].startswith("config ")
    assert "workload" not in doc["defaults"]  # it gave neither count


def test_predict_many_fills_the_token_columns_a_frame_lacks_from_the_workload():
    frame = pd.DataFrame({"llm": [LLAMA, LLAMA], "gpu": ["A30", "L4"], "rate_qps": [0.5, 0.5]})
    out = wl.predict_many(frame, workload="azure-conv-2023")
    assert out["t_in"].tolist() == [1155, 1155] and out["t_out"].tolist() == [211, 211]
    one = wl.predict(LLAMA, "A30", rate_qps=0.5, workload="azure-conv-2023")
    assert out["energy_per_token_j"].iloc[0] == pytest.approx(one.energy_per_token_j, rel=1e-9)
    kept = wl.predict_many(frame.assign(t_out=50), workload="azure-conv-2023")
    assert kept["t_out"].tolist() == [50, 50]
