"""The expert-group time t_grp (``Constants.expert_group_s``): a constant the backbone fits, not a
coefficient. The deployment record leaves it at 0 (no datasheet gives it) and the backbone's
constants set it; a mixture-of-experts step grows by exactly n_moe · t_grp · (E_B − k) per unit of
it while a dense step never moves; the runs alone (all dense) leave it at 0, the term's limit, and
every fit across harnesses frees it, so no held-out source chooses it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy.args import deploy_args
from wattgpu_lite.energy.backbone import constants_fit as F
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.energy.notes import experts_per_step
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.report import calibration

MIXTRAL = "mistralai/Mixtral-8x7B-Instruct-v0.1"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def _rows(name: str, num_gpus: int = 1):
    return R.build([wl.llm(name)], [wl.gpu("H100 SXM")], 500.0, 300.0, num_gpus=num_gpus)[0]


def test_the_deployment_record_leaves_it_to_the_constants():
    assert deploy_args(wl.gpu("H100 SXM"), 8).expert_group_s == 0.0
    rows = _rows(MIXTRAL, 2)
    c = replace(HybridState.pretrained().constants, expert_group_s=3e-6)
    achieved = S.achieved_deploy(rows, c)
    np.testing.assert_array_equal(achieved.expert_group_s, [3e-6])
    kept = ("num_gpus", "tp", "ep", "link_bytes_s", "expert_dispatch")
    assert all(np.array_equal(getattr(achieved, k), getattr(rows.deploy, k)) for k in kept)


@pytest.mark.parametrize("num_gpus", [1, 2])
def test_a_moe_step_grows_by_its_further_expert_groups_and_a_dense_step_never_moves(num_gpus):
    """s(B; t_grp) − s(B; 0) = n_moe · t_grp · ((E_B − k) + (E_{B·T_in} − k) / T_out) on a MoE
    model, tensor parallel (ep = 1): the decode step's further experts and its share of the
    prompt's (energy.symbolic_parallel.expert_groups_s); 0 on a dense one. t_grp → 0 gives the
    model without the term."""
    base = replace(HybridState.pretrained().constants, expert_group_s=0.0)
    batch = np.array([16.0])
    llm = wl.llm(MIXTRAL)
    for t_grp in (1e-6, 4e-6):
        with_term = replace(base, expert_group_s=t_grp)
        moe = _rows(MIXTRAL, num_gpus)
        grown = S.step_time_s(moe, batch, with_term) - S.step_time_s(moe, batch, base)
        k = llm.n_experts_active
        further = experts_per_step(llm, 16.0) - k + (experts_per_step(llm, 16.0 * 500) - k) / 300
        assert further > 0
        assert grown[0] == pytest.approx(llm.n_moe_layers * t_grp * further, rel=1e-9)
        dense = _rows(LLAMA, num_gpus)
        np.testing.assert_array_equal(
            S.step_time_s(dense, batch, with_term), S.step_time_s(dense, batch, base)
        )


def test_the_runs_alone_leave_it_at_zero_and_every_fit_across_harnesses_frees_it():
    assert S.Constants().expert_group_s == 0.0  # the default: the term's limit
    assert "expert_group_s" in F.ACROSS_HARNESSES and "expert_group_s" not in F.NAMES
    assert F.POOLED == (*F.NAMES, "expert_group_s")
    freeing = [n for n, names in calibration.FREED.items() if "expert_group_s" in names]
    assert freeing == list(calibration.FREED) and "watt_counts" not in calibration.FREED
    assert F.LOWER["expert_group_s"] == 0.0 < F.SCALE["expert_group_s"] < F.UPPER["expert_group_s"]
    shipped = HybridState.pretrained().constants.expert_group_s
    assert 0.0 < shipped < F.UPPER["expert_group_s"]  # fitted, inside its bounds


def test_sources_md_states_the_fitted_values():
    """data/SOURCES.md's figures for t_grp, recomputed: the range over the folds, the shipped
    value and the held-out ITL of the source the old in-sample constant flattered."""
    from pathlib import Path

    from wattgpu_lite.hybrid.report.external_per_gpu import source_labels

    sources = " ".join(
        (Path(__file__).resolve().parents[2] / "data" / "SOURCES.md").read_text().split()
    )
    table = calibration.shipped()
    folds = table.groupby("source")["chosen_group_us"].first()
    said = f"{folds.min():.2f} to {folds.max():.2f} µs over the {len(folds)} folds"
    shipped = HybridState.pretrained().constants.expert_group_s * 1e6
    assert said in sources and f"{shipped:.2f} µs in the shipped constants" in sources
    labels = table["source"].map(source_labels(table["source"]))
    row = table[
        (labels == "dstack, dstackai/benchmarks Deepseek-R1") & (table["quantity"] == "itl_s")
    ]
    row = row.set_index("basis").loc["chosen"]
    assert (
        f"{row['mdape_pct']:.1f} % off at a median predicted / measured {row['ratio']:.2f} "
        f"(t_grp {row['chosen_group_us']:.2f} µs in its fold)"
    ) in sources
