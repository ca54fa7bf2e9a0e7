"""A frame's exact key (energy.uniques.frame_key): it holds the frame, so the frame comes back
from it value for value (key_frame), and two frames that differ anywhere have different keys."""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.energy.uniques import frame_key, key_frame

COLUMNS = ("llm", "gpu", "t_in", "t_out", "num_gpus", "weights")


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "llm": ["meta-llama/Llama-3.1-8B", "", "Qwen/Qwen3-8B", "é—ü"],
        "gpu": ["A30", "H100 SXM", "A30", "MI300X"],
        "t_in": [512, 1, 8192, 15],
        "t_out": [128.0, 0.5, 1024.0, 180.0],
        "num_gpus": np.array([8, 1, 2, 1], dtype=np.int64),
        "weights": ["bf16", "fp8", "bf16", "mxfp4"],
        "ignored": [1, 2, 3, 4],
    })  # fmt: skip


def test_the_key_holds_the_frame_value_for_value():
    frame = _frame()
    key = frame_key(frame, COLUMNS)
    assert key[0] == "columns"  # numbers and text: the fast form
    back = key_frame(key, COLUMNS)
    assert list(back.columns) == list(COLUMNS)
    for col in COLUMNS:
        assert back[col].tolist() == frame[col].tolist(), col
    assert frame_key(back, COLUMNS) == key  # and the rebuilt frame has the same key
    empty = frame.iloc[:0]
    assert len(key_frame(frame_key(empty, COLUMNS), COLUMNS)) == 0


def test_frames_that_differ_anywhere_have_different_keys():
    frame = _frame()
    key = frame_key(frame, COLUMNS)
    moved = frame.assign(llm=["meta-llama/Llama-3.1-8", "B", "Qwen/Qwen3-8B", "é—ü"])  # same text
    assert frame_key(moved, COLUMNS) != key  # joined alike, split elsewhere
    assert frame_key(frame.assign(t_in=[512, 1, 8192, 16]), COLUMNS) != key
    assert frame_key(frame.assign(t_out=frame["t_out"].astype(np.float32)), COLUMNS) != key
    assert frame_key(frame.assign(ignored=0), COLUMNS) == key  # other columns are not asked


def test_a_column_of_other_values_keys_by_its_rows():
    frame = _frame().assign(weights=["bf16", None, "bf16", "fp8"])
    key = frame_key(frame, COLUMNS)
    assert key[0] == "rows"
    back = key_frame(key, COLUMNS)["weights"]  # a missing format (pandas: NaN) comes back missing
    assert back.isna().tolist() == [False, True, False, False]
    assert back.dropna().tolist() == ["bf16", "bf16", "fp8"]
