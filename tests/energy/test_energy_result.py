"""EnergyEstimate: frozen, totals from its terms, JSON without NaN, readable in a notebook."""

import dataclasses
import json
import math

import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.result import EnergyEstimate


@pytest.fixture(scope="module")
def est():
    return wl.estimate_energy("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", 500, 300, 16)


def test_totals_come_from_the_terms(est):
    assert est.total_j == pytest.approx(sum(v for _, _, v in est.terms))
    assert est.total_wh == pytest.approx(est.total_j / 3600)
    assert est.per_output_token_j == pytest.approx(est.total_j / 300)
    assert est.table()["energy_j"].sum() == pytest.approx(est.total_j)
    assert sum(est.components_j.values()) == pytest.approx(est.total_j)


def test_inputs_are_echoed_and_the_object_is_frozen(est):
    assert (est.llm, est.gpu, est.mode, est.t_in, est.t_out, est.batch, est.num_gpus) == (
        "meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", "physical", 500, 300, 16, 1)  # fmt: skip
    assert (est.weights, est.compute_peak, est.compute_peak_tflops) == ("bf16", "fp16", 835.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        est.t_in = 1  # type: ignore[misc]
    assert est.table().attrs["mode"] == "physical"


def test_json_has_a_schema_version_and_never_nan(est):
    data = json.loads(est.to_json())
    assert data["schema_version"] == EnergyEstimate.schema_version == 1
    assert set(data) >= {"total_j", "total_wh", "per_output_token_j", "components_j", "terms"}
    paper = json.loads(wl.estimate_energy("Qwen/Qwen3-8B", mode="paper").to_json())
    assert paper["compute_peak_tflops"] is None and paper["kappa"] is None
    nan = dataclasses.replace(est, compute_peak_tflops=math.nan)
    assert json.loads(nan.to_json())["compute_peak_tflops"] is None


def test_html_and_repr_show_the_totals(est):
    html = est._repr_html_()
    assert f"{est.total_j:.4g} J" in html and "<table" in html and "H100 NVL" in html
    assert f"{est.per_output_token_j:.4g}" in repr(est)
