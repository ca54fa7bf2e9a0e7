"""``predict_many`` checks the load and tokens of a frame's numeric columns column-wise and sends
only the rows those checks refuse through ``wl.predict``'s checks one by one (which give the
message): the same frame, cell for cell, as when every row goes one by one (a column of Python
objects sends them all), for valid rows and for each way a row can be refused; the answer is
the frame with its columns assigned, sharing no data with it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.hybrid.predict import frame_cells as C
from wattgpu_lite.hybrid.predict import frame_checks as F
from wattgpu_lite.specs import frame as frame_inputs

LLMS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct",
        "mistralai/Mixtral-8x7B-Instruct-v0.1", "facebook/opt-1.3b")  # fmt: skip
GPUS = ("A30", "H100 SXM", "T4")


def refused_rows_frame(n: int = 400) -> pd.DataFrame:
    """Valid rows between rows each check refuses: no load or both, a rate out of range, a batch
    not whole or too large, tokens below 1, not whole, missing, beyond the context length (OPT's
    2,048), and layouts whose GPU count does not split the model."""
    rng = np.random.default_rng(11)
    at_rate = rng.random(n) < 0.5
    frame = pd.DataFrame({
        "llm": rng.choice(LLMS, n), "gpu": rng.choice(GPUS, n),
        "rate_qps": np.where(at_rate, rng.choice([0.05, 1.0, 2.0], n), np.nan),
        "batch": np.where(at_rate, np.nan, rng.choice([1.0, 8.0, 32.0], n)),
        "t_in": rng.integers(10, 1500, n).astype(float),
        "t_out": rng.integers(10, 600, n).astype(float),
        "num_gpus": rng.choice([1, 1, 2, 3], n),
    })  # fmt: skip
    bad = iter(np.split(rng.permutation(n)[:120], 12))
    frame.loc[next(bad), ["rate_qps", "batch"]] = np.nan
    frame.loc[next(bad), ["rate_qps", "batch"]] = (0.1, 4.0)
    frame.loc[next(bad), ["rate_qps", "batch"]] = (2000.0, np.nan)
    frame.loc[next(bad), ["rate_qps", "batch"]] = (0.0, np.nan)
    frame.loc[next(bad), ["rate_qps", "batch"]] = (np.nan, 2.5)
    frame.loc[next(bad), ["rate_qps", "batch"]] = (np.nan, 5000.0)
    frame.loc[next(bad), "t_in"] = 0.0
    frame.loc[next(bad), "t_out"] = 7.5
    frame.loc[next(bad), "t_in"] = np.nan
    frame.loc[next(bad), "t_out"] = np.inf
    frame.loc[next(bad), ["t_in", "t_out"]] = (2000.0, 100.0)
    frame.loc[next(bad), "t_in"] = 3e7
    return frame


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return refused_rows_frame()


@pytest.fixture(scope="module")
def column_wise(frame) -> pd.DataFrame:
    return wl.predict_many(frame)


def test_the_frame_has_valid_rows_and_each_refusal(column_wise):
    out = column_wise
    assert (out["status"] == "ok").sum() > 100
    for words in ("exactly one of rate_qps and batch", "rate_qps must be from", "batch must be",
                  "t_in must be", "t_out must be", "exceeds the model's context length",
                  "num_gpus"):  # fmt: skip
        assert out["message"].str.contains(words, regex=False).any(), words


def test_column_wise_checks_give_the_frame_of_row_by_row_checks(frame, column_wise):
    one_by_one = frame.astype({"t_in": object})  # a column of Python objects: every row alone
    limit = np.full(len(frame), 1e6)
    assert not frame_inputs.checked_loads(one_by_one, limit, limit > 0)["ok"].any()
    expected = wl.predict_many(one_by_one).astype({"t_in": float})
    pd.testing.assert_frame_equal(column_wise.astype({"t_in": float}), expected, check_exact=True)


def test_only_refused_rows_are_checked_one_by_one(frame, monkeypatch):
    calls = []
    row_request = F._row_request

    def counted(model, device, cells, *rest):
        calls.append(cells)
        return row_request(model, device, cells, *rest)

    monkeypatch.setattr(F, "_row_request", counted)
    out = wl.predict_many(frame)
    refused = out["status"] == "invalid input"
    layout_refused = out["message"].str.contains("num_gpus", regex=False)
    # a row whose load passes and whose tokens do not takes check_tokens' message directly
    tokens_refused = out["message"].str.match("t_in|t_out") & refused
    assert tokens_refused.sum() > 30
    assert len(calls) == (refused & ~layout_refused & ~tokens_refused).sum() > 0


def test_a_row_refused_for_its_tokens_alone_gets_the_message_predict_raises():
    frame = pd.DataFrame({"llm": "facebook/opt-1.3b", "gpu": "A30",
                          "rate_qps": [0.1, np.nan, 0.1, np.nan, 0.1, 0.1, 0.1],
                          "batch": [np.nan, 4.0, np.nan, 8.0, np.nan, np.nan, np.nan],
                          "t_in": [0.0, 2.5, 2000.0, np.nan, 1500.0, 10.0, 3e7],
                          "t_out": [10, 10, 100, 10, np.inf, -1, 10]})  # fmt: skip
    out = wl.predict_many(frame)
    assert (out["status"] == "invalid input").all()
    for i, row in frame.iterrows():
        at_rate = np.isnan(row["batch"])
        load = {"rate_qps": row["rate_qps"]} if at_rate else {"batch": int(row["batch"])}
        with pytest.raises(wl.errors.InvalidInputError) as err:
            wl.predict(row["llm"], row["gpu"], **load, t_in=C.plain(row["t_in"]),
                       t_out=C.plain(row["t_out"]))  # fmt: skip
        assert out["message"][i] == str(err.value), i


def test_nullable_integer_columns_are_read_column_wise():
    frame = pd.DataFrame({"llm": ["Qwen/Qwen2.5-0.5B-Instruct"] * 3, "gpu": ["A30"] * 3,
                          "batch": pd.array([8, None, 4], dtype="Int64"),
                          "rate_qps": [np.nan, 0.5, np.nan],
                          "t_in": pd.array([500, 200, None], dtype="Int64")})  # fmt: skip
    out = wl.predict_many(frame)
    assert list(out["status"]) == ["ok", "ok", "invalid input"]
    assert out["message"][2].startswith("t_in must be a number, got <NA> (NAType)")  # as before
    same = wl.predict_many(frame.astype({"batch": object, "t_in": object}))
    assert list(same["batch"].astype(object)) == list(out["batch"].astype(object))
    pd.testing.assert_frame_equal(out.drop(columns="batch"), same.drop(columns="batch"),
                                  check_exact=True)  # fmt: skip


def test_layout_and_format_are_checked_once_per_distinct_configuration(monkeypatch):
    rng = np.random.default_rng(12)
    n = 300
    frame = pd.DataFrame({"llm": rng.choice(LLMS[:2], n), "gpu": rng.choice(GPUS[:2], n),
                          "batch": 8.0, "tp": rng.choice([1.0, 2.0, np.nan], n),
                          "weights": rng.choice(np.array(["fp16", "FP8", None], object), n)})  # fmt: skip
    calls = []
    layout_and_format = F._layout_and_format

    def counted(model, device, cells):
        calls.append((model.name, device.name, cells["tp"], cells["weights"]))
        return layout_and_format(model, device, cells)

    monkeypatch.setattr(F, "_layout_and_format", counted)
    F._checked.cache_clear()  # checked once per process: none kept from another test
    out = wl.predict_many(frame)
    # NaN and None are one blank each; 1.0 and 2.0 are read as the counts 1 and 2
    distinct = frame.astype({"weights": str, "tp": str}).drop_duplicates(
        ["llm", "gpu", "tp", "weights"]
    )
    assert len(calls) == len(distinct) == len(set(map(str, calls)))
    assert calls[0][:2] == (frame["llm"][0], frame["gpu"][0])  # in the order rows first name them
    assert set(out["status"]) <= {"ok", "invalid input", "batch above the sequences a replica runs"}


def test_a_configuration_checked_once_is_kept_for_the_next_call_until_caches_are_cleared(
    monkeypatch,
):
    frame = pd.DataFrame({"llm": list(LLMS[:2]) * 3, "gpu": ["A30"] * 3 + ["T4"] * 3,
                          "batch": 8.0, "num_gpus": [1, 2, 3, 1, 2, 3]})  # fmt: skip
    calls = []
    layout_and_format = F._layout_and_format

    def counted(model, device, cells):
        calls.append(cells["num_gpus"])
        return layout_and_format(model, device, cells)

    monkeypatch.setattr(F, "_layout_and_format", counted)
    wl.clear_caches()
    first = wl.predict_many(frame)
    assert len(calls) == 6
    again = wl.predict_many(frame)  # every configuration kept: checked no more
    assert len(calls) == 6 and F._checked.cache_info().hits >= 6
    pd.testing.assert_frame_equal(first, again, check_exact=True)
    wl.clear_caches()
    assert F._checked.cache_info().currsize == 0
    wl.predict_many(frame)
    assert len(calls) == 12


def test_a_kept_check_is_never_another_cells():
    """True and 1 are equal keys to a dict, not the same cell: each keeps its own check (and
    message), in either order."""
    for cells in ([1, True], [True, 1], ["fp8", 1.0]):
        frame = pd.DataFrame({"llm": [LLMS[0]] * 2, "gpu": ["A30"] * 2, "batch": 8.0,
                              "kv_cache": pd.Series(cells, dtype=object)})  # fmt: skip
        out = wl.predict_many(frame)
        for k in range(2):
            alone = wl.predict_many(frame.iloc[[k]])
            assert out["status"][k] == alone["status"].iloc[0]
            assert out["message"][k] == alone["message"].iloc[0]
        assert out["message"][0] != out["message"][1]


def test_the_answer_is_the_frame_with_its_columns_assigned_and_shares_nothing_with_it():
    frame = pd.DataFrame({"llm": ["Qwen/Qwen2.5-0.5B-Instruct"] * 3, "gpu": ["A30", "T4", "A30"],
                          "batch": [1.0, 8.0, 2.0], "id": [7, 8, 9], "power_w": -1.0},
                         index=["a", "b", "c"])  # fmt: skip
    out = wl.predict_many(frame)
    new = [c for c in out.columns if c not in frame.columns]
    # assign's placement: the frame's columns where they were (power_w, t_in replaced), then the rest
    assert list(out.columns) == [*frame.columns, *new] and new[:3] == [
        "llm_architecture",
        "t_in",
        "t_out",
    ]
    assert list(out.index) == ["a", "b", "c"] and (out["power_w"] > 0).all()
    pd.testing.assert_frame_equal(out, frame.assign(**{c: out[c] for c in out}))
    out.loc["a", "id"] = 99
    out.loc["a", "batch"] = 5.0
    assert frame["id"].tolist() == [7, 8, 9] and frame["batch"].tolist() == [1.0, 8.0, 2.0]


def test_the_answer_keeps_the_caller_s_index_so_a_column_lands_on_its_row():
    """A slice of a frame, assigned back: with the index reset, row "c"'s answer landed on no row
    (NaN) and the others on the wrong ones. Repeated labels stay where they were."""
    frame = pd.DataFrame({"llm": "Qwen/Qwen2.5-0.5B-Instruct", "gpu": ["A30", "T4", "L4", "T4"],
                          "batch": [1.0, 8.0, 2.0, 4.0]}, index=[30, 10, 20, 10])  # fmt: skip
    part = frame.iloc[[2, 0]].copy()
    part["power_w"] = wl.predict_many(part)["power_w"]
    alone = [wl.predict("Qwen/Qwen2.5-0.5B-Instruct", g, batch=b).power_w for g, b in
             zip(part["gpu"], part["batch"], strict=True)]  # fmt: skip
    assert part["power_w"].tolist() == alone
    assert list(wl.predict_many(frame).index) == [30, 10, 20, 10]
