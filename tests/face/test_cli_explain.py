"""``wattgpu-lite explain`` and ``--plot``: the envelope, a text view ≤ 100 columns, the wall
accounting, the PNG figures of ``explain``, ``rank``, ``predict`` and ``estimate``, and a one-line
error without matplotlib."""

from __future__ import annotations

import json

import pytest

import wattgpu_lite as wl
from wattgpu_lite.__main__ import main
from wattgpu_lite.face import style
from wattgpu_lite.face.cli import plot as cli_plot

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
EXPLAIN = ["explain", "--llm", LLAMA, "--gpu", "H100 NVL", "--rate-qps", "0.5"]
PREDICT = ["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5"]
ESTIMATE = ["estimate", "--llm", LLAMA, "--gpu", "A30"]
RANK = ["rank", "--llm", LLAMA, "--scenario", "server_low", "--itl-sla-ms", "30", "--gpus",
        "A30,L4", "--gpu-counts", "1"]  # fmt: skip


def _run(capsys, argv) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_the_explanation_in_the_envelope_with_the_wall(capsys):
    code, out, _ = _run(capsys, [*EXPLAIN, "--region", "FR", "--pue", "1.2", "--json"])
    doc = json.loads(out)
    assert code == 0 and (doc["schema_version"], doc["kind"]) == (1, "explain")
    x = wl.explain(LLAMA, "H100 NVL", rate_qps=0.5)
    assert doc["prediction"]["power_w"] == pytest.approx(x.prediction.power_w, rel=1e-5)
    assert [r["part"] for r in doc["rows"]] == [p.name for p in x.parts]
    w = doc["wall"]
    assert (w["pue"], w["grid_gco2_per_kwh"]) == (1.2, 56)
    per_request = x.prediction.energy_per_token_j * x.inputs.t_out
    assert w["wall_energy_per_request_j"] == pytest.approx(1.2 * per_request, rel=1e-5)
    assert w["g_co2e_per_request"] == pytest.approx(1.2 * per_request / 3.6e6 * 56, rel=1e-5)


def test_text_view_fits_100_columns_and_marks_the_summed_terms(capsys):
    code, out, _ = _run(capsys, [*EXPLAIN, "--t-in", "500", "--t-out", "300", "--tp", "2"])
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 100
    assert " + fixed" in out and "backbone step time" in out and "at the wall: PUE 1.58" in out
    assert "no correction" in out  # two GPUs: physics alone, and the reason


def test_unknown_region_is_one_line(capsys):
    code, out, err = _run(capsys, [*EXPLAIN, "--region", "Atlantis"])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "unknown grid region" in err and "WORLD" in err


@pytest.mark.parametrize("argv", [EXPLAIN, RANK, PREDICT, ESTIMATE],
                         ids=["explain", "rank", "predict", "estimate"])  # fmt: skip
def test_plot_writes_a_png(capsys, tmp_path, argv):
    path = tmp_path / "figure.png"
    code, _, _ = _run(capsys, [*argv, "--plot", str(path), "--quiet"])
    assert code == 0
    data = path.read_bytes()
    assert len(data) > 1000 and data[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "argv", [EXPLAIN, PREDICT, ESTIMATE], ids=["explain", "predict", "estimate"]
)
def test_plot_without_matplotlib_is_one_clear_line(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.setattr(cli_plot, "has_matplotlib", lambda: False)
    path = tmp_path / "figure.png"
    code, out, err = _run(capsys, [*argv, "--plot", str(path)])
    assert code == 2 and out == "" and not path.exists()
    assert err.strip() == "error: " + cli_plot.NEEDS


def test_plot_needs_a_png_name(capsys, tmp_path):
    code, _, err = _run(capsys, [*RANK, "--plot", str(tmp_path / "figure.pdf")])
    assert code == 2 and ".png" in err


def test_rank_takes_region_and_pue(capsys):
    code, out, _ = _run(capsys, [*RANK, "--region", "de", "--pue", "1.1", "--json"])
    rows = json.loads(out)["rows"]
    assert code == 0 and rows and all(r["grid_gco2_per_kwh"] == 381 for r in rows)
    r = rows[0]
    assert r["wall_energy_per_1k_tokens_j"] == pytest.approx(1.1 * r["energy_per_1k_tokens_j"],
                                                             rel=1e-5)  # fmt: skip
    code, out, _ = _run(capsys, [*RANK, "--region", "de"])
    assert "at the wall (PUE 1.58, grid 381 gCO2e/kWh, Germany (DE), 2023)" in out
    code, _, err = _run(capsys, [*RANK, "--pue", "0.5"])
    assert code == 2 and "pue" in err


def test_waterfall_has_no_raw_names_and_readable_text():
    import matplotlib

    matplotlib.use("Agg", force=True)
    from wattgpu_lite.face import plots_explain
    from wattgpu_lite.face.plots_explain import explain_waterfall

    colours = {plots_explain.UP, plots_explain.DOWN, plots_explain.TOTAL}
    assert not colours & set(style.GPU_PALETTE.values())  # a bar's colour is no GPU's

    for kw in ({"rate_qps": 0.5}, {"batch": 8, "t_in": 500, "t_out": 300}):
        fig = explain_waterfall(wl.explain(LLAMA, "L4", **kw))
        assert style.raw_names_in(fig) == []
        assert len(fig.axes) == 2
    assert wl.plots.explain_waterfall is explain_waterfall


def test_predict_and_estimate_figures_have_no_raw_names():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    from wattgpu_lite.face.plots_explain import energy_breakdown, prediction_bars

    fig = prediction_bars(wl.predict(LLAMA, "A30", rate_qps=0.5))
    assert style.raw_names_in(fig) == [] and len(fig.axes) == 3
    est = wl.estimate_energy(LLAMA, "A30")
    fig = energy_breakdown(est)
    assert style.raw_names_in(fig) == []
    bars = [patch.get_width() for patch in fig.axes[0].patches]
    assert sum(bars) == pytest.approx(est.total_j)  # every term drawn, once
    plt.close("all")


def test_predict_carries_the_wall_accounting(capsys):
    argv = ["predict", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.5"]
    code, out, _ = _run(capsys, [*argv, "--json"])
    doc = json.loads(out)
    w, p = doc["wall"], wl.predict(LLAMA, "A30", rate_qps=0.5)
    assert code == 0 and (w["pue"], w["grid_gco2_per_kwh"]) == (1.58, 458)
    per_1k = 1.58 * p.energy_per_token_j * 1e3
    assert w["wall_energy_per_1k_tokens_j"] == pytest.approx(per_1k, rel=1e-5)
    assert w["g_co2e_per_1k_tokens"] == pytest.approx(per_1k / 3.6e6 * 458, rel=1e-5)
    code, out, _ = _run(capsys, [*argv, "--region", "IN"])
    assert "India (IN), 2023" in out and max(len(line) for line in out.splitlines()) <= 100
