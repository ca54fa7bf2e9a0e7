"""The shipped model's ITL intervals on rows the runs never cover: the quantiles of the backbone's
errors on other harnesses' measurements, per regime cell (hybrid.report.interval_methods builds
the table, hybrid.predict.interval_steps reads it). The table on a synthetic pool derived by hand,
the shipped table's invariants, and the predictor reading the right cell at the right level while
every other interval stays as the runs calibrated it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.hybrid.predict import interval_steps, intervals
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.report import external_intervals, interval_methods

GPT_OSS, LLAMA = "openai/gpt-oss-120b", "meta-llama/Llama-3.1-8B-Instruct"
#: (source, z = ln(measured / predicted), rows) of the synthetic pool: every row in the cell
#: (GPU not seen, several GPUs, <= 16 in flight, > 1024 tokens)
POOL = (("a", -0.3, 20), ("b", 0.1, 20), ("c", 0.5, 20))


def _rows(source: str, z: float, n: int, quantity: str = "itl_s") -> pd.DataFrame:
    return pd.DataFrame({
        "source_title": source, "quantity": quantity, "gpu_seen": False, "replica": "several GPUs",
        "batch_band": "≤ 16", "context_band": "> 1024", "predicted": 1.0,
        "measured": np.exp(np.full(n, z)),
    })  # fmt: skip


def _pool(sources=POOL, quantity: str = "itl_s") -> pd.DataFrame:
    return pd.concat([_rows(s, z, n, quantity) for s, z, n in sources], ignore_index=True)


def test_a_cell_of_the_table_is_the_source_weighted_quantile_of_its_rows():
    """Three sources of 20 rows at z = -0.3, 0.1, 0.5, each row weighing 1/60: the k-th sorted
    row sits at the cumulative midpoint (k − 0.5)/60. At level 0.8 the 10 % and 90 % quantiles
    fall inside the first and last sources' rows: -0.3 and 0.5. At level 1/3, the ends 1/3 and
    2/3 lie halfway between rows 20 and 21 (19.5/60, 20.5/60) and rows 40 and 41: -0.1 and 0.3."""
    levels = (1 / 3, 0.8)
    table = interval_methods.cross_source_table(_pool(), "source_weighted", levels=levels)
    assert set(table["targets"]) == {"itl"}
    cells = table["targets"]["itl"]["cells"]
    assert len(cells) == 16
    cell = cells[13]  # 8 · (not seen) + 4 · (several GPUs) + 2 · 0 + 1 · (> 1024)
    labels = tuple(cell[c] for c in interval_methods.REGIME)
    assert labels == (False, "several GPUs", "≤ 16", "> 1024")
    assert (cell["regime_depth"], cell["rows"], cell["sources"]) == (0, 60, 3)
    assert cell["z_lo"] == pytest.approx([-0.1, -0.3])
    assert cell["z_hi"] == pytest.approx([0.3, 0.5])
    # a cell with no row of its own falls back to the quantity alone (depth 4): the same rows
    assert cells[0]["regime_depth"] == len(external_intervals.REGIME_KEYS) - 1
    assert cells[0]["z_lo"] == pytest.approx(cell["z_lo"])


def test_a_quantity_needs_three_sources_of_twenty_values():
    """Power from two sources of 20 values and one of 19: no table (its between-source spread is
    unknown); ITL beside it keeps its own."""
    power = _pool((("a", 0.0, 20), ("b", 0.1, 20), ("c", 0.2, 19)), quantity="power_w")
    table = interval_methods.cross_source_table(pd.concat([_pool(), power]), "source_weighted")
    assert set(table["targets"]) == {"itl"}
    assert table["targets"]["itl"]["levels"] == list(intervals.LEVEL_GRID)
    alone = interval_methods.cross_source_table(power, "source_weighted")
    assert alone["targets"] == {}


def test_an_unknown_method_is_refused_with_the_candidates():
    with pytest.raises(ValueError, match="unknown interval method 'no such method'.*pooled"):
        interval_methods.cross_source_table(_pool(), "no such method")


def test_the_shipped_table_holds_itl_alone_in_nested_cells():
    model = HybridState.pretrained()
    table = model.cross_source
    assert table["constants"] == model.built_with["constants"]
    assert table["method"] in interval_methods.CANDIDATES
    assert table["splits"] == {
        "batch": external_intervals.BATCH_SPLIT,
        "context": external_intervals.CONTEXT_SPLIT,
    }
    assert set(table["targets"]) == {"itl"}  # power: one source of >= 20 values (the H200 steps)
    itl = table["targets"]["itl"]
    assert itl["levels"] == list(intervals.LEVEL_GRID)
    expected = interval_methods.regime_cells("itl_s")
    for k, cell in enumerate(itl["cells"]):
        labels = [cell[c] for c in interval_methods.REGIME]
        assert labels == list(expected.loc[k, list(interval_methods.REGIME)])
        assert cell["rows"] >= external_intervals.MIN_ROWS
        lo, hi = np.array(cell["z_lo"]), np.array(cell["z_hi"])
        # a higher level reaches further out on both sides, and no end crosses the other
        assert (np.diff(lo) <= 1e-12).all() and (np.diff(hi) >= -1e-12).all()
        assert (lo <= hi).all()


def _itl(p) -> tuple[float, float, float]:
    return p.itl_s, p.itl_s_interval.lo, p.itl_s_interval.hi


def test_a_tensor_parallel_row_reads_its_cell_at_the_level():
    """gpt-oss-120b on 8 H100 SXM (no Watt Counts board) at batch 4, 1,024 + 1,024 tokens: cell
    8 + 4 + 0 + 1 = 13. Its ITL interval is the prediction times e^z_lo and e^z_hi at 0.8 (the
    step floor below), unwidened; the power interval is the one the runs calibrate, the same as
    a model without the table's."""
    model = HybridState.pretrained()
    ask = dict(num_gpus=8, batch=4, t_in=1024, t_out=1024)
    p = wl.predict(GPT_OSS, "H100 SXM", **ask)
    itl = model.cross_source["targets"]["itl"]
    at = itl["levels"].index(0.8)
    z_lo, z_hi = itl["cells"][13]["z_lo"][at], itl["cells"][13]["z_hi"][at]
    value, lo, hi = _itl(p)
    assert lo == pytest.approx(max(value * np.exp(z_lo), 0.0), rel=1e-12)
    assert hi == pytest.approx(value * np.exp(z_hi), rel=1e-12)
    assert any("spread of the backbone's errors" in n for n in p.notes)
    # beyond the runs' ranges only the power interval widens: the ITL's is never widened
    beyond = [n for n in p.notes if "the training range" in n]
    assert beyond and all(n.endswith(": the power interval is widened") for n in beyond)
    runs_only = wl.predict(GPT_OSS, "H100 SXM", model=replace(model, cross_source={}), **ask)
    assert any(n.endswith(": the interval is widened") for n in runs_only.notes)
    assert p.power_w_interval == runs_only.power_w_interval
    assert (runs_only.itl_s_interval.hi / runs_only.itl_s_interval.lo) > (hi / lo)
    # energy per token: inside the products of the power and time-per-token ends
    e, t = p.energy_per_token_j_interval, p.time_per_token_s_interval
    assert p.power_w_interval.lo * t.lo * (1 - 1e-12) <= e.lo <= e.hi
    assert e.hi <= p.power_w_interval.hi * t.hi * (1 + 1e-12)


def test_the_cross_source_interval_does_not_depend_on_the_correction_and_nests_in_level():
    ask = dict(num_gpus=4, rate_qps=1.0, t_in=2000, t_out=500)
    p = wl.predict(GPT_OSS, "H200 SXM", **ask)
    assert _itl(p) == _itl(wl.predict(GPT_OSS, "H200 SXM", correction=False, **ask))
    wide = wl.predict(GPT_OSS, "H200 SXM", level=0.9, **ask)
    assert wide.itl_s_interval.lo <= p.itl_s_interval.lo <= p.itl_s <= p.itl_s_interval.hi
    assert p.itl_s_interval.hi <= wide.itl_s_interval.hi


def test_configurations_the_runs_cover_keep_the_runs_intervals():
    """A dense 16-bit model on one GPU, corrected or not — on a Watt Counts GPU (the A30) or on
    one beyond every training GPU's bandwidth (the B200: basis 'physics', the runs' intervals
    for new GPUs, widened) — has no cell: the same intervals as a model without the table."""
    model = HybridState.pretrained()
    without = replace(model, cross_source={})
    for gpu, correction in (("A30", True), ("A30", False), ("B200", True)):
        ask = dict(rate_qps=0.5, t_in=500, t_out=300, correction=correction)
        p, q = wl.predict(LLAMA, gpu, **ask), wl.predict(LLAMA, gpu, model=without, **ask)
        assert (p.itl_s_interval, p.power_w_interval) == (q.itl_s_interval, q.power_w_interval)
        assert not any("spread of the backbone's errors" in n for n in p.notes)
    assert wl.predict(LLAMA, "B200", rate_qps=0.5).itl_s_interval.basis == "physics"


def test_predict_many_reads_the_same_cells_as_predict():
    frame = pd.DataFrame(
        {"llm": [GPT_OSS, GPT_OSS, LLAMA], "gpu": ["H100 SXM", "B200", "A30"], "t_in": 1024}
    ).assign(num_gpus=[8, 1, 1], batch=[64.0, 4.0, 8.0], t_out=256)
    many = wl.predict_many(frame)
    for k, row in frame.iterrows():
        ask = dict(num_gpus=int(row["num_gpus"]), batch=row["batch"], t_in=1024, t_out=256)
        p = wl.predict(row["llm"], row["gpu"], **ask)
        got = many.loc[k, ["itl_s", "itl_s_lo", "itl_s_hi"]].to_numpy(dtype=float)
        np.testing.assert_allclose(got, _itl(p), rtol=1e-12)
        # the frame says whose errors the interval spreads, as the prediction's note does
        crossed = any("spread of the backbone's errors" in n for n in p.notes)
        assert many.loc[k, "itl_interval_from"] == ("other harnesses" if crossed else "the runs")
    assert list(many["itl_interval_from"]) == ["other harnesses", "other harnesses", "the runs"]


def test_a_row_without_an_interval_names_no_source():
    """An invalid row and one that does not fit have no ITL interval, so no source ("")."""
    frame = pd.DataFrame({"llm": [GPT_OSS, GPT_OSS, GPT_OSS], "gpu": ["H100 SXM", "A30", "B200"]})
    many = wl.predict_many(frame.assign(num_gpus=[8, 1, 1], batch=[4.0, 4.0, -1.0]))
    assert list(many["status"]) == ["ok", "does not fit in memory", "invalid input"]
    assert list(many["itl_interval_from"]) == ["other harnesses", "", ""]
    assert many["itl_s_lo"].isna().tolist() == [False, True, True]


def test_the_cell_codes_follow_the_regime_order():
    """cell_step by hand on three rows: gpt-oss-120b on 8 H100 SXM at batch 64 with 1,280
    tokens (8 + 4 + 2 + 1 = 15); on one B200 at batch 4 (8 + 0 + 0 + 1 = 9); Llama-3.1-8B on an
    A30, which the runs cover (-1)."""
    from wattgpu_lite.hybrid.predict import steps

    model = HybridState.pretrained()
    llms = [wl.llm(GPT_OSS), wl.llm(GPT_OSS), wl.llm(LLAMA)]
    gpus = [wl.gpu("H100 SXM"), wl.gpu("B200"), wl.gpu("A30")]
    batch, num_gpus = np.array([64.0, 4.0, 8.0]), np.array([8, 1, 1])
    out = steps.predict_arrays(
        model,
        llms,
        gpus,
        1024,
        t_out=256,
        rate_qps=np.full(3, np.nan),
        batch=batch,
        num_gpus=num_gpus,
    )
    assert out.cell.tolist() == [15, 9, -1]
    assert interval_steps.cross_targets(replace(model, cross_source={})) == {}


def test_explain_says_the_widening_is_the_power_intervals_where_the_itl_is_cross_source():
    ask = dict(num_gpus=8, batch=4, t_in=1024, t_out=1024)
    table = wl.explain(GPT_OSS, "H100 SXM", **ask).table().set_index("part")
    assert table.loc["widening", "note"].endswith("(power: the ITL's is from other harnesses)")
    dense = wl.explain(LLAMA, "B200", rate_qps=0.5).table().set_index("part")
    assert dense.loc["widening", "note"] == "beyond the training range"


def _cells(llm: str, gpu: str, *, batch: float, t_in: int, t_out: int, num_gpus: int = 1,
           weights: str | None = None):  # fmt: skip
    from wattgpu_lite.hybrid.predict import steps

    out = steps.predict_arrays(HybridState.pretrained(), [wl.llm(llm)], [wl.gpu(gpu)], t_in,
                               t_out=t_out, rate_qps=np.array([np.nan]), batch=np.array([batch]),
                               num_gpus=np.array([num_gpus]), weights=[weights])  # fmt: skip
    return out


def test_the_bands_split_where_the_report_splits_them():
    """The report's bands (hybrid.report.external_intervals): 16 in flight and 1,024 tokens of
    context are the lower bands ('≤'), one more is the upper. gpt-oss-120b on 2 H100 SXM, offline
    (in flight = the batch): cell 8 + 4 = 12, plus 2 above 16 in flight, plus 1 above 1,024."""
    at = {(b, t): _cells(GPT_OSS, "H100 SXM", batch=b, t_in=t - 24, t_out=24, num_gpus=2)
          for b in (16.0, 17.0) for t in (1024, 1025)}  # fmt: skip
    assert {k: int(v.cell[0]) for k, v in at.items()} == {
        (16.0, 1024): 12, (16.0, 1025): 13, (17.0, 1024): 14, (17.0, 1025): 15
    }  # fmt: skip
    assert at[16.0, 1024].in_flight[0] == 16.0


def test_cell_zero_is_read_and_a_covered_row_has_no_cell():
    """FP8 Llama-3.1-8B on the A30 (a GPU of the runs, one GPU, batch 4, 200 tokens): cell 0,
    whose quantiles at 0.8 set the ITL interval (its low end held at the FP8 step's floor); the
    same model in BF16 (the runs cover it): -1."""
    model = HybridState.pretrained()
    p = wl.predict(LLAMA, "A30", batch=4, t_in=100, t_out=100, weights="fp8")
    itl = model.cross_source["targets"]["itl"]
    at = itl["levels"].index(0.8)
    z_lo, z_hi = itl["cells"][0]["z_lo"][at], itl["cells"][0]["z_hi"][at]
    fp8 = _cells(LLAMA, "A30", batch=4, t_in=100, t_out=100, weights="fp8")
    assert fp8.cell.tolist() == [0]
    cell = itl["cells"][0]
    said = (f"on {cell['rows']} published measurements from {cell['sources']} source"
            f"{'s' if cell['sources'] > 1 else ''} (a GPU of the runs, one GPU, ≤ 16 in flight, "
            "≤ 1024 tokens of context;")  # fmt: skip
    assert any(said in n for n in p.notes)
    low = max(p.itl_s * np.exp(min(z_lo, 0)), fp8.itl_floor_s[0])
    assert p.itl_s_interval.hi == pytest.approx(p.itl_s * np.exp(max(z_hi, 0)), rel=1e-12)
    assert p.itl_s_interval.lo == pytest.approx(low, rel=1e-12)
    covered = _cells(LLAMA, "A30", batch=4, t_in=100, t_out=100)
    assert covered.cell.tolist() == [-1] and covered.cell.dtype.kind == "i"
    # whose errors each interval spreads: cell 0 is other harnesses', no cell the runs'
    assert (fp8.itl_interval_codes().tolist(), covered.itl_interval_codes().tolist()) == ([2], [1])
