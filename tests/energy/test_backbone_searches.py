"""The backbone's solves on the step's pieces (:func:`wattgpu_lite.energy.backbone.step_pieces`)
against references: the bracketed searches they replaced (grid + golden section for the peak
batch, grid + Illinois steps for the load in flight: tests/energy/reference_searches.py), a fine grid for
the peak batch (the global peak, never a local one, and never below the 24-step golden section
over the whole range that the bracketed search replaced), and the 24-point grid plus plain
bisection to adjacent floats for the load in flight. Over every catalog LLM on every catalog GPU,
at three token counts, several upper batches and loads from the lightest to beyond the capacity.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import reference_searches as REF  # beside this file (pytest puts its folder on the path)

import wattgpu_lite as wl
from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.energy.backbone import searches as Z
from wattgpu_lite.energy.backbone import solves as V
from wattgpu_lite.hybrid.predict.model import HybridState

RTOL = 1e-7
EXACT = 1e-12  # two solves of one equation at fixed constants, no fitted value and no BLAS
TOKENS = ((15, 180), (500, 300), (2000, 50))
LOAD_SHARES = (1e-6, 0.01, 0.3, 0.9, 0.999, 1.5)  # rate / capacity; 1.5: saturated


HOST_PER_SEQUENCE_S = 5e-5  # 50 µs per sequence: 12.8 ms a step at vLLM's 256 sequences
FP8_SHARE_RATIO = 0.3  # the FP8 peak's share relative to the 16-bit one, beside the host time
FINE_POINTS = 513  # ln B on [0, ln 1024] every 0.0135


def old_golden_peak_batch(rows: S.Rows, c: S.Constants, upper: float = 1024.0) -> np.ndarray:
    """The golden section the kit used before: 24 steps over the whole of [0, ln upper], both
    points evaluated afresh at every step (it could settle on a lower local peak)."""
    phi = (np.sqrt(5.0) - 1.0) / 2.0
    lo, hi = np.zeros(len(rows.t_in)), np.full(len(rows.t_in), np.log(upper))
    for _ in range(24):
        a, b = hi - phi * (hi - lo), lo + phi * (hi - lo)
        left = S.raw_busy_power_w(rows, np.exp(a), c) >= S.raw_busy_power_w(rows, np.exp(b), c)
        lo, hi = np.where(left, lo, a), np.where(left, b, hi)
    return np.exp(0.5 * (lo + hi))


def fine_grid_max_w(rows: S.Rows, c: S.Constants, upper: np.ndarray):
    """(the highest raw busy power at FINE_POINTS points of [0, ln 1024] no higher than ln upper
    and at upper itself — a lower bound of the true maximum on [1, upper] —, and whether that
    point lies within the search grid's last step below ln upper, where the search may miss it)."""
    best, at = S.raw_busy_power_w(rows, upper, c), np.log(upper)
    for x in np.linspace(0.0, np.log(1024.0), FINE_POINTS):
        on = x <= np.log(upper)
        power = S.raw_busy_power_w(rows, np.exp(x) + 0 * upper, c)
        higher = on & (power > best)
        best, at = np.where(higher, power, best), np.where(higher, x, at)
    step = np.log(1024.0) / (V.PEAK_GRID_POINTS - 1)
    return best, at > np.log(upper) - step


def reference_in_flight(rows: S.Rows, rate: np.ndarray, cap: np.ndarray, c: S.Constants):
    """The grid and plain bisection until lo and hi are adjacent floats."""

    def g(load):
        return rate * rows.t_out * S.step_time_s(rows, np.minimum(1.0 + load, cap), c) - load

    grid = np.concatenate([[0.0], np.geomspace(1e-4, 1.0, REF.GRID_POINTS)])
    lo, hi = np.zeros_like(rate), np.full_like(rate, np.nan)
    for k in range(1, len(grid)):
        undecided = np.isnan(hi)
        if not undecided.any():
            break
        point = grid[k] * cap
        below = undecided & (g(point) <= 0)
        hi, lo = np.where(below, point, hi), np.where(undecided & ~below, point, lo)
    saturated = np.isnan(hi)
    hi = np.where(saturated, cap, hi)
    for _ in range(80):
        if np.all(hi - lo <= REF.ROOT_RTOL * np.maximum(hi, 1e-9)):
            break
        mid = 0.5 * (lo + hi)
        neg = g(mid) <= 0
        lo, hi = np.where(neg, lo, mid), np.where(neg, mid, hi)
    return np.where(saturated, cap, hi)


@pytest.fixture(scope="module", params=[0.0, HOST_PER_SEQUENCE_S], ids=["shipped", "host_fp8"])
def catalog_rows(request):
    """Every catalog LLM on every catalog GPU (one GPU; and four for the MoE models), at three
    token counts: rows whose weights fit; at the shipped constants, and with a host time per
    sequence in flight (t_host = c_step + c_seq·B: affine in B, the pieces stay exact) and the FP8
    peak at 0.3 of the 16-bit share (another compute rate per row: the pieces stay exact)."""
    llms, gpus = [wl.llm(n) for n in wl.llms()["name"]], [wl.gpu(n) for n in wl.gpus()["name"]]
    picks = [(m, g, a, b, 1) for m in llms for g in gpus for a, b in TOKENS]
    linked = [g for g in gpus if np.isfinite(g.interconnect_gbs) and not g.link_domain_gpus < 4]
    picks += [(m, g, 500, 300, 4) for m in llms if m.is_moe for g in linked]
    rows, cap = R.build(*[[p[i] for p in picks] for i in range(4)], num_gpus=[p[4] for p in picks])
    keep = cap >= 1
    c = replace(HybridState.pretrained().constants, seq_s=request.param,
                fp8_ratio=1.0 if request.param == 0 else FP8_SHARE_RATIO)  # fmt: skip
    return rows.take(keep), cap[keep], c


def upper_batches(cap: np.ndarray) -> list[np.ndarray]:
    """Upper batches of the peak search: 1024, each row's capacity, a few fractional ones."""
    spread = np.resize(np.array([1.0, 1.5, 7.3, 33.0, 200.0]), len(cap))
    return [np.full(len(cap), 1024.0), np.minimum(cap, 1024.0).astype(float), spread]


def reference_at_rate(rows: S.Rows, rate: np.ndarray, cap: np.ndarray, c: S.Constants) -> dict:
    """S.at_rate's ITL and power with the bracketed searches in place of the solves."""
    load = REF.reference_in_flight_at_rate(rows, rate, cap, c)
    busy = -np.expm1(-load)
    batch = np.maximum(load / np.maximum(busy, 1e-300), 1.0)
    peak = np.minimum(REF.reference_peak_batch(rows, c, upper=batch), batch)
    p_busy = np.max([S.raw_busy_power_w(rows, b, c) for b in (batch, np.ones_like(batch), peak)],
                    axis=0)  # fmt: skip
    p_idle = S.idle_power_w(rows, c)
    return {"in_flight": load, "itl_s": S.step_time_s(rows, np.minimum(1.0 + load, cap), c),
            "power_w": p_idle + busy * (p_busy - p_idle)}  # fmt: skip


def test_the_pieces_are_the_step_time_and_the_busy_power(catalog_rows):
    """W(B) = R + Σ op(products) and N(B) from the generated coefficients give the physics' step
    time and raw busy power at any batch, on both sides of every breakpoint (the coefficients of
    the max / min nodes are ≥ 0, so op(c·args) = c·op(args))."""
    rows, cap, c = catalog_rows
    pieces = S.step_pieces(rows, c)
    for batch in (1.0, 1.37, 8.0, 100.5, 1024.0):
        at = np.full((len(cap), 1), batch)
        w, _ = Z.switched(pieces, at)
        step = w[:, 0] / rows.t_out + S.host_step_s(batch, c)
        # one expression evaluated two ways at fixed constants, no fit and no BLAS: exact anywhere
        np.testing.assert_allclose(step, S.step_time_s(rows, at[:, 0], c), rtol=1e-13)
        np.testing.assert_allclose(V._pieces_power_w(rows, pieces, at, c)[:, 0],
                                   S.raw_busy_power_w(rows, at[:, 0], c), rtol=1e-13)  # fmt: skip
    assert pieces.curved.sum() == sum(1 for m in rows.model.moe_layers if m > 0)  # the MoE rows


def test_every_breakpoint_is_where_two_products_of_a_group_are_equal(catalog_rows):
    rows, cap, c = catalog_rows
    pieces = S.step_pieces(rows, c)
    cuts = Z.breakpoints(pieces, np.ones(len(cap)), np.full(len(cap), 1024.0))
    for col in range(cuts.shape[1]):
        ok = ~np.isnan(cuts[:, col])
        sub, at = pieces.take(ok), cuts[ok, col][:, None]
        w_left = Z.switched(sub, at * (1 - 1e-9))[0] / rows.t_out[ok, None]
        w_right = Z.switched(sub, at * (1 + 1e-9))[0] / rows.t_out[ok, None]
        w_at = Z.switched(sub, at)[0] / rows.t_out[ok, None]
        # continuous through each breakpoint (W is a max / min of continuous pieces)
        np.testing.assert_allclose(w_left, w_at, rtol=1e-7)
        np.testing.assert_allclose(w_right, w_at, rtol=1e-7)
    assert np.isfinite(cuts).sum() > len(cap)  # most rows have a roofline corner in [1, 1024]


def test_the_catalog_grid_is_wide(catalog_rows):
    rows, cap, _ = catalog_rows
    assert len(cap) > 10_000 and cap.min() == 1 and cap.max() == 256  # vLLM max_num_seqs


def test_the_peak_is_the_global_one_never_below_a_fine_grid_or_the_old_search(catalog_rows):
    """The global peak, never below the old search or a fine grid, wherever it lies (the end
    probe finds a peak inside the grid's last step below the upper batch), with 1024 or each
    row's own capacity as the upper batch."""
    rows, cap, c = catalog_rows
    old = S.raw_busy_power_w(rows, old_golden_peak_batch(rows, c), c)
    for upper in upper_batches(cap):
        peak = S.peak_batch(rows, c, upper=upper)
        power = S.raw_busy_power_w(rows, peak, c)
        fine, _ = fine_grid_max_w(rows, c, upper)
        assert np.all(power >= fine * (1 - 1e-12))
        assert np.all((peak >= 1.0) & (peak <= upper))
        reference = S.raw_busy_power_w(rows, REF.reference_peak_batch(rows, c, upper=upper), c)
        assert np.all(power >= reference * (1 - EXACT))
    power = S.raw_busy_power_w(rows, S.peak_batch(rows, c), c)
    assert np.all(power >= old * (1 - 1e-12))
    # the old search settled lower on these rows (28 at the shipped constants)
    assert np.sum(old < power * (1 - 1e-3)) >= 20


def test_busy_power_is_the_highest_raw_power_up_to_the_batch(catalog_rows):
    rows, _, c = catalog_rows
    batch = np.geomspace(1.0, 1024.0, len(rows.t_in))
    busy = S.busy_power_w(rows, batch, c)
    fine, _ = fine_grid_max_w(rows, c, batch)
    assert np.all(busy >= fine * (1 - 1e-12))
    assert np.all(busy >= S.raw_busy_power_w(rows, batch, c))
    top = np.maximum(S.raw_busy_power_w(rows, S.peak_batch(rows, c), c),
                     fine_grid_max_w(rows, c, np.full(len(batch), 1024.0))[0])  # fmt: skip
    assert np.all(busy <= top * (1 + 1e-3))  # no higher than the highest power on [1, 1024]


def test_load_itl_and_power_at_a_rate_match_the_reference(catalog_rows):
    rows, cap, c = catalog_rows
    capacity = S.capacity_qps(rows, cap, c)
    shares = np.resize(np.array(LOAD_SHARES), len(cap))
    rate = shares * capacity
    load = S.in_flight_at_rate(rows, rate, cap, c)
    ref = reference_in_flight(rows, rate, cap, c)
    assert (shares == 1.5).any() and np.all(load[shares == 1.5] == cap[shares == 1.5])
    # two solves of one equation at fixed constants, no fitted value and no BLAS: exact on any machine
    np.testing.assert_allclose(load, ref, rtol=1e-13)
    for order in (shares, shares[::-1]):  # each row at two loads
        np.testing.assert_allclose(
            S.in_flight_at_rate(rows, order * capacity, cap, c),
            REF.reference_in_flight_at_rate(rows, order * capacity, cap, c),
            rtol=EXACT,
        )
        new, old = (
            S.at_rate(rows, order * capacity, cap, c),
            reference_at_rate(rows, order * capacity, cap, c),
        )
        for key in ("itl_s", "power_w"):
            np.testing.assert_allclose(new[key], old[key], rtol=EXACT)
    out = S.at_rate(rows, rate, cap, c)
    itl = S.step_time_s(rows, np.minimum(1.0 + ref, cap), c)
    busy = -np.expm1(-ref)
    p_idle = S.idle_power_w(rows, c)
    p_busy = S.busy_power_w(rows, np.maximum(ref / np.maximum(busy, 1e-300), 1.0), c)
    np.testing.assert_allclose(out["itl_s"], itl, rtol=RTOL)
    np.testing.assert_allclose(out["power_w"], p_idle + busy * (p_busy - p_idle), rtol=RTOL)


def test_the_load_solves_littles_law_to_machine_precision(catalog_rows):
    rows, cap, c = catalog_rows
    rate = 0.3 * S.capacity_qps(rows, cap, c)
    load = S.in_flight_at_rate(rows, rate, cap, c)
    g = rate * rows.t_out * S.step_time_s(rows, np.minimum(1.0 + load, cap), c) - load
    # a closed-form root lies on either side of the float root by rounding: |g| at that level
    assert np.all(np.abs(g) <= 1e-12 * load)


def test_one_dense_row_solved_on_floats_equals_the_rows_solve(catalog_rows):
    """A single dense row's breakpoints (:func:`Z.affine_breakpoints`), peak batch
    (:func:`one_row_solves.peak_affine`) and load (:func:`one_row_solves.smallest_root_affine`), on Python floats, are
    the bits the array solves give the same row among many: at every upper batch and load share
    (saturated included)."""
    rows, cap, c = catalog_rows
    pick = np.nonzero(~S.step_pieces(rows, c).curved)[0][::5]
    rows, cap = rows.take(pick), cap[pick]
    rate = np.resize(np.array(LOAD_SHARES), len(cap)) * S.capacity_qps(rows, cap, c)
    pieces, uppers = S.step_pieces(rows, c), upper_batches(cap)
    many = [S.in_flight_at_rate(rows, rate, cap, c), pieces.cuts,
            *(S.peak_batch(rows, c, upper=u, pieces=pieces) for u in uppers)]  # fmt: skip
    assert len(cap) > 1000
    for i in range(len(cap)):
        one, at = rows.take(np.arange(len(cap)) == i), slice(i, i + 1)
        one_pieces = S.step_pieces(one, c)
        got = [S.in_flight_at_rate(one, rate[at], cap[at], c, pieces=one_pieces), one_pieces.cuts,
               *(S.peak_batch(one, c, upper=u[at], pieces=one_pieces) for u in uppers)]  # fmt: skip
        for a, b in zip(got, many, strict=True):
            np.testing.assert_array_equal(a, b[at])


def test_golden_max_gives_the_same_answer_however_many_points_a_call_holds():
    centre = np.linspace(0.5, 6.0, 7)

    def f(idx, x):
        return -(np.abs(x - centre[idx, None]) ** 1.5)

    lo0, hi0 = np.zeros(7), np.full(7, 7.0)
    answers = [REF.golden_max(f, lo0, hi0, 24, points_per_call=p) for p in (1, 7, 100, 10**5)]
    for lo, hi in answers[1:]:
        np.testing.assert_array_equal(lo, answers[0][0])
        np.testing.assert_array_equal(hi, answers[0][1])
    lo, hi = answers[0]
    assert np.all(lo <= centre) and np.all(centre <= hi) and np.all(hi - lo < 7.0 * 0.62**24)


def test_lookahead_levels_fill_a_call_and_stay_within_the_steps():
    assert REF.lookahead_levels(1, 24, 256) == 8  # 2^8 - 1 = 255 points
    assert REF.lookahead_levels(10, 24, 256) == 4
    assert REF.lookahead_levels(10**5, 24, 4096) == 1
    assert REF.lookahead_levels(1, 3, 4096) == 3


def test_illinois_finds_the_root_to_adjacent_floats_in_few_calls():
    calls = []

    def f(idx, x):
        calls.append(len(idx))
        return 2.0 * (idx[:, None] + 1.0) - x**3

    lo, hi = np.zeros(4), np.full(4, 3.0)
    f_lo, f_hi = f(np.arange(4), lo[:, None])[:, 0], f(np.arange(4), hi[:, None])[:, 0]
    calls.clear()
    root = REF.illinois_root(f, lo, hi, f_lo, f_hi, 4 * np.finfo(float).eps, 64)
    # a closed-form root (x^3 = 2(i + 1)), no fitted value: exact on any machine
    np.testing.assert_allclose(root, np.cbrt(2.0 * np.arange(1, 5)), rtol=1e-15)
    assert np.all(f(np.arange(4), root[:, None])[:, 0] <= 0)
    assert len(calls) <= 20  # bisection from a bracket of width 3 takes 52


def test_first_nonpositive_finds_the_first_sign_change_in_any_block_size():
    points = np.tile(np.arange(10.0), (3, 1))
    limit = np.array([2.5, 7.5, 20.0])

    def f(idx, x):
        return limit[idx, None] - x

    for per_call in (1, 4, 30, 1000):
        k, at, before = REF.first_nonpositive(f, points, per_call)
        np.testing.assert_array_equal(k, [3, 8, 10])
        np.testing.assert_allclose(at[:2], [-0.5, -0.5])
        np.testing.assert_allclose(before[:2], [0.5, 0.5])
        assert np.isnan(at[2]) and np.isnan(before[2])
