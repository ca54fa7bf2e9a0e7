"""``wl.explain``: the parts of a prediction add up to the prediction.

Step-time terms sum to the backbone step time (the backbone ITL); backbone × correction factor is
the final value, and when a bound holds it (the ITL floor, idle power or the TDP) the table says so;
energy per token = power × time per token; the explanation carries ``wl.predict``'s own answer.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import wattgpu_lite as wl
from wattgpu_lite.hybrid.predict import model as hybrid_model
from wattgpu_lite.hybrid.predict.correction import Correction
from wattgpu_lite.hybrid.predict.explain import BINDINGS, explain
from wattgpu_lite.hybrid.predict.model import HybridState

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
CASES = {
    "rate on H100 NVL": (LLAMA, "H100 NVL", {"rate_qps": 0.5}),
    "batch on L4 (TDP binds)": (LLAMA, "L4", {"batch": 8, "t_in": 500, "t_out": 300}),
    "offline scenario on A30": (LLAMA, "A30", {"scenario": "offline"}),
    "floor binds": ("Qwen/Qwen3-14B", "H200 NVL", {"batch": 1}),
    "two GPUs (physics)": (LLAMA, "H100 NVL", {"rate_qps": 2.0, "num_gpus": 2}),
    "MoE, expert parallel": ("Qwen/Qwen3-30B-A3B", "H100 SXM", {"batch": 16,
                                                               "parallel": wl.Parallel(ep=2)}),
}  # fmt: skip


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    llm, gpu, kw = CASES[request.param]
    return wl.explain(llm, gpu, **kw), wl.predict(llm, gpu, **kw)


def test_it_carries_the_prediction_of_wl_predict(case):
    x, p = case
    assert x.prediction == p


def test_step_time_terms_add_up_to_the_backbone_step_time(case):
    x, _ = case
    summed = [part for part in x.parts if part.in_sum]
    assert {part.name for part in summed} == {x.roofline, "layout", "prompt", "fixed"}
    assert math.isclose(sum(part.value for part in summed), x.backbone_step_s, rel_tol=1e-9)
    assert x.step_terms_s[x.roofline] == max(x.step_terms_s[k] for k in
                                             ("memory", "compute", "power limit"))  # fmt: skip
    largest = max((x.roofline, "layout", "prompt", "fixed"), key=x.step_terms_s.get)
    assert x.binding == BINDINGS[largest]


def test_memory_time_is_bytes_over_the_achieved_bandwidth(case):
    x, p = case
    g, c = wl.gpu(p.inputs.gpu), wl.HybridState.pretrained().constants
    expected = sum(x.bytes_per_step.values()) / (
        p.inputs.num_gpus * c.eta_bw * g.bandwidth_gbs * 1e9
    )
    assert math.isclose(x.step_terms_s["memory"], expected, rel_tol=1e-9)


def test_host_time_is_the_step_cost_plus_one_per_sequence_in_the_step(case):
    x, _ = case
    c = wl.HybridState.pretrained().constants
    part = next(part for part in x.parts if part.name == "fixed")
    assert math.isclose(part.value, c.step_s + c.seq_s * x.step_batch, rel_tol=1e-9)
    assert part.note == "host: c_step + c_seq x B" and c.seq_s > 0  # no per-layer term


def test_backbone_times_the_factor_is_the_final_value_unless_a_bound_binds(case):
    x, p = case
    power, itl = x.corrections["power"], x.corrections["itl"]
    assert math.isclose(power.backbone * power.factor, p.power_w, rel_tol=1e-9)
    assert math.isclose(itl.backbone * itl.factor, p.itl_s, rel_tol=1e-9)
    for c, lo, hi in ((power, x.idle_power_w, x.replica_tdp_w), (itl, x.floor_s, math.inf)):
        if not c.bound:
            assert math.isclose(c.factor, c.learned, rel_tol=1e-9)
        else:
            assert math.isclose(c.final, lo if c.bound in ("floor", "idle power") else hi,
                                rel_tol=1e-9)  # fmt: skip
            assert any(part.note == f"held at the {c.bound}" for part in x.parts)
        assert np.clip(c.backbone * c.learned, lo, hi) == pytest.approx(c.final, rel=1e-9)


def test_physics_rows_have_no_correction_and_say_why(case):
    x, p = case
    if x.basis == "physics":
        assert x.corrections["power"].learned == 1.0 and x.corrections["itl"].learned == 1.0
        assert "no correction" in x.corrections["power"].why
        assert p.model == "physics"
    else:
        assert x.corrections["power"].applies


def test_energy_per_token_is_power_times_time_per_token(case):
    x, p = case
    assert math.isclose(p.energy_per_token_j, p.power_w * p.time_per_token_s, rel_tol=1e-12)
    rows = x.table().set_index("part")
    assert rows.loc["energy per token", "value"] == pytest.approx(p.energy_per_token_j)
    assert rows.loc["energy per request", "value"] == pytest.approx(
        p.energy_per_token_j * p.inputs.t_out
    )


def test_backbone_power_is_idle_plus_the_busy_share(case):
    x, _ = case
    expected = x.idle_power_w + x.busy_fraction * (x.busy_power_w - x.idle_power_w)
    assert math.isclose(x.backbone_power_w, expected, rel_tol=1e-9)


def test_the_tdp_bound_is_named_when_it_holds_power():
    # the default 15 + 180 tokens: inside the training runs' context, so the correction applies
    x = explain(LLAMA, "L4", batch=8)
    assert x.corrections["power"].bound == "TDP"
    assert x.prediction.power_w == pytest.approx(x.replica_tdp_w)


class _AtTheBound(Correction):
    """A correction pulled to its lower bound everywhere (a stand-in forest)."""

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.full(len(x), -self.bound)


def test_the_floor_is_named_when_it_holds_itl(monkeypatch):
    """The shipped ITL correction (±0.25) never reaches the floor on the catalog; one
    held at −0.5 does, on the H200 SXM board at batch 1, and the explanation names the floor."""
    shipped = HybridState.pretrained()
    c = shipped.corrections["itl"]
    down = _AtTheBound(c.columns, 0.5, c.families, c.forest_json)
    model = dataclasses.replace(shipped, corrections=shipped.corrections | {"itl": down})
    monkeypatch.setattr(hybrid_model, "_pretrained", lambda: model)
    x = explain("Qwen/Qwen3-14B", "H200 SXM", batch=1)
    itl = x.corrections["itl"]
    assert itl.bound == "floor" and itl.learned < itl.factor
    assert x.prediction.itl_s == pytest.approx(x.floor_s, rel=1e-12)
    assert x.table().set_index("part").loc["ITL factor", "note"] == "held at the floor"


def test_json_round_trips_without_nan():
    x = explain(LLAMA, "A30", rate_qps=0.2)
    doc = x.to_dict()
    assert doc["schema_version"] == 1 and doc["prediction"]["power_w"] == x.prediction.power_w
    assert x.to_json()


def test_wl_explain_is_the_explanation_at_the_wall():
    """wl.explain is the predictor's explain with the prediction's wall and defaults filled
    (selection.answers), the parts unchanged."""
    from wattgpu_lite.selection.answers import explain as at_wall

    assert wl.explain is at_wall
    bare, full = explain(LLAMA, "A30", rate_qps=0.5), wl.explain(LLAMA, "A30", rate_qps=0.5)
    assert bare.prediction.wall is None and full.wall["pue"] > 1
    assert full.parts == bare.parts
    assert full.prediction == dataclasses.replace(bare.prediction, wall=full.wall,
                                                  defaults=full.defaults)  # fmt: skip


def test_the_waterfall_labels_its_floor_off_every_bar(case):
    """The "hard floor" label sits on no bar (it ran over the first bar at the left edge)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x, _ = case
    fig = wl.plots.explain_waterfall(x)
    fig.canvas.draw()
    left = fig.axes[0]
    (floor,) = [t for t in left.texts if t.get_text() == "hard floor"]
    box = floor.get_window_extent()
    bars = [p.get_window_extent() for p in left.patches if p.get_height() > 0]
    assert not any(box.overlaps(b) for b in bars)
    plt.close(fig)


def test_it_runs_the_steps_once_and_reads_the_result_it_fills(monkeypatch):
    from wattgpu_lite.energy.backbone import row_arrays
    from wattgpu_lite.hybrid.predict import steps

    calls: dict[str, list] = {}

    def counted(module, name):
        original = getattr(module, name)

        def wrapped(*args, **kwargs):
            calls.setdefault(name, []).append(original(*args, **kwargs))
            return calls[name][-1]

        monkeypatch.setattr(module, name, wrapped)

    for name in ("predict_arrays", "backbone_step", "correction_step"):
        counted(steps, name)
    counted(row_arrays, "build")
    x = explain(LLAMA, "A30", rate_qps=0.3, t_in=123)
    assert [len(calls[k]) for k in ("predict_arrays", "backbone_step", "correction_step")] == [
        1
    ] * 3
    assert len(calls.get("build", [])) <= 1  # a configuration not kept yet: built once
    out = calls["predict_arrays"][0]
    assert x.step_batch == float(out.step_batch[0]) and x.backbone_step_s == out.backbone_itl_s[0]
    for target, c in x.corrections.items():
        assert c.learned == float(out.factor[target][0])
    assert x.busy_power_w == out.decode_step(0)["busy_power_w"]


def test_the_result_fields_explain_reads_are_no_frame_columns():
    frame = wl.predict_many(__import__("pandas").DataFrame({"llm": [LLAMA], "gpu": ["A30"]}))
    for name in ("step_batch", "factor", "offline", "rows", "constants"):
        assert name not in frame.columns
