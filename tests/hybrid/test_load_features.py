"""The correction's load inputs are physical quantities only: no regime flag, so
a batch-1 query is described like the batch-1 steps it resembles, and the correction never falls as
the load rises."""

import numpy as np
import pandas as pd

import wattgpu_lite as wl
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.hybrid.fit.candidates import candidates
from wattgpu_lite.hybrid.predict import bounds as B
from wattgpu_lite.hybrid.predict.correction import FEATURE_GROUPS, MONOTONE_DOWN, MONOTONE_UP


def test_no_candidate_sees_a_regime_flag():
    assert FEATURE_GROUPS["load"] == ("log_in_flight", "busy_fraction", "log_bytes_per_flop")
    assert all("offline" not in c.columns for c in candidates())
    assert set(FEATURE_GROUPS["load"]) == set(MONOTONE_UP) | set(MONOTONE_DOWN)


def test_bytes_per_flop_is_one_at_batch_1_and_falls_with_the_batch():
    """A 16-bit dense step at batch 1 reads 2 bytes per weight and computes 2 FLOPs per weight:
    about 1 byte per FLOP (attention and the KV cache move it by under 1 %); the weights are
    shared by a batch, the FLOPs are not."""
    rows, _ = R.build([wl.llm("meta-llama/Llama-3.1-8B-Instruct")] * 4, [wl.gpu("L4")] * 4, 15, 180)
    ratio = B.bytes_per_flop(rows, np.array([1.0, 8.0, 64.0, 256.0]))
    assert 0.99 < ratio[0] < 1.01
    assert np.all(np.diff(ratio) < 0) and ratio[-1] < 1 / 100


def test_the_corrected_itl_never_falls_below_the_backbone_trend_as_the_batch_grows():
    """The learned factor (ITL / backbone ITL) is non-decreasing in the batch on a training GPU."""
    batches = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]
    frame = pd.DataFrame({"llm": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "A100 SXM4 40GB",
                          "batch": batches})  # fmt: skip
    out = wl.predict_many(frame)
    factor = (out["itl_s"] / out["backbone_itl_s"]).to_numpy()
    assert np.all(np.diff(factor) >= -1e-9)
