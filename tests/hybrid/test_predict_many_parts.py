"""The parts of ``wl.predict_many``'s batch path give what their one-row definitions give: names
resolved once per distinct value (the same objects as one at a time), coded sequences read as the
objects they stand for, each status's text and message, and, on dense rows (whose searches stop
row by row), a frame in chunks equal to the frame in one call cell for cell."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.uniques import Coded, subset, unique_by_identity
from wattgpu_lite.hybrid.predict import api, frame_cells, many
from wattgpu_lite.hybrid.predict.frame_cells import resolved
from wattgpu_lite.hybrid.predict.result import Status, messages, status_text
from wattgpu_lite.specs.resolve import resolve_each, resolve_gpu, resolve_llm

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def test_a_column_resolves_to_the_objects_resolve_each_gives():
    names = pd.Series(["L4", "A30", "L4", "H100 SXM", "A30"] * 30)
    coded = resolved(names, resolve_gpu)
    one_by_one = resolve_each(names.tolist(), resolve_gpu)
    assert isinstance(coded, Coded) and all(a is b for a, b in zip(coded, one_by_one, strict=True))
    assert len(coded.distinct) == 3
    device = wl.GPU.from_spec({"name": "Own", "release_year": 2024, "memory_gb": 48,
                               "memory_type": "HBM3", "bandwidth_gbs": 2000, "tdp_w": 300,
                               "fp16_tflops": 400})  # fmt: skip
    mixed = pd.Series(["L4", device, "L4", device], dtype=object)  # objects: keyed by identity
    assert [g.name for g in resolved(mixed, resolve_gpu)] == ["L4", "Own", "L4", "Own"]
    with pytest.raises(wl.errors.UnknownLLMError):
        resolved(pd.Series([LLAMA, "no-such-llm"]), resolve_llm)


def test_a_coded_sequence_reads_as_its_objects():
    objects = [("a",), ("b",), ("c",)]
    coded = Coded(objects, np.array([2, 0, 2, 1, 0]))
    assert list(coded) == [objects[k] for k in (2, 0, 2, 1, 0)] and coded[3] is objects[1]
    part = subset(coded, np.array([0, 2, 4]))
    distinct, code = unique_by_identity(part)  # renumbered by first appearance, unused dropped
    assert distinct == [objects[2], objects[0]] and code.tolist() == [0, 0, 1]
    assert list(coded[1:3]) == [objects[0], objects[2]]
    assert subset(list(coded), np.array([1])) == [objects[0]]


def test_status_text_and_messages_are_each_rows_own():
    status = np.array([Status.OK, Status.NO_FIT, Status.SATURATED, Status.NO_FIT,
                       Status.BATCH_ABOVE_KV, Status.NO_FIT, Status.BATCH_ABOVE_KV,
                       Status.BATCH_ABOVE_KV, Status.SATURATED], dtype=object)  # fmt: skip
    llm = np.array(["m1", "m1", "m1", "m2", "m1", "m1", "m1", "m1", "m1"], dtype=object)
    gpu = np.array(["g"] * 9, dtype=object)
    rate = np.array([0.1, 2.0, 900.0, 3.0, np.nan, 1.0, np.nan, np.nan, 900.0])
    batch = np.array([np.nan] * 4 + [64, 1, 64, 65, np.nan])
    cap, capacity = np.array([8.0, 0.0, 8.0, 0.0, 8.0, 0.0, 8.5, 8.0, 8.0]), np.arange(9.0)
    assert status_text(status).tolist() == [s.value for s in status]
    expected = [s.message(llm[i], gpu[i], rate[i], batch[i], max_batch=cap[i], capacity_qps=capacity[i])
                for i, s in enumerate(status)]  # fmt: skip
    assert (
        messages(status, llm, gpu, rate, batch=batch, max_batch=cap, capacity_qps=capacity).tolist()
        == expected
    )
    assert expected[1] != expected[3] and expected[0] == "" and expected[4] == expected[6]
    assert len(set(expected)) == 7  # another batch, another rate: other texts


@pytest.mark.parametrize(("block", "chunk"), [(7, 7), (100, 100), (150, 7)])
def test_dense_rows_in_chunks_equal_the_frame_in_one_call_exactly(block, chunk, monkeypatch):
    rng = np.random.default_rng(3)
    n = 400
    at_rate = rng.random(n) < 0.5
    frame = pd.DataFrame({"llm": rng.choice([LLAMA, "Qwen/Qwen2.5-0.5B-Instruct", "microsoft/phi-2"], n),
                          "gpu": rng.choice(["L4", "A30", "H100 SXM", "T4"], n),
                          "rate_qps": np.where(at_rate, rng.choice([0.05, 1.0, 900.0], n), np.nan),
                          "batch": np.where(at_rate, np.nan, rng.choice([1, 16, 4096], n)),
                          "t_in": rng.integers(10, 3000, n), "t_out": rng.integers(-2, 800, n),
                          "num_gpus": rng.choice([1, 2, 3], n)})  # fmt: skip
    whole = wl.predict_many(frame)
    assert {"ok", "invalid input", "saturated"} <= set(whole["status"])
    monkeypatch.setattr(api, "BLOCK_ROWS", block)
    monkeypatch.setattr(api, "CHUNK_ROWS", chunk)
    pd.testing.assert_frame_equal(wl.predict_many(frame), whole, check_exact=True)


def test_the_text_columns_are_categoricals_of_the_same_text():
    """llm, gpu, llm_architecture, basis, status and message come back as pandas categoricals
    (an integer code a row, not a str): each equal, row for row, to the text it stands for, its
    categories the texts used, sorted; a column of objects is echoed as it is."""
    codes = np.array([2, 0, 2, 3, 0, 1])
    names = ["physics", "cv", "", "cv", "new gpu"]  # a name twice (one category), one unused
    text = frame_cells.categorical(codes, names)
    assert list(text.astype(str)) == [names[k] for k in codes]
    assert list(text.categories) == ["", "cv", "physics"]
    out = wl.predict_many(pd.DataFrame({"llm": [LLAMA, LLAMA, "microsoft/phi-2"],
                                        "gpu": ["L4", "L4", "A30"], "batch": [8.0, -1.0, 4.0]}))  # fmt: skip
    for col in ("llm", "gpu", "llm_architecture", "basis", "status", "message"):
        assert isinstance(out[col].dtype, pd.CategoricalDtype), col
        assert list(out[col].cat.categories) == sorted(set(out[col].astype(str))), col
    assert list(out["llm"]) == [LLAMA, LLAMA, "microsoft/phi-2"]
    assert list(out["status"] == "ok") == [True, False, True] and out["basis"][1] == ""
    assert out["message"][0] == "" and "batch" in out["message"][1]
    device = wl.gpu("L4")
    kept = wl.predict_many(pd.DataFrame({"llm": [LLAMA], "gpu": pd.Series([device], dtype=object),
                                         "batch": [8.0]}))  # fmt: skip
    assert kept["gpu"].dtype == object and kept["gpu"][0] == device


def test_categorical_codes_are_pandas_own_and_equal_messages_are_one_category():
    """Past 127 names the codes are as pandas keeps them (int16 here), equal to pandas' own
    Categorical of the texts; two message objects of one text are one category (the messages
    are factorised by object, then by text)."""
    names = [f"name {k % 250:03d}" for k in range(300)]  # 250 texts, 50 named twice
    codes = np.random.default_rng(0).integers(0, len(names), 5000)
    text = frame_cells.categorical(codes, names)
    used = [names[k] for k in codes]
    own = pd.Categorical(used, categories=sorted(set(used)))
    assert text.codes.dtype == own.codes.dtype == np.int16
    assert np.array_equal(text.codes, own.codes) and list(text.categories) == list(own.categories)
    twin = "".join(["refused ", "here"])  # another object with the text of the next one
    said = (np.array([1, 2]), np.array(["refused here", "other"], dtype=object))
    refused = (np.array([3, 0]), np.array([twin, "other"], dtype=object))
    out = many._messages(5, [said, refused])  # row 4: ""
    assert list(out.categories) == ["", "other", "refused here"]
    assert list(out.astype(str)) == ["other", "refused here", "other", "refused here", ""]
