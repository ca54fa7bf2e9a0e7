"""``wl.predict_many`` sends its rows to the engine in chunks of ``CHUNK_ROWS``: the same frame as
one call, and no engine call ever holds more rows than a chunk. Every row's searches run to
machine precision on that row alone (energy.searches), so a row's numbers do not depend on the
rows beside it: text cells are equal, numbers within 1e-12 relative (the last bits of numpy's
vector loops)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.hybrid.predict import api
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


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_chunks_give_the_one_call_frame_cell_for_cell(frame, chunk, monkeypatch):
    whole = wl.predict_many(frame)
    monkeypatch.setattr(api, "CHUNK_ROWS", chunk)
    pd.testing.assert_frame_equal(wl.predict_many(frame), whole, check_exact=False, rtol=1e-12,
                                  atol=0.0)  # fmt: skip


def test_no_engine_call_holds_more_than_a_chunk(frame, monkeypatch):
    sizes = []
    predict = E.predict_arrays

    def counted(model, llms, *rest, **kw):
        sizes.append(len(llms))
        return predict(model, llms, *rest, **kw)

    monkeypatch.setattr(api, "CHUNK_ROWS", 50)
    monkeypatch.setattr(E, "predict_arrays", counted)
    out = wl.predict_many(frame)
    valid = int((out["status"] != "invalid input").sum())
    assert max(sizes) == 50 and sum(sizes) == valid and len(sizes) == -(-valid // 50)


MOES = ("Qwen/Qwen3-30B-A3B", "mistralai/Mixtral-8x7B-v0.1", "allenai/OLMoE-1B-7B-0924",
        "Qwen/Qwen1.5-MoE-A2.7B-Chat", "microsoft/Phi-3.5-MoE-instruct", "openai/gpt-oss-20b")  # fmt: skip
BIG_GPUS = ("H100 SXM", "A100 SXM4 80GB", "H200 NVL", "MI300X", "B200", "L40S")


def test_a_moe_row_alone_is_the_row_among_others_to_the_last_bit():
    """A MoE's curved pieces are solved by Newton steps; each row stops at its own last step, so
    its numbers are the same alone and beside any rows (before, a row kept stepping until every
    row of its call had converged: 8 of these 400 rows differed in their last bits)."""
    rng = np.random.default_rng(3)
    n = 400
    frame = pd.DataFrame({"llm": rng.choice(MOES, n), "gpu": rng.choice(BIG_GPUS, n),
                          "t_in": rng.integers(10, 3000, n), "t_out": rng.integers(10, 800, n)})  # fmt: skip
    at_rate = rng.random(n) < 0.5
    frame["rate_qps"] = np.where(at_rate, rng.uniform(0.05, 5, n), np.nan)
    frame["batch"] = np.where(at_rate, np.nan, rng.integers(1, 256, n)).astype(float)
    whole = wl.predict_many(frame)
    first = 120  # the first rows alone (two of the eight among them)
    alone = pd.concat([wl.predict_many(frame.iloc[[i]]) for i in range(first)], ignore_index=True)
    numbers = [c for c in whole.columns if whole[c].dtype.kind == "f"]
    assert (whole["status"].iloc[:first] == "ok").sum() > first // 2
    pd.testing.assert_frame_equal(alone[numbers], whole[numbers].iloc[:first], check_exact=True)
