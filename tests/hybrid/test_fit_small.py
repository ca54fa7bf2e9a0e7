"""What fits, run fast: the shipped state's shape from a refit on two GPUs, and its constants.

The full build (``data/scripts/build_hybrid_model.py``) takes minutes; these tests run the same
fitting code (:mod:`wattgpu_lite.hybrid.fit`) on a subset, so a change that breaks it fails here.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("xgboost")

from wattgpu_lite.datafiles import data_dir  # noqa: E402
from wattgpu_lite.energy.backbone import training_runs as T  # noqa: E402
from wattgpu_lite.energy.backbone.constants_fit import (  # noqa: E402
    NAMES,
    fit_constants,
)
from wattgpu_lite.hybrid.fit import candidates as F  # noqa: E402
from wattgpu_lite.hybrid.fit.candidates import candidates, select, xgb_params  # noqa: E402
from wattgpu_lite.hybrid.predict.model import HYBRID_DIR, HybridState  # noqa: E402

SUBSET = ("A30", "L4")


@pytest.fixture(scope="module")
def shipped() -> HybridState:
    return HybridState.pretrained()


@pytest.fixture(scope="module")
def refit(shipped):
    ts = T.watt_counts()
    sub = ts.take(np.isin(ts.frame["gpu"].to_numpy(), SUBSET))
    cands = {c.name: c for c in candidates()}
    chosen = tuple(cands[n] for n in dict.fromkeys(shipped.chosen.values()))
    return F.fit_all(sub, chosen), sub


def test_a_refit_has_the_shipped_corrections_shape(shipped, refit, tmp_path):
    fitted, _ = refit
    cands = {c.name: c for c in candidates()}
    corrections = {t: fitted.corrections[shipped.chosen[t], t] for t in T.TARGETS}
    for target, corr in corrections.items():
        ship = shipped.corrections[target]
        assert corr.columns == ship.columns and corr.families != ()
        assert corr.bound == cands[shipped.chosen[target]].bound == ship.bound
    model = HybridState(fitted.constants, corrections, shipped.chosen, shipped.tables,
                        shipped.ranges, shipped.seen_gpus, shipped.seen_llms, {})  # fmt: skip
    state = json.loads((model.save(tmp_path) / "state.json").read_text())
    ship_state = json.loads((data_dir() / HYBRID_DIR / "state.json").read_text())
    assert set(state) == set(ship_state)
    assert set(state["corrections"]) == set(ship_state["corrections"])
    assert set(state["constants"]) == set(ship_state["constants"])
    assert HybridState.load(tmp_path).constants == fitted.constants


def test_the_refit_corrections_stay_inside_their_bound(refit):
    fitted, sub = refit
    cands = {c.name: c for c in candidates()}
    for (name, target), corr in fitted.corrections.items():
        if corr is None:
            continue
        x = F.matrix(sub, T.physics(sub, fitted.constants), cands[name], corr.families)
        assert np.max(np.abs(corr.predict(x))) <= corr.bound + 1e-12, (name, target)


def test_constants_fitted_on_two_gpus_are_physical(refit):
    c = refit[0].constants
    assert 0 < c.eta_bw <= 1 and 0 < c.eta_flops <= 1
    assert c.step_s > 0 and c.idle_w >= 0 and 0 <= c.idle_fraction


#: The fit's conditioning (energy.backbone.constants_fit): perturbing the measurements by 1e-12 or reordering
#: the runs moves no constant by more than ~1e-8 (measured), on either BLAS kernel
#: (OPENBLAS_CORETYPE=Haswell on AMD, or the default); the tests allow 1e-7.
CONSTANT_RTOL = 1e-7


@pytest.fixture(scope="module")
def refit_all():
    ts = T.watt_counts()
    return ts, fit_constants(ts)


def _relative_moves(a, b) -> dict[str, float]:
    """Relative moves of the fitted constants; the host time per sequence, not fitted on the runs,
    must stay exactly where it started (0)."""
    assert a.seq_s == b.seq_s == 0.0
    return {n: abs(getattr(a, n) / getattr(b, n) - 1.0) for n in NAMES}


@pytest.mark.slow
def test_the_shipped_constants_are_the_named_candidate_refitted_on_every_run_and_source(shipped):
    """The shipped backbone's constants are those of the candidate its state names
    (``built_with["constants"]``, chosen on the external sources' inner folds), refitted on every
    dense run and every external row: the fit lands on them to 1e-6 relative on every machine,
    and the constants the runs alone cannot identify are the ones the candidate frees."""
    from wattgpu_lite.hybrid.report import calibrated_folds, calibration

    name = shipped.built_with["constants"]
    assert name in calibration.CANDIDATES
    fitted = calibrated_folds.constants_without(T.watt_counts(), name)
    for n in calibration.FREED.get(name, NAMES):
        assert getattr(fitted, n) == pytest.approx(getattr(shipped.constants, n), rel=1e-6), n
    assert shipped.constants.seq_s > 0 and shipped.constants.collective_ratio != 1.0


def test_the_fit_is_well_conditioned_measurements_perturbed_or_runs_reordered(refit_all):
    """Measurements × (1 ± 1e-12) at random, or the runs in another order,
    move every constant by < 1e-7 relative (the old fit moved by up to 38 %)."""
    ts, fitted = refit_all
    rng = np.random.default_rng(27)
    frame = ts.frame.copy()
    for col in ("power_w", "itl_s"):
        frame[col] = frame[col] * (1.0 + 1e-12 * rng.choice([-1.0, 1.0], len(frame)))
    perturbed = T.TrainingSet(frame, ts.rows, ts.loads, ts.llms, ts.gpus)
    order = rng.permutation(len(frame))
    reordered = T.TrainingSet(ts.frame.iloc[order].reset_index(drop=True), ts.rows.take(order),
                              ts.loads.take(order), tuple(ts.llms[i] for i in order),
                              tuple(ts.gpus[i] for i in order))  # fmt: skip
    for other in (perturbed, reordered):
        moves = _relative_moves(fit_constants(other), fitted)
        assert max(moves.values()) < CONSTANT_RTOL, moves


def test_a_last_bit_difference_flips_no_choice_and_no_split(refit):
    """Candidate scores are compared at 0.01 points (a tie goes to the earlier
    candidate), and a forest fitted on residuals moved by 1e-12 is the same forest."""
    names = [c.name for c in candidates()]
    first, second = names[0], names[1]
    assert select({first: 10.0, second: 10.0 - 1e-9}) == first
    assert select({first: 10.0 + 1e-9, second: 10.0}) == first
    assert select({first: 10.0, second: 9.99}) == second
    fitted, sub = refit
    cands = {c.name: c for c in candidates()}
    name, target = next(k for k, v in fitted.corrections.items() if v is not None)
    corr = fitted.corrections[name, target]
    out = T.physics(sub, fitted.constants)
    x = F.matrix(sub, out, cands[name], corr.families)
    resid = np.log(sub.target(target) / T.paper_units(out, sub.loads.offline)[target])
    rng = np.random.default_rng(2)
    again = [F.fit_correction(x, r, corr.columns, corr.bound, params=xgb_params(), families=corr.families)
             for r in (resid, resid * (1 + 1e-12 * rng.choice([-1.0, 1.0], len(resid))))]  # fmt: skip
    assert again[0].forest_json == again[1].forest_json
