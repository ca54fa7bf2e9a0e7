"""``python -m wattgpu_lite estimate``: --json is EnergyEstimate.to_dict() in the CLI's envelope, the
text output carries the same content, and Python and CLI share their defaults."""

import json

import pytest

import wattgpu_lite as wl
from wattgpu_lite.__main__ import main
from wattgpu_lite.energy.estimate import COMPONENTS
from wattgpu_lite.face.cli.output import TEXT_DIGITS, document, round_sig
from wattgpu_lite.specs.workload import workload

LLAMA = "meta-llama/Llama-2-7b-hf"


def _run(capsys, *args):
    code = main(["estimate", "--gpu", "H100 NVL", "--llm", LLAMA, *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_is_the_estimate_in_the_envelope_with_python_defaults(capsys):
    code, out, _ = _run(capsys, "--json")
    assert code == 0
    est = wl.estimate_energy(LLAMA, "H100 NVL")  # same defaults: physical, 15/180
    data = json.loads(out)
    used = data.pop("defaults")  # the CLI's echo of its defaults (tests/face/test_cli_defaults.py)
    assert used == {"t_in": {"value": 15, "source": "built-in"},
                    "t_out": {"value": 180, "source": "built-in"},
                    "workload": {"value": "watt-counts", "source": "built-in",
                                 "reference": workload("watt-counts").source},
                    "grid_gco2_per_kwh": {"value": 458, "source": "built-in"},
                    "price_per_kwh": {"value": 0.0895, "source": "built-in"},
                    "pue": {"value": 1.58, "source": "built-in"}}  # fmt: skip
    assert data.pop("wall")["pue"] == 1.58  # the wall accounting: test_estimate_carries_the_wall
    expect = document("estimate", est.to_dict())
    expect.pop("defaults"), expect.pop("wall")
    assert data == expect
    assert data["mode"] == "physical" and (data["schema_version"], data["kind"]) == (1, "estimate")
    assert data["total_j"] == float(f"{est.total_j:.6g}") != est.total_j  # rounded, 6 figures
    parts = sum(data["components_j"][c] for c in COMPONENTS)
    assert data["total_j"] == pytest.approx(parts, rel=1e-5)  # each part rounded to 6 figures


def test_gpus_and_weights_reach_the_estimate(capsys):
    code, out, _ = _run(capsys, "--gpu", "H100 SXM", "--num-gpus", "2", "--weights", "fp8",
                        "--t-in", "500", "--t-out", "300", "--batch", "8", "--json")  # fmt: skip
    expect = wl.estimate_energy(
        LLAMA, "H100 SXM", t_in=500, t_out=300, batch=8, num_gpus=2, weights="fp8"
    )
    data = json.loads(out)
    assert data.pop("defaults")["t_in"] == {"value": 500, "source": "given"}
    data.pop("wall")
    expect = document("estimate", expect.to_dict())
    expect.pop("defaults"), expect.pop("wall")
    assert code == 0 and data == expect
    assert json.loads(out)["compute_peak"] == "fp8"


def test_text_output_carries_the_json_content(capsys):
    _, text, _ = _run(capsys, "--gpu", "A100 SXM4 40GB", "--weights", "fp8")
    data = wl.estimate_energy(LLAMA, "A100 SXM4 40GB", weights="fp8").to_dict()
    for key, value in data.items():
        if key in ("terms", "components_j", "notes", "wall", "defaults"):
            continue
        shown = f"{round_sig(value, TEXT_DIGITS):g}" if isinstance(value, float) else str(value)
        assert key in text and shown in text, key
    assert all(f"{c}_j" in text for c in COMPONENTS) and len(data["terms"]) == 12
    assert all(f"note: {n}" in text for n in data["notes"]) and data["notes"]


def test_estimate_bad_tokens_and_bad_deployments_exit_2(capsys):
    code, _, err = _run(capsys, "--t-out", "0")
    assert code == 2 and "t_out" in err
    code, _, err = _run(capsys, "--num-gpus", "3")
    assert code == 2 and "divide" in err


def test_estimate_carries_the_wall_accounting(capsys):
    code, out, _ = _run(capsys, "--gpu", "A30", "--region", "FR", "--pue", "1.2", "--json")
    est = wl.estimate_energy(LLAMA, "A30")
    w = json.loads(out)["wall"]
    assert code == 0 and (w["pue"], w["grid_gco2_per_kwh"]) == (1.2, 56)
    assert w["grid_source"] == "France (FR), 2023"
    # by hand: total J × PUE; CO2e = J / 3.6e6 J/kWh × 56 g/kWh; per 1,000 generated tokens
    per_request = est.total_j * 1.2
    assert w["wall_energy_per_request_j"] == pytest.approx(per_request, rel=1e-5)
    assert w["g_co2e_per_request"] == pytest.approx(per_request / 3.6e6 * 56, rel=1e-5)
    per_1k = per_request / 180 * 1e3
    assert w["wall_energy_per_1k_tokens_j"] == pytest.approx(per_1k, rel=1e-5)
    assert w["wall_cost_per_mtok"] == pytest.approx(per_1k * 1e3 / 3.6e6 * w["price_per_kwh"],
                                                    rel=1e-5)  # fmt: skip
    code, text, _ = _run(capsys, "--gpu", "A30", "--region", "de")
    assert code == 0 and "at the wall: PUE 1.58; grid 381 gCO2e/kWh (Germany (DE), 2023)" in text
    code, _, err = _run(capsys, "--pue", "0.5")
    assert code == 2 and "pue" in err
    code, _, err = _run(capsys, "--region", "Atlantis")
    assert code == 2 and "unknown grid region" in err
