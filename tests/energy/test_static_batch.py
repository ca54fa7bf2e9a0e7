"""A static batch timed over its decode steps alone (TPOT): the backbone's decode window, and the
external check reading a static-batch harness's ITL (and a decode window's power) through it."""

from __future__ import annotations

import numpy as np
import pandas as pd

import wattgpu_lite as wl
from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy import physical as P
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.report import external_scope as X

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
GPUS = ("H200 SXM", "A100 SXM4 80GB", "L40S")
BATCHES = np.array([1.0, 16.0, 256.0])


def _rows(t_in: float):
    gpus = [wl.gpu(g) for g in GPUS]
    return R.build([wl.llm(LLAMA)] * len(gpus), gpus, t_in, 128.0)[0]


def test_the_decode_window_is_the_run_step_less_its_prefill_share():
    """s(B) − s_dec(B) = B · t_prefill(B) / T_out exactly: the prefill terms → 0 give the window."""
    c = HybridState.pretrained().constants
    for t_in in (64.0, 2048.0, 8192.0):
        rows = _rows(t_in)
        for b in BATCHES:
            batch = np.full(len(GPUS), b)
            run = S.step_time_s(rows, batch, c)
            window = S.decode_window(rows, batch, c)["itl_s"]
            workload = S.Workload(t_in=rows.t_in, t_out=rows.t_out, batch=batch)
            prefill = P.physical_evaluate(rows.model, workload, S.achieved_hw(rows, c),
                                          kappa=c.kappa, deploy=rows.deploy)[1]["prefill"]  # fmt: skip
            np.testing.assert_allclose(run - window, batch * prefill / rows.t_out, rtol=1e-9)
            assert (window < run).all()


def test_decode_window_power_lies_between_idle_and_tdp_and_rises_with_the_batch():
    c = HybridState.pretrained().constants
    rows = _rows(512.0)
    powers = np.array([S.decode_window(rows, np.full(len(GPUS), b), c)["power_w"]
                       for b in BATCHES])  # fmt: skip
    assert (powers >= S.idle_power_w(rows, c)).all()
    assert (powers <= rows.replica_tdp_w).all()
    assert (np.diff(powers, axis=0) >= 0).all()


def test_the_prefill_share_grows_with_the_prompt():
    frame = pd.DataFrame({"llm": LLAMA, "gpu": "H200 SXM", "num_gpus": 1, "weights": "bf16",
                          "t_in": [64, 2048, 8192], "t_out": 128, "batch": 32.0,
                          "rate_qps": np.nan})  # fmt: skip
    share = X.decode_shares(frame)["decode_itl_share"]
    assert (share < 1).all() and (np.diff(share) < 0).all()
    rate = frame.assign(batch=np.nan, rate_qps=0.5)
    assert np.isnan(X.decode_shares(rate)["decode_itl_share"]).all()


def test_only_static_harnesses_are_read_as_decode_steps():
    harness = ["fixed_batch", "decode_window", "closed_loop", "all_at_once"]
    rows = pd.DataFrame({"harness": harness})
    pred = pd.DataFrame(
        {f"{q}{k}": v for q, v in (("itl_s", 0.02), ("power_w", 400.0)) for k in ("", "_lo", "_hi")}
        | {  # fmt: skip
            "decode_itl_share": 0.5,
            "decode_power_share": 1.2,
            "itl_floor_s": 0.004,
            "power_floor_w": 87.5,
            "replica_tdp_w": 450.0,
        },
        index=range(4),
    )
    view = X.static_batch_view(rows, pred)
    np.testing.assert_allclose(view["itl_s"], [0.01, 0.01, 0.02, 0.02])
    np.testing.assert_allclose(view["power_w"], [400.0, 450.0, 400.0, 400.0])  # at most G · TDP
    floor_bound = X.static_batch_view(rows, pred.assign(decode_itl_share=0.1))
    assert (floor_bound["itl_s_lo"] >= 0.004).all()  # never below the bytes floor
