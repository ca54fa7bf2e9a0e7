"""Physics features are finite and positive for every catalog pair of the runs; the shipped
ablation CSV is current; extrapolation names the B200's bandwidth."""

from __future__ import annotations

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.hybrid.ablation import _physics_runs, out_of_fold
from wattgpu_lite.hybrid.extrapolation import ExtrapolationWarning, out_of_range
from wattgpu_lite.hybrid.results import read
from wattgpu_lite.wattgpu.metrics import scenario_metrics


def test_physics_features_finite_and_positive_for_every_pair():
    f = _physics_runs()
    assert f.groupby(["llm", "gpu"]).ngroups == len(f[["llm", "gpu"]].drop_duplicates())
    for col in ("in_flight", "busy_fraction", "phys_power_ratio"):
        assert np.isfinite(f[col]).all() and (f[col] > 0).all(), col
    for col in ("log_roofline_itl_s", "log_phys_energy_per_token_j"):
        assert np.isfinite(f[col]).all(), col  # the exp of a finite log is positive
    assert (f.loc[f["scenario"] == "offline", "busy_fraction"] == 1).all()
    assert (f["phys_power_ratio"] <= 1 + 1e-9).all()  # the power ceiling is the TDP


def test_legacy_attention_flags_exactly_the_pre_ampere_gpus():
    f = _physics_runs()
    assert set(f.loc[f["legacy_attention"] == 1, "gpu"]) == {"V100 SXM2 32GB", "T4"}
    assert set(f["legacy_attention"]) == {0.0, 1.0}


def test_ablation_csv_is_current():
    table = read("ablation")
    cell = table.query("target == 'power' and strategy == 'logo' and config == 'hybrid'")
    fresh = scenario_metrics(out_of_fold("hybrid", "power", "logo"))
    np.testing.assert_allclose(
        cell.set_index("scenario")["mdape_pct"].loc[["offline", "server"]],
        fresh.set_index("scenario")["mdape_pct"].loc[["offline", "server"]],
        rtol=1e-4,
    )


def test_b200_extrapolation_names_its_bandwidth():
    from wattgpu_lite.hybrid.model import HybridModel

    with pytest.warns(ExtrapolationWarning, match="bandwidth_gbs"):
        result = HybridModel.pretrained().predict("meta-llama/Llama-3.1-8B-Instruct", "B200",
                                                  batch=32)  # fmt: skip
    assert "bandwidth_gbs" in result["extrapolation"]
    h100 = wl.features.feature_frame(
        ["meta-llama/Llama-3.1-8B-Instruct"], ["H100 NVL"], ["offline"]
    )
    assert out_of_range(h100.iloc[0], ["bandwidth_gbs"]) == []


def test_batch_mode_power_tree_survives_save_and_load(tmp_path):
    from wattgpu_lite.hybrid.model import HybridModel

    runs = wl.measurements(dense_only=True)
    runs = runs[runs["gpu"].isin(["L4", "A30", "H100 NVL"])]
    fitted = HybridModel().fit(runs)
    assert fitted.models["power"].batch_regressor is not None  # offline power: its own tree
    assert fitted.models["itl"].batch_regressor is None
    loaded = HybridModel.load(fitted.save(tmp_path))
    for kw in ({"batch": 64.0}, {"rate": 0.1}):
        a = fitted.predict("meta-llama/Llama-3.1-8B-Instruct", "L4", **kw)
        b = loaded.predict("meta-llama/Llama-3.1-8B-Instruct", "L4", **kw)
        assert a["power_w"] == pytest.approx(b["power_w"], rel=1e-6)
        assert a["itl_s"] == pytest.approx(b["itl_s"], rel=1e-6)
