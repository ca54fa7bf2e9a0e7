"""The README's figures on the hybrid predictor are the shipped results, recomputed here."""

from __future__ import annotations

from pathlib import Path

import pytest

from wattgpu_lite.hybrid.report import external
from wattgpu_lite.hybrid.report import results as report

# the README's prose with its line breaks folded, so a figure may wrap
README = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())


def _fig(value: float) -> str:
    """The README's rounding: 3 significant figures."""
    return f"{value:.3g}"


@pytest.fixture(scope="module")
def logo():
    return report.pooled(report.shipped("logo")).set_index(["target", "regime"])


def test_nested_leave_one_gpu_out_figures(logo):
    for key in (("itl", "offline"), ("power", "offline"), ("itl", "server"), ("power", "server")):
        assert f"within {_fig(logo.loc[key, 'mdape_pct'])} %" in README, key
    for key in (("itl", "offline"), ("power", "offline")):
        assert f"cover {100 * logo.loc[('itl', 'offline'), 'coverage80']:.1f} %" in README
        assert f"{100 * logo.loc[key, 'coverage80']:.1f} %" in README, key
    widths = [
        f"{logo.loc[k, 'width80_hi_lo']:.2f}"
        for k in (("power", "offline"), ("itl", "offline"), ("itl", "server"), ("power", "server"))
    ]
    assert f"offline power (median hi/lo {widths[0]})" in README
    assert "(ITL {} offline, {} at server load; server power {})".format(*widths[1:]) in README
    below = (report.per_group(report.shipped("logo"))["coverage80"] < 0.6).sum()
    words = dict(enumerate(("no", "one", "two", "three", "four", "five", "six", "seven", "eight")))
    assert words[int(below)] + " held-out GPU × scenario cell" in README


def test_external_figures():
    s = external.summary().set_index(["quantity", "replica"])
    one, many = "one GPU", "several GPUs"
    assert f"power within {_fig(s.loc[('power_w', one), 'mdape_pct'])} %" in README
    assert (
        f"energy per output token within {_fig(s.loc[('energy_per_token_j', one), 'mdape_pct'])} %"
        in README
    )
    assert (
        f"EcoLogits' formula {_fig(s.loc[('energy_per_token_j', one), 'ecologits_mdape_pct'])} %"
        in README
    )
    assert f"ITL within {_fig(s.loc[('itl_s', one), 'mdape_pct'])} %" in README
    assert (
        f"energy per token {_fig(s.loc[('energy_per_token_j', many), 'mdape_pct'])} % off" in README
    )
    assert (
        f"EcoLogits {_fig(s.loc[('energy_per_token_j', many), 'ecologits_mdape_pct'])} %" in README
    )
    assert f"{_fig(s.loc[('itl_s', many), 'mdape_pct'])} % off" in README
    energy_rows = int(s.loc[("energy_per_token_j", many), "rows"])
    itl_rows = int(s.loc[("itl_s", many), "rows"])
    assert f"on the {energy_rows} rows that give it" in README
    assert f"off on {itl_rows} rows" in README


def test_external_figures_held_out_per_source():
    """The honest out-of-source figures: each source predicted at constants refitted without it
    (data/hybrid/loso_sources.csv), beside the runs-alone constants; the shipped model's own
    figures on those rows are labelled in-sample for its constants."""
    from wattgpu_lite.hybrid.report import calibration, external
    from wattgpu_lite.hybrid.report import external_per_gpu as per

    assert "Against published measurements it never saw" not in README
    assert "in-sample for its constants" in README
    loso = calibration.shipped()
    med = loso.groupby(["quantity", "basis"])[["mdape_pct", "ratio"]].median()

    def pct(quantity: str) -> str:
        chosen, alone = (med.loc[(quantity, b), "mdape_pct"] for b in ("chosen", "watt_counts"))
        return f"{chosen:.1f} % ({alone:.1f} %"

    assert f"Over the {loso['source'].nunique()} held-out sources" in README
    assert f"the ITL error is {pct('itl_s')} with the runs-alone constants)" in README
    assert f"throughput's {pct('throughput_tokens_per_s')})" in README
    assert f"power's {pct('power_w')})" in README
    itl = med.loc["itl_s", "ratio"]
    said = f"predicted / measured ITL {itl['chosen']:.2f} ({itl['watt_counts']:.2f}; the runs, all dense,"
    assert said in README
    by = loso.assign(label=lambda t: t["source"].map(per.source_labels(t["source"])))
    by = by.set_index(["label", "quantity", "basis"])["ratio"]

    def ratios(label: str, quantity: str, what: str = "") -> str:
        chosen, alone = (by.loc[(label, quantity, b)] for b in ("chosen", "watt_counts"))
        return f"{chosen:.2f}×{what} ({alone:.2f}×)"

    lib = "LLM-Inference-Bench, repository throughput data (docs/data/Throughput)"
    fp8 = "LLM-Inference-Bench, repository data for Fig. 3 (quantisation)"
    ix = "SemiAnalysisAI/InferenceX issue #828"
    assert f"Splitwise's tensor-parallel ITL at {ratios('Splitwise', 'itl_s')}" in README
    assert f"batches at {ratios(lib, 'throughput_tokens_per_s', ' their throughput')}" in README
    assert f"H100s at {ratios(ix, 'itl_s', ' their ITL')}" in README
    fast = by.loc[(fp8, "throughput_tokens_per_s", "chosen")]
    assert f"FP8 rows still {fast:.2f}× too fast" in README
    behind = external.left_out()["reason"] == external.FELL_BEHIND
    assert f"(dstack's {behind.sum()} online rows:" in README
    h100 = per.per_gpu().set_index(["gpu", "quantity"]).loc[("H100 SXM", "throughput_tokens_per_s")]
    worse = f"({h100['mdape_hybrid']:.1f} % against {h100['mdape_backbone']:.1f} %)"
    assert (
        f"worse than the backbone alone by under a point on the H100 SXM's throughput {worse}"
        in README
    )


def test_the_shipped_cross_source_itl_intervals_held_out():
    """The ITL intervals of configurations the runs never cover, judged leave one source out (the
    calibrated folds' intervals, built as the shipped table is), as README and A2 state them."""
    from wattgpu_lite.hybrid.report import calibrated

    by = calibrated.per_configuration().set_index(["quantity", "configuration"])
    never = by.loc[("itl_s", "the runs never cover it")]
    said = f"cover {never['coverage80']:.2f} of such rows at a median high / low of {never['width']:.2f}"
    assert said in README
    sources = " ".join(
        (Path(__file__).resolve().parents[2] / "data" / "SOURCES.md").read_text().split()
    )
    rows = int(never["rows"])
    assert (
        f"cover {never['coverage80']:.3f} of {rows} values at a median high / low of {never['width']:.2f}"
        in sources
    )


def test_paired_comparisons():
    """The case study's runner-up against the pick (paired) and the 2026 plan's runner-up
    (unpaired), as notebook 05 prints them."""
    import wattgpu_lite as wl
    from wattgpu_lite.selection import study

    llm = "meta-llama/Llama-3.1-8B-Instruct"
    t_in, t_out = study.runs_tokens(llm)
    pair = wl.compare(llm, gpus=["A30", "A100 SXM4 40GB"], scenario="server_low", t_in=t_in,
                      t_out=t_out)  # fmt: skip
    assert pair.reference == "A30"
    r = next(row for row in pair.rows if row["gpu"] != pair.reference)
    assert r["interval"] == "paired" and r["verdict"] == "worse"
    assert (f"at {r['energy_ratio']:.2f}× the A30's energy per token with a paired 80 % interval "
            f"of {r['energy_ratio_lo']:.2f}–{r['energy_ratio_hi']:.2f}") in README  # fmt: skip
    plans = wl.rank_gpus("openai/gpt-oss-120b", rate_qps=20.0, itl_sla_ms=50.0, t_in=1024,
                         t_out=1024, candidates=["H100 SXM", "H100 PCIe", "H200 SXM", "H200 NVL",
                                                 "B200", "GB200", "MI300X", "MI325X", "L40S",
                                                 "L4"])  # fmt: skip
    best = study.best_plans(plans)
    assert best.iloc[0]["gpu"] == "MI300X" and best.iloc[1]["gpu"] == "B200"
    pick, row = best.iloc[0], best.iloc[1]
    assert (pick["num_gpus"], pick["replicas"], pick["verdict"]) == (4, 2, "meets")
    assert (row["num_gpus"], row["replicas"]) == (2, 3)
    assert "the pick, two replicas of four MI300X each, meets the SLA" in README
    assert row["vs_best_interval"] == "unpaired"
    assert (
        f"is at {row['vs_best_energy_ratio']:.2f}× the MI300X pick's with an unpaired interval of "
        f"{row['vs_best_energy_ratio_lo']:.2f}–{row['vs_best_energy_ratio_hi']:.2f}"
    ) in README
    assert row["vs_best_energy_ratio_lo"] < 1 < row["vs_best_energy_ratio_hi"]  # within the noise


def test_the_run_counts_in_the_opening():
    import wattgpu_lite as wl

    runs, dense = wl.measurements(), wl.measurements(dense_only=True)
    assert (f"on {len(runs):,} real vLLM runs over {runs['gpu'].nunique()} GPUs and "
            f"{runs['llm'].nunique()} LLMs") in README  # fmt: skip
    assert f"{len(dense):,} of them on the {dense['llm'].nunique()} dense LLMs" in README


def test_external_figures_per_source():
    """The table's size and the per-source ratios the README quotes."""
    from wattgpu_lite.datafiles import data_dir, read_csv
    from wattgpu_lite.hybrid.report import external_per_gpu as per

    table = external.table()
    assert f"{len(table):,} rows from {table['source_title'].nunique()} documents" in README
    by = per.per_source().assign(label=lambda t: t["source"].map(per.source_labels(t["source"])))
    by = by.set_index(["label", "quantity"])

    def ratio(label: str, quantity: str) -> str:
        return f"{by.loc[(label, quantity), 'ratio_hybrid']:.2f}"

    lib = by.loc[("LLM-Inference-Bench, repository throughput data (docs/data/Throughput)",
                  "throughput_tokens_per_s")]  # fmt: skip
    fp8 = by.loc[("LLM-Inference-Bench, repository data for Fig. 3 (quantisation)",
                  "throughput_tokens_per_s")]  # fmt: skip
    assert f"median {lib['ratio_hybrid']:.1f}× on the {int(lib['rows']):,}" in README
    assert f"{fp8['ratio_hybrid']:.1f}× on their FP8 ones" in README
    ours = "wattgpu_lite H200 decode steps, PyTorch decoder with CUDA graphs"
    assert f"{ratio(ours, 'itl_s')}× their ITL and {ratio(ours, 'power_w')}× their power" in README
    assert f"at {ratio('Splitwise', 'itl_s')}× their ITL" in README
    h200 = read_csv(data_dir() / "h200_decode_measurements.csv")
    eager = h200.loc[(h200["harness"] == "transformers_eager") & (h200["status"] == "ok"), "itl_ms"]
    assert f"take {eager.min():.0f}–{eager.max():.0f} ms a step" in README


def test_the_shipped_constants_and_the_all_reduce_share_in_the_opening():
    """The host cost per sequence and the collectives' ratio of the shipped constants, and the
    all-reduces' share of Llama-3.3-70B's energy on 8 H100 SXM at batch 1, 500/500 (notebook A1)."""
    from wattgpu_lite.energy import sweeps
    from wattgpu_lite.hybrid.predict.model import HybridState

    c = HybridState.pretrained().constants
    assert f"host cost per sequence in flight ({1e6 * c.seq_s:.1f} µs)" in README
    assert f"each collective's latency, {c.collective_ratio:.1f}× NCCL's model" in README
    tidy = sweeps.vs_num_gpus("meta-llama/Llama-3.3-70B-Instruct", "H100 SXM", [8], batch=1)
    share = tidy.set_index("component")["energy_per_token_j"]
    comm = 100 * share["communication"] / share.sum()
    assert f"the all-reduces are {comm:.1f} % of Llama-3.3-70B's" in README
