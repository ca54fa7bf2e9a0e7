"""The energy explorer's pure function: shares sum to one and match estimate_energy."""

import pytest

from wattgpu_lite.energy.estimate import COMPONENTS, estimate_energy
from wattgpu_lite.face import widgets


@pytest.mark.parametrize("mode", ["physical", "paper"])
def test_energy_table_matches_library(mode):
    df = widgets.energy_table("meta-llama/Llama-2-7b-hf", "L4", 200, 300, 4, mode)
    assert list(df["component"]) == list(COMPONENTS)
    assert df["share"].sum() == pytest.approx(1.0)
    ref = estimate_energy("meta-llama/Llama-2-7b-hf", "L4", t_in=200, t_out=300, batch=4, mode=mode)
    assert df["energy_j"].sum() == pytest.approx(ref.total_j)


def test_energy_table_passes_gpus_and_weights():
    df = widgets.energy_table("meta-llama/Llama-2-7b-hf", "H100 SXM", 200, 300, 4, "physical",
                              num_gpus=2, weights="fp8")  # fmt: skip
    ref = estimate_energy("meta-llama/Llama-2-7b-hf", "H100 SXM", t_in=200, t_out=300, batch=4, num_gpus=2,
                          weights="fp8")  # fmt: skip
    assert df["energy_j"].sum() == pytest.approx(ref.total_j)
    assert df.set_index("component").loc["communication", "energy_j"] > 0


def test_explorer_redraws_and_says_why_it_refuses():
    view = widgets.energy_explorer("meta-llama/Llama-2-7b-hf", "L4")
    controls = {c.description: c for c in view.children if hasattr(c, "description")}
    message, chart = view.children[-2], view.children[-1]
    first = bytes(chart.value)
    assert first.startswith(b"\x89PNG") and message.value == ""
    controls["batch"].value = 64
    assert bytes(chart.value) != first
    controls["GPUs"].value = 8
    controls["GPU"].value = "MI250"  # no interconnect bandwidth in its spec
    assert "interconnect_gbs" in message.value and bytes(chart.value) == b""
