"""The ``rank`` command: JSON with every candidate, fits/meets flags and energy; errors exit 2."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

import wattgpu_lite as wl
from wattgpu_lite.__main__ import main

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"


def _rank_json(capsys, *extra: str) -> list[dict]:
    argv = ["rank", "--llm", LLAMA8, "--scenario", "server_low", "--itl-sla-ms", "30", "--json"]
    assert main([*argv, *extra]) == 0
    return json.loads(capsys.readouterr().out)["rows"]


def test_rank_json_measured_every_candidate(capsys):
    rows = {r["gpu"]: r for r in _rank_json(capsys, "--source", "measured")}
    assert set(rows) == set(wl.measurements.MEASURED_GPUS)
    assert rows["A30"]["rank"] == 1 and rows["A30"]["meets_sla"] and rows["A30"]["fits"]
    assert rows["L4"]["fits"] and not rows["L4"]["meets_sla"]
    assert not rows["T4"]["fits"] and rows["T4"]["energy_per_request_j"] is None
    assert "90 % of 16 GB" in rows["T4"]["why_not"]
    # server_low: energy per request = P / 0.017 req/s
    a30 = rows["A30"]
    per_request = a30["power_w"] / 0.017  # both rounded to 6 significant figures
    assert a30["energy_per_request_j"] == pytest.approx(per_request, rel=1e-5)


def test_rank_by_default_ranks_todays_gpus_measured_the_8_and_all_widens(capsys):
    from wattgpu_lite.face.widgets_gpu import gpu_explorer
    from wattgpu_lite.selection.inputs import current_gpus, default_candidates

    today = set(current_gpus()["gpu"])
    assert inspect.signature(gpu_explorer).parameters["candidates"].default is None
    assert set(default_candidates("hybrid")) == today  # the dashboard's default, as rank's
    assert {r["gpu"] for r in _rank_json(capsys)} == today
    measured = set(wl.measurements.MEASURED_GPUS)
    assert {r["gpu"] for r in _rank_json(capsys, "--source", "measured")} == measured
    for source in ("hybrid", "measured"):
        rows = _rank_json(capsys, "--source", source, "--gpus", "measured")
        assert {r["gpu"] for r in rows} == measured and all(r["measured"] for r in rows), source
    rows = _rank_json(capsys, "--gpus", "all")
    assert {r["source"] for r in rows} == {"hybrid"}
    assert {r["gpu"] for r in rows} == set(wl.gpus()["name"])
    for r in rows:
        assert isinstance(r["fits"], bool) and isinstance(r["meets_sla"], bool)
        assert (r["energy_per_1k_tokens_j"] is not None) == r["fits"]


def test_rank_gpus_subset_and_table(capsys):
    argv = [
        "rank",
        "--llm",
        LLAMA8,
        "--rate-qps",
        "0.017",
        "--itl-sla-ms",
        "30",
        "--gpus",
        "A30,L4",
    ]
    assert main([*argv, "--source", "measured"]) == 0
    out = capsys.readouterr().out
    assert "A30" in out and "L4" in out and "H100" not in out and "ITL 59.5 ms > SLA 30 ms" in out


@pytest.mark.parametrize(
    "bad",
    [["--itl-sla-ms", "0"], ["--itl-sla-ms", "30", "--gpus", ","], ["--itl-sla-ms", "-1"]],
)
def test_rank_bad_input_exits_2(capsys, bad):
    assert main(["rank", "--llm", LLAMA8, "--scenario", "server_low", *bad]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_rank_any_config_and_spec_file(capsys):
    fixtures = Path(__file__).parents[1] / "fixtures"
    argv = ["rank", "--llm", str(fixtures / "gpt2.json"), "--scenario", "offline",
            "--itl-sla-ms", "1", "--gpus", f"A30,{fixtures / 'gpu_rtx5090_spec.json'}",
            "--gpu-counts", "1", "--json"]  # fmt: skip
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert len(rows) == 2 and all(r["fits"] for r in rows)  # a 0.12 B model fits anywhere
    assert all(r["energy_per_1k_tokens_j"] > 0 for r in rows)


def test_rank_moe_config_is_answered_by_physics_and_refused_by_the_paper_model(capsys):
    fixtures = Path(__file__).parents[1] / "fixtures"
    argv = ["rank", "--llm", str(fixtures / "mixtral_moe.json"), "--scenario", "server_low",
            "--itl-sla-ms", "60", "--gpus", "H100 SXM,B200"]  # fmt: skip
    assert main([*argv, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {r["basis"] for r in rows} == {"physics"}
    assert main([*argv, "--source", "paper"]) == 2
    assert "dense models only" in capsys.readouterr().err


def test_rank_text_view_says_the_pick_shows_top_plans_and_lists_why_not(capsys):
    argv = ["rank", "--llm", LLAMA8, "--rate-qps", "0.017", "--itl-sla-ms", "30", "--top", "3",
            "--gpus", "measured"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    # 1, 2, 4, 8 GPUs of each catalog type: the rows are plans, and only three are printed
    assert lines[0].startswith("Pick: A30 (") and " plans meet 30 ms" in lines[0]
    assert "energy per 1,000 tokens (J)" in lines[2] and "verdict" in lines[2]
    assert "In parentheses: the 80 % interval." in out  # the short headers' level, said once
    assert [ln.split()[0] for ln in lines[3:6]] == ["1", "2", "3"]
    at = next(i for i, ln in enumerate(lines) if ln.startswith("defaults: "))
    assert re.search(r"^\d+ more plans: --top \d+ or --json shows all\.$", lines[at - 1])
    assert " ".join(" ".join(lines[at:]).split()).startswith(
        "defaults: t_in 15 (built-in), t_out 180 (built-in), workload watt-counts (built-in), grid"
    )
    assert max(len(ln) for ln in lines) < 260  # the why-nots no longer widen every row


def test_rank_gpus_defaults_to_todays_gpus_and_the_watt_counts_sources_to_their_8():
    from wattgpu_lite.selection.inputs import current_gpus

    for source, expected in (("hybrid", set(current_gpus()["gpu"])),
                             ("paper", set(wl.measurements.MEASURED_GPUS))):  # fmt: skip
        table = wl.rank_gpus(
            LLAMA8, scenario="offline", itl_sla_ms=50, source=source, gpu_counts=(1,)
        )
        assert set(table["gpu"]) == expected, source
    wide = wl.rank_gpus(
        LLAMA8, scenario="offline", itl_sla_ms=50, candidates="all", gpu_counts=(1,)
    )
    assert set(wide["gpu"]) == set(wl.gpus()["name"])


def test_the_narrow_view_drops_columns_the_table_has():
    from wattgpu_lite.face.cli.rank_view import NARROW_DROPS
    from wattgpu_lite.face.explorer import display_table

    table = wl.rank_gpus(
        LLAMA8, scenario="server_low", itl_sla_ms=30, candidates=["A30"], gpu_counts=(1,)
    )
    assert set(NARROW_DROPS) <= set(display_table(table).columns)


def test_rank_text_view_shows_each_plans_ratio_to_the_best_beside_the_sort_column(capsys):
    """A "vs best" column in the text view — the pick "best", every other plan
    its energy ratio with its interval (the JSON's vs_best_energy_ratio), within 100 columns."""
    from wattgpu_lite.face.cli.rank_view import VS_BEST

    argv = ["rank", "--llm", "openai/gpt-oss-120b", "--rate-qps", "20", "--itl-sla-ms", "50",
            "--gpus", "H100 SXM,H200 SXM,B200,MI300X", "--top", "5"]  # fmt: skip
    assert main([*argv, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"][:5]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith("rank "))
    assert lines[head].rstrip().endswith(VS_BEST) and max(len(ln) for ln in lines) <= 100
    assert lines[head].index("energy per 1,000 tokens (J)") < lines[head].index(VS_BEST)
    cells = [
        ln[lines[head].index(VS_BEST) - 20 :].split()[-2:] for ln in lines[head + 1 : head + 6]
    ]
    assert cells[0][-1] == "best" and rows[0]["vs_best_interval"] == "reference"
    for (ratio, interval), row in zip(cells[1:], rows[1:], strict=True):
        assert float(ratio.lstrip("~")) == pytest.approx(row["vs_best_energy_ratio"], rel=5e-3)
        assert ratio.startswith("~") == (row["vs_best_interval"] == "unpaired")
        lo, hi = interval.strip("()").split("–")
        assert float(lo) == pytest.approx(row["vs_best_energy_ratio_lo"], rel=5e-3)
        assert float(hi) == pytest.approx(row["vs_best_energy_ratio_hi"], rel=5e-3)
