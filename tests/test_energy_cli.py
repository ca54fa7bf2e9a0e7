"""``python -m wattgpu_lite estimate``: --json is exactly EnergyEstimate.to_json(), the text output
carries the same content, and Python and CLI share their defaults."""

import json

import pytest

import wattgpu_lite as wl
from wattgpu_lite.__main__ import main
from wattgpu_lite.energy.estimate import COMPONENTS

LLAMA = "meta-llama/Llama-2-7b-hf"


def _run(capsys, *args):
    code = main(["estimate", "--llm", LLAMA, *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_is_exactly_to_json_with_python_defaults(capsys):
    code, out, _ = _run(capsys, "--json")
    assert code == 0
    assert out.strip() == wl.estimate_energy(LLAMA).to_json()  # same defaults: physical, 15/180
    data = json.loads(out)
    assert data["mode"] == "physical" and data["schema_version"] == 1
    assert data["total_j"] == pytest.approx(sum(data["components_j"][c] for c in COMPONENTS))


def test_gpus_and_weights_reach_the_estimate(capsys):
    code, out, _ = _run(capsys, "--gpu", "H100 SXM", "--num-gpus", "2", "--weights", "fp8",
                        "--t-in", "500", "--t-out", "300", "--batch", "8", "--json")  # fmt: skip
    expect = wl.estimate_energy(LLAMA, "H100 SXM", 500, 300, 8, num_gpus=2, weights="fp8")
    assert code == 0 and out.strip() == expect.to_json()
    assert json.loads(out)["compute_peak"] == "fp8"


def test_text_output_carries_the_json_content(capsys):
    _, text, _ = _run(capsys, "--gpu", "A100 SXM4 40GB", "--weights", "fp8")
    data = json.loads(wl.estimate_energy(LLAMA, "A100 SXM4 40GB", weights="fp8").to_json())
    for key, value in data.items():
        if key in ("terms", "components_j", "notes"):
            continue
        assert key in text and str(value if value is not None else "None") in text, key
    assert all(f"{c}_j" in text for c in COMPONENTS) and len(data["terms"]) == 12
    assert all(f"note: {n}" in text for n in data["notes"]) and data["notes"]


def test_estimate_bad_tokens_and_bad_deployments_exit_2(capsys):
    code, _, err = _run(capsys, "--t-out", "0")
    assert code == 2 and "t_out" in err
    code, _, err = _run(capsys, "--num-gpus", "3")
    assert code == 2 and "divide" in err
