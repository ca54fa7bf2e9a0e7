"""A ``wl.predict_many`` frame column named after one of its whole-frame arguments (``level``,
``correction``, ``workload``) is refused: it once passed as a label column and was ignored, so
a ``level`` column of 0.95 gave 80 % intervals, a ``workload`` column the default tokens."""

import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError

ROW = {"llm": "meta-llama/Llama-3.1-8B-Instruct", "gpu": "L4", "rate_qps": 0.1}


@pytest.mark.parametrize(
    ("column", "value"),
    [("level", 0.95), ("correction", False), ("workload", "azure-conv-2023"), (" Level", 0.9)],
)
def test_a_whole_frame_argument_as_a_column_is_refused(column, value):
    frame = pd.DataFrame([{**ROW, column: value}])
    with pytest.raises(InvalidInputError) as err:
        wl.predict_many(frame)
    arg = column.strip().lower()
    message = str(err.value)
    assert repr(column) in message and f"predict_many(frame, {arg}=...)" in message


def test_other_label_columns_are_carried_through():
    out = wl.predict_many(pd.DataFrame([{**ROW, "label": "a"}]))
    assert out["label"].tolist() == ["a"] and out["status"].tolist() == ["ok"]
