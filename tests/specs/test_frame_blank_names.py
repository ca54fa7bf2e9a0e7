"""A ``wl.predict_many`` row without an LLM or a GPU (None or NaN in ``llm`` or ``gpu``) is
refused naming the column and the row; it was "an LLM is a catalog name, ...; got float nan"
(no column, no row, and a NaN the user never typed), or a GPU's like it."""

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError

LLAMA8 = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.mark.parametrize("column", ["llm", "gpu"])
@pytest.mark.parametrize("blank", [None, np.nan])
def test_a_blank_name_is_refused_naming_the_column_and_the_row(column, blank):
    frame = pd.DataFrame({"llm": [LLAMA8] * 2, "gpu": ["L4"] * 2, "rate_qps": 0.1}, index=[7, 9])
    frame[column] = frame[column].astype(object)
    frame.loc[9, column] = blank
    with pytest.raises(InvalidInputError, match=rf"column '{column}' is blank in row 9; give"):
        wl.predict_many(frame)
    assert (wl.predict_many(frame.loc[[7]])["status"] == "ok").all()
