"""wl.compare and `wattgpu-lite compare` take a GPU of your own (wl.GPU.from_spec, --gpus
spec.json,...) as wl.predict and wl.rank_gpus do: it was looked up by its name and refused as
an unknown GPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import wattgpu_lite as wl
from tests.cli_runner import run_cli

SPEC = Path(__file__).resolve().parents[1] / "fixtures" / "gpu_rtx5090_spec.json"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture(scope="module")
def own() -> wl.GPU:
    return wl.GPU.from_spec(json.loads(SPEC.read_text()))


def test_a_gpu_of_your_own_is_compared_at_its_predicted_energy(own):
    c = wl.compare(LLAMA, [own, "L4"], batch=8)
    rows = {r["gpu"]: r for r in c.rows}
    assert set(rows) == {"RTX 5090", "L4"}
    for gpu in (own, "L4"):
        name = gpu if isinstance(gpu, str) else gpu.name
        expected = wl.predict(LLAMA, gpu, batch=8).energy_per_token_j
        assert rows[name]["energy_per_token_j"] == pytest.approx(expected, rel=1e-12)
    assert wl.compare(LLAMA, [own, "L4"], batch=8, reference=own).reference == "RTX 5090"


def test_the_cli_compares_a_spec_file(capsys, own):
    argv = ["compare", "--llm", LLAMA, "--gpus", f"{SPEC},L4", "--batch", "8", "--json"]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    assert {r["gpu"] for r in json.loads(out)["rows"]} == {"RTX 5090", "L4"}
