"""EnergyEstimate: frozen, totals from its terms, JSON without NaN, readable in a notebook."""

import dataclasses
import json
import math

import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.result import EnergyEstimate
from wattgpu_lite.energy.sweeps import vs_output_tokens


@pytest.fixture(scope="module")
def est():
    return wl.estimate_energy(
        "meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", t_in=500, t_out=300, batch=16
    )


def test_totals_come_from_the_terms(est):
    assert est.total_j == pytest.approx(sum(v for _, _, v in est.terms))
    assert est.total_wh == pytest.approx(est.total_j / 3600)
    assert est.energy_per_token_j == pytest.approx(est.total_j / 300)
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
    assert set(data) >= {"total_j", "total_wh", "energy_per_token_j", "components_j", "terms"}
    paper = json.loads(wl.estimate_energy("Qwen/Qwen3-8B", "H100 NVL", mode="paper").to_json())
    assert paper["compute_peak_tflops"] is None and paper["kappa"] is None
    nan = dataclasses.replace(est, compute_peak_tflops=math.nan)
    assert json.loads(nan.to_json())["compute_peak_tflops"] is None


def test_html_and_repr_show_the_totals(est):
    html = est._repr_html_()
    assert f"{est.total_j:.4g} J" in html and "<table" in html and "H100 NVL" in html
    assert f"{est.energy_per_token_j:.4g}" in repr(est)
    assert "<th>energy per generated token (J)</th>" in html and "energy_per_token_j" not in html


def test_energy_per_token_is_the_total_over_the_generated_tokens_under_one_name(est):
    assert est.energy_per_token_j == pytest.approx(est.total_j / 300)
    assert "energy_per_token_j" in est.to_dict() and "per_output_token_j" not in est.to_dict()
    assert not hasattr(est, "per_output_token_j")


def test_the_breakdown_and_the_sweeps_name_energy_per_token_alike(est):
    table = est.table()
    assert "energy_per_token_j" in table and "energy_per_output_token_j" not in table.columns
    assert table["energy_per_token_j"].sum() == pytest.approx(est.energy_per_token_j)
    sweep = vs_output_tokens("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", [100, 300])
    assert "energy_per_token_j" in sweep and "energy_per_output_token_j" not in sweep.columns


def test_batch_is_a_float_as_in_predict(est):
    assert isinstance(est.batch, float) and est.batch == 16.0
    assert est.inputs["batch"] == 16.0 and "batch 16," in est.header()
    p = wl.predict("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", batch=16, t_in=500, t_out=300)
    assert isinstance(p.inputs.batch, float) and p.inputs.batch == est.batch
    assert set(est.inputs) <= set(dataclasses.asdict(p.inputs)), "inputs under predict's names"
    with pytest.raises(wl.errors.InvalidInputError, match="^batch must be a whole number"):
        wl.estimate_energy("meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", batch=2.5)


def test_the_size_sweep_marks_the_models_too_large_for_the_gpu():
    """A 405 B model's 16-bit weights (810 GB) do not fit on one 94 GB H100 NVL; an 8 B's do."""
    from wattgpu_lite.energy.sweeps import vs_model

    tidy = vs_model(["meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-405B-Instruct"],
                    "H100 NVL")  # fmt: skip
    fits = tidy.drop_duplicates("llm").set_index("llm")["weights_fit"]
    assert fits.to_dict() == {"meta-llama/Llama-3.1-8B-Instruct": True,
                              "meta-llama/Llama-3.1-405B-Instruct": False}  # fmt: skip
    assert tidy.groupby("llm")["weights_fit"].nunique().eq(1).all()  # one flag per model
