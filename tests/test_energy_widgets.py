"""The energy explorer's pure function: shares sum to one and match estimate_energy."""

import pytest

from wattgpu_lite.energy.estimate import COMPONENTS, components_j, estimate_energy
from wattgpu_lite.face import widgets


@pytest.mark.parametrize("mode", ["physical", "paper"])
def test_energy_table_matches_library(mode):
    df = widgets.energy_table("meta-llama/Llama-2-7b-hf", "L4", 200, 300, 4, mode)
    assert list(df["component"]) == list(COMPONENTS)
    assert df["share"].sum() == pytest.approx(1.0)
    ref = components_j(estimate_energy("meta-llama/Llama-2-7b-hf", "L4", 200, 300, mode, 4))
    assert df["energy_j"].sum() == pytest.approx(ref["total"])
