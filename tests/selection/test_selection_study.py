"""WattGPU's case study from every source at every load (selection/study.py), the exact SLA
steps, best plans per GPU type, sentences from numbers (face/prose.py) and the selection
figures (face/plots_selection.py)."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.face import labels, plots, prose
from wattgpu_lite.selection import rank as selection
from wattgpu_lite.selection import study
from wattgpu_lite.selection.verdict import VERDICTS

matplotlib.use("Agg")
LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture(scope="module")
def readings():
    return study.readings(LLAMA8, itl_sla_ms=30)


def test_runs_tokens_are_the_runs_means():
    runs = wl.measurements()
    mine = runs[runs["llm"] == LLAMA8]
    assert study.runs_tokens(LLAMA8) == (round(mine["prompt_tokens"].mean()),
                                         round(mine["generated_tokens"].mean()))  # fmt: skip
    with pytest.raises(ValueError, match="no Watt Counts run"):
        study.runs_tokens("openai/gpt-oss-120b")


def test_the_paper_story_holds_at_both_server_loads_from_every_source(readings):
    c = study.claims(readings)
    assert set(c["source"]) == set(study.READING_SOURCES) and len(c) == 12
    server = c[c["scenario"] != "offline"]
    assert server[["A30 picked", "T4 cannot hold it"]].all().all()
    # logo refuses the L4 at server loads (its ITL lies below the physical floor): no claim
    too_slow = server.set_index("source")["L4 misses the SLA"]
    assert too_slow.drop("logo").all() and not too_slow.loc["logo"].any()
    offline = c[c["scenario"] == "offline"]
    assert set(offline["pick"]) == {"H100 NVL"}  # kept busy, the fast GPU wins
    assert offline["T4 cannot hold it"].all()


# one-word columns that are their own readable label (a raw name with no unit, no abbreviation)
OWN_LABELS = {"source", "scenario", "pick", "strategy"}


def _unlabelled(columns) -> list[str]:
    """The columns a displayed table would print raw: a snake_case name left after labelling
    (labels.raw_names), or a one-word name labels.label leaves as it is, outside OWN_LABELS —
    raw_names alone cannot see that one (no underscore), which is how ``answered`` slipped by.
    A name with a space is already words (claims' "A30 picked")."""
    named = {c: labels.label(c) for c in columns}
    one_word = {c for c, t in named.items() if t == c and " " not in c and c not in OWN_LABELS}
    return [c for c, t in named.items() if labels.raw_names([t]) or c in one_word]


def test_every_column_of_the_case_study_tables_has_a_readable_label(readings):
    # notebook A2 shows study.agreement with readable_columns, notebook 05 study.claims
    tables = {"agreement": study.agreement(readings), "claims": study.claims(readings)}
    for name, table in tables.items():
        assert _unlabelled(table.columns) == [], name
    assert labels.label("answered") == "GPUs answered"


def test_agreement_by_hand_for_one_cell(readings):
    a = study.agreement(readings).set_index(["source", "scenario"])
    assert len(a) == 9 and (a.loc[("paper", "server_low"), "pick"] == "A30")
    mine = readings[(readings["scenario"] == "server_low") & readings["fits"]]
    logo = mine[mine["source"] == "logo"].set_index("gpu")["power_w"].dropna()  # answered
    measured = mine[mine["source"] == "measured"].set_index("gpu")["power_w"]
    by_hand = np.median((logo - measured.loc[logo.index]).abs() / measured.loc[logo.index]) * 100
    assert a.loc[("logo", "server_low"), "power_mdape_pct"] == pytest.approx(by_hand)
    assert len(logo) == 6 and a.loc[("logo", "server_low"), "answered"] == "6 of 7"
    assert a.loc[("paper", "server_low"), "answered"] == "7 of 7"
    # offline the hybrid's ITL is per request, the runs' 1/throughput: the verdicts part
    assert a.loc[("hybrid", "offline"), "same_verdicts"] != "7 of 7"
    assert a.loc[("hybrid", "server_low"), "same_verdicts"] == "7 of 7"


def test_hybrid_offline_reading_uses_the_runs_definition_of_itl(readings):
    hyb = readings[(readings["source"] == "hybrid") & (readings["scenario"] == "offline")]
    ok = hyb[hyb["fits"]]
    assert (ok["runs_itl_ms"] < ok["itl_ms"]).all()  # 1/throughput < a request's ITL at batch


def test_sla_steps_are_exact_and_agree_with_the_sweep():
    table = selection.rank_gpus(LLAMA8, scenario="server_low", itl_sla_ms=30, source="measured")
    steps = study.sla_steps(table)
    assert list(steps["gpu"]) == ["H200 NVL", "H100 NVL", "A100 SXM4 40GB", "A30", "L4"]
    assert steps["energy"].is_monotonic_decreasing and steps["from_ms"].is_monotonic_increasing
    itl = table.set_index("gpu")["itl_ms"]
    assert all(steps["from_ms"] == itl.loc[steps["gpu"]].to_numpy())
    for sla in np.geomspace(3, 150, 60):
        best = selection.pick_under_sla(table, sla)
        last = steps[steps["from_ms"] <= sla]
        assert (best is None) == last.empty
        assert last.empty or best["gpu"] == last["gpu"].iloc[-1]


def test_best_plans_one_row_per_gpu_and_refused_plans_have_no_replicas():
    table = wl.rank_gpus("openai/gpt-oss-120b", rate_qps=20, itl_sla_ms=50, t_in=1024,
                         t_out=1024, candidates=["B200", "H100 SXM", "L4", "MI300X"])  # fmt: skip
    best = study.best_plans(table)
    assert sorted(best["gpu"]) == ["B200", "H100 SXM", "L4", "MI300X"]
    refused = table[~table["fits"]]
    assert len(refused) and refused["replicas"].isna().all()  # a plan that does not fit
    for row in best[best["meets_sla"]].itertuples():  # the GPU's best verdict, then least energy
        mine = table[table["gpu"] == row.gpu]
        assert row.verdict == min(mine["verdict"], key=VERDICTS.index)
        same = mine[mine["verdict"] == row.verdict]
        assert row.energy_per_1k_tokens_j == same["energy_per_1k_tokens_j"].min()
    assert list(best["verdict"]) == sorted(best["verdict"], key=VERDICTS.index)


def test_compare_pair_asks_the_hybrid_with_one_gpu_each():
    pair = selection.compare_pair(LLAMA8, "A30", "H100 NVL", source="hybrid", t_out=255)
    assert list(pair["scenario"]) == ["offline", "server_low", "server_high"]
    row = pair.iloc[1]
    e_a, e_b = row["energy_a_per_1k_tokens_j"], row["energy_b_per_1k_tokens_j"]
    assert row["a_saves_pct"] == pytest.approx((e_b - e_a) / e_b * 100)
    assert row["b_uses_more_pct"] == pytest.approx((e_b - e_a) / e_a * 100)


@pytest.mark.parametrize(("pct", "text"), [(-57.82, "58 % less"), (43.99, "44 % more"),
                                           (133.78, "134 % more"), (-0.4, "0 % less")])  # fmt: skip
def test_more_or_less_never_says_negative_more(pct, text):
    assert prose.more_or_less(pct) == text


def test_both_ways_reads_one_pair_of_numbers_two_ways():
    assert prose.both_ways("the A30", 45.08, "the H100 NVL", 19.01) == (
        "the A30 uses 137 % more energy than the H100 NVL; the H100 NVL uses 58 % less than the A30"
    )


def test_choice_steps_sentence():
    steps = pd.DataFrame({"from_ms": [4.931, 20.52], "gpu": ["H200 NVL", "A30"],
                          "energy": [29117.3, 9305.6]})  # fmt: skip
    assert prose.choice_steps(steps) == (
        "below 4.93 ms no GPU; from 4.93 ms the H200 NVL (29,100 J per 1,000 tokens); "
        "from 20.5 ms the A30 (9,310 J per 1,000 tokens)"
    )
    assert prose.choice_steps(steps.iloc[:0]) == "no GPU meets any SLA"


def test_plan_bars_draw_the_sla_and_keep_each_gpus_colour():
    table = selection.rank_gpus(LLAMA8, scenario="server_low", itl_sla_ms=30, source="measured")
    fig = plots.plan_bars(table, 30.0)
    left = fig.axes[0]
    verticals = [ln for ln in left.get_lines() if len(set(ln.get_xdata())) == 1]
    assert any(math.isclose(ln.get_xdata()[0], 30.0) for ln in verticals)
    labels = [t.get_text() for t in left.get_yticklabels()]
    assert labels[0] == "A30" and "T4" not in labels  # a GPU that cannot hold it has no dot
    a30 = next(ln for ln in left.get_lines() if ln.get_marker() == "o")
    assert matplotlib.colors.same_color(a30.get_color(), plots.gpu_color("A30"))
    l4 = [ln for ln in left.get_lines() if ln.get_marker() == "o"][labels.index("L4")]
    assert matplotlib.colors.same_color(l4.get_markerfacecolor(), "white")  # misses: hollow
    matplotlib.pyplot.close(fig)


def test_replica_sweep_charges_every_replica_held():
    sweep = study.replica_sweep("openai/gpt-oss-120b", "B200", 2, 4.0, [1, 2, 4], 1024, 1024)
    for r in sweep.itertuples():
        p = wl.predict("openai/gpt-oss-120b", "B200", rate_qps=4.0 / r.replicas, t_in=1024,
                       t_out=1024, num_gpus=2)  # fmt: skip
        assert r.total_power_w == pytest.approx(r.replicas * p.power_w)
        # R · P(λ/R) / (λ · T_out) is one replica's own P(λ/R) / ((λ/R) · T_out)
        assert r.energy_per_1k_tokens_j == pytest.approx(p.energy_per_token_j * 1e3, rel=1e-9)
    assert sweep["energy_per_1k_tokens_j"].is_monotonic_increasing  # idle replicas cost


def test_a_replica_sweep_in_the_plans_own_layout_gives_the_plans_energy():
    table = wl.rank_gpus("openai/gpt-oss-120b", rate_qps=20, itl_sla_ms=50, t_in=1024,
                         t_out=1024, candidates=["B200"])  # fmt: skip
    plan = table[(table["ep"] > 1) & table["fits"]].iloc[0]  # an expert layout, not tensor parallel
    sweep = study.replica_sweep("openai/gpt-oss-120b", "B200", int(plan["num_gpus"]), 20.0,
                                [int(plan["replicas"])], 1024, 1024,
                                parallel=wl.Parallel(tp=int(plan["tp"]), ep=int(plan["ep"])))  # fmt: skip
    assert sweep["energy_per_1k_tokens_j"].iloc[0] == pytest.approx(
        plan["energy_per_1k_tokens_j"], rel=1e-6
    )
