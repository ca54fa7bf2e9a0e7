"""``wl.predict_many`` checks and builds its rows in blocks of ``BLOCK_ROWS`` and sends each
block's valid rows to the engine in chunks of ``CHUNK_ROWS``: the same frame as one call, and no
check holds more rows than a block, no engine call more than a chunk (the memory they hold does
not grow with the frame). Every row's searches run to
machine precision on that row alone (energy.backbone.searches), so a row's numbers do not depend on the
rows beside it: text cells are equal, numbers within 1e-12 relative (the last bits of numpy's
vector loops)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.hybrid.predict import api, many
from wattgpu_lite.hybrid.predict import steps as E

LLMS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen3-30B-A3B",
        "google/gemma-3-27b-it", "meta-llama/Llama-3.3-70B-Instruct")  # fmt: skip
GPUS = ("A30", "H100 SXM", "L4", "T4", "MI300X", "B200")


def mixed_frame(n: int = 240) -> pd.DataFrame:
    """Rate and batch rows, 1 to 8 GPUs, rows beyond capacity, too big to fit, and invalid."""
    rng = np.random.default_rng(7)
    at_rate = rng.random(n) < 0.5
    frame = pd.DataFrame({
        "llm": rng.choice(LLMS, n), "gpu": rng.choice(GPUS, n),
        "rate_qps": np.where(at_rate, rng.choice([0.01, 0.3, 5.0, 500.0], n), np.nan),
        "batch": np.where(at_rate, np.nan, rng.choice([1, 8, 64, 4096], n)),
        "t_in": rng.integers(10, 3000, n), "t_out": rng.integers(10, 800, n),
        "num_gpus": rng.choice([1, 1, 2, 8], n),
    })  # fmt: skip
    frame.loc[::37, "t_out"] = -5  # invalid rows between valid ones
    return frame


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return mixed_frame()


def test_the_frame_has_every_kind_of_row(frame):
    out = wl.predict_many(frame)
    kinds = set(out["status"])
    assert {"ok", "saturated", "invalid input", "does not fit in memory"} <= kinds
    assert (out["num_gpus"] > 1).any() and out["rate_qps"].isna().any()


@pytest.mark.parametrize(("block", "chunk"), [(1, 1), (7, 7), (64, 64), (50, 7), (1000, 64)])
def test_blocks_and_chunks_give_the_one_call_frame_cell_for_cell(frame, block, chunk, monkeypatch):
    whole = wl.predict_many(frame)
    monkeypatch.setattr(api, "BLOCK_ROWS", block)
    monkeypatch.setattr(api, "CHUNK_ROWS", chunk)
    pd.testing.assert_frame_equal(wl.predict_many(frame), whole, check_exact=False, rtol=1e-12,
                                  atol=0.0)  # fmt: skip


def test_no_check_or_engine_call_holds_more_than_a_block(frame, monkeypatch):
    checked, engine = [], []
    requests, predict = many.frame_requests, E.predict_arrays

    def counted_checks(block, *rest):
        checked.append(len(block))
        return requests(block, *rest)

    def counted(model, llms, *rest, **kw):
        engine.append(len(llms))
        return predict(model, llms, *rest, **kw)

    monkeypatch.setattr(api, "BLOCK_ROWS", 50)
    monkeypatch.setattr(api, "CHUNK_ROWS", 20)
    monkeypatch.setattr(many, "frame_requests", counted_checks)
    monkeypatch.setattr(E, "predict_arrays", counted)
    out = wl.predict_many(frame)
    valid = (out["status"] != "invalid input").to_numpy()
    per_block = [int(valid[k : k + 50].sum()) for k in range(0, len(frame), 50)]
    chunks = [min(20, k - s) for k in per_block for s in range(0, k, 20)]  # each block's chunks
    assert checked == [50] * (len(frame) // 50) + [len(frame) % 50]
    assert engine == chunks and max(engine) == 20
