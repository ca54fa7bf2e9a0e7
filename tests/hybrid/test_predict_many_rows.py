"""``predict_many`` checks every row as ``predict`` does (each invalid row gets its own message
and no number, beside valid rows that keep their answers), and internal groupings cannot give
one row another's configuration. Each test asserts a specific message fragment or value."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
NUMBERS = ["power_w", "power_w_lo", "power_w_hi", "itl_s", "time_per_token_s",
           "energy_per_token_j", "energy_per_token_j_hi", "in_flight", "capacity_qps",
           "max_batch", "idle_power_w"]  # fmt: skip


GOOD = {"llm": LLAMA, "gpu": "L4", "rate_qps": 0.1, "batch": np.nan, "t_in": 15, "t_out": 180,
        "num_gpus": 1, "weights": None}  # fmt: skip


def _one_row(**cells) -> pd.Series:
    """The output row of a bad row (``cells`` over a good one), checked beside a good row."""
    frame = pd.DataFrame([GOOD, GOOD | cells])
    out = wl.predict_many(frame)
    assert out["status"][0] == "ok" and out["message"][0] == ""  # the good row is untouched
    return out.iloc[1]


# (cells of the bad row, fragments its message must contain)
BAD_ROWS = [
    ({"rate_qps": -1.0}, ["rate_qps", "got -1", "requests per second"]),
    ({"rate_qps": 0.0}, ["rate_qps", "got 0", "pass rate_qps"]),
    ({"rate_qps": np.inf}, ["rate_qps must be finite", "got inf"]),
    ({"rate_qps": np.nan, "batch": 0.0}, ["batch", "got 0", "from 1 to 4096"]),
    ({"rate_qps": np.nan, "batch": 2.5}, ["batch must be a whole number", "got 2.5"]),
    ({"rate_qps": np.nan}, ["exactly one of rate_qps and batch", "neither"]),
    ({"batch": 8.0}, ["exactly one of rate_qps and batch", "both"]),
    ({"t_out": 0}, ["t_out", "got 0", "generated tokens"]),
    ({"t_in": -5}, ["t_in", "got -5", "prompt tokens"]),
    ({"t_in": np.nan}, ["t_in must be finite, got nan", "pass t_in"]),
    ({"t_in": 200_000}, ["t_in", "got 200000", "context length"]),
    ({"t_in": 131_000, "t_out": 500}, ["exceeds the model's context length 131,072", "shorten"]),
    ({"num_gpus": 3}, ["tp=3", "32 attention heads", "use tp in [1, 2, 4, 8, 16]"]),
    ({"num_gpus": 2.7}, ["num_gpus must be a whole number", "got 2.7", "num_gpus=4"]),
    ({"num_gpus": 128}, ["num_gpus must be a whole number of GPUs in [1, 64]", "got 128"]),
    ({"num_gpus": 0}, ["num_gpus", "got 0"]),
    ({"weights": "int9"}, ["weights 'int9' is not a weight format", "Pass one of"]),
]


@pytest.mark.parametrize(("cells", "fragments"), BAD_ROWS, ids=[str(c) for c, _ in BAD_ROWS])
def test_predict_many_marks_each_invalid_row_with_its_message_and_no_number(cells, fragments):
    row = _one_row(**cells)
    assert row["status"] == "invalid input"
    for fragment in fragments:
        assert fragment in row["message"], (fragment, row["message"])
    assert all(math.isnan(row[k]) for k in NUMBERS), row[NUMBERS].to_dict()


def test_predict_many_message_is_the_one_predict_raises():
    row = _one_row(num_gpus=3)
    with pytest.raises(InvalidInputError) as err:
        wl.predict(LLAMA, "L4", rate_qps=0.1, num_gpus=3)
    assert row["message"] == str(err.value)


def test_predict_many_refuses_several_gpus_without_a_link_bandwidth():
    spec = {"name": "No-link GPU", "release_year": 2024, "memory_gb": 48, "memory_type": "HBM3",
            "bandwidth_gbs": 2000, "tdp_w": 300, "fp16_tflops": 400}  # fmt: skip
    device = wl.GPU.from_spec(spec)
    frame = pd.DataFrame({"llm": [LLAMA] * 2, "gpu": [device] * 2, "rate_qps": [0.1, 0.1],
                          "num_gpus": [1, 2]})  # fmt: skip
    out = wl.predict_many(frame)
    assert list(out["status"]) == ["ok", "invalid input"]
    with pytest.raises(InvalidInputError) as err:
        wl.predict(LLAMA, device, rate_qps=0.1, num_gpus=2)
    assert out["message"][1] == str(err.value) and "No-link GPU" in out["message"][1]


def test_predict_many_layout_columns_are_checked_per_row():
    frame = pd.DataFrame({"llm": [LLAMA] * 4, "gpu": ["H100 SXM"] * 4, "batch": [8.0] * 4,
                          "tp": [2, 3, 2, 4], "ep": [1, 1, 2, 1],
                          "num_gpus": [2, 3, 2, 8]})  # fmt: skip
    out = wl.predict_many(frame)
    assert list(out["status"]) == ["ok", "invalid input", "invalid input", "invalid input"]
    assert "tp must divide 32" in out["message"][1]
    assert "ep=2" in out["message"][2] and "dense" in out["message"][2]
    assert "num_gpus=8 disagrees with tp=4, ep=1" in out["message"][3]


def test_predict_many_valid_rows_keep_their_answers_beside_invalid_ones():
    good = pd.DataFrame({"llm": [LLAMA] * 2, "gpu": ["L4", "H100 SXM"], "rate_qps": [0.1, 0.5],
                         "t_in": [500, 1000], "t_out": [300, 200]})  # fmt: skip
    alone = wl.predict_many(good)
    bad = pd.DataFrame({"llm": [LLAMA] * 3, "gpu": ["L4", "B200", "L4"],
                        "rate_qps": [-1.0, 1e9, 0.0], "t_in": [500, 10**7, 15],
                        "t_out": [300, 1, 0]})  # fmt: skip
    mixed = wl.predict_many(pd.concat([bad.iloc[:1], good.iloc[:1], bad.iloc[1:], good.iloc[1:]]))
    ok = mixed[mixed["status"] == "ok"].reset_index(drop=True)
    assert len(ok) == 2 and (mixed["status"] == "invalid input").sum() == 3
    for q in ("power_w", "itl_s", "energy_per_token_j", "power_w_hi"):
        assert ok[q].tolist() == alone[q].tolist()


def test_predict_many_echoes_checked_tokens_and_an_empty_message_when_ok():
    out = wl.predict_many(pd.DataFrame({"llm": [LLAMA], "gpu": ["L4"], "batch": [4.0]}))
    assert (out["t_in"][0], out["t_out"][0]) == (15, 180)
    assert out["message"][0] == "" and out["status"][0] == "ok"


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_rows_refused_by_their_tokens_each_get_check_tokens_own_message(dtype):
    """Token messages are made once per key of what they name (a refused t_in, else a refused
    t_out, else the sum beyond the context): rows sharing a message share it, others do not."""
    pairs = [(3000, 10), (3000, 20), (2500, 10), (10, 2049), (20, 2049), (10, 3000),
             (1500, 600), (1600, 500), (1500, 700), (0, 5), (0, 6), (2**40, 5), (2**40 + 1, 5)]  # fmt: skip
    t_in, t_out = zip(*pairs, strict=True)
    frame = pd.DataFrame({"llm": "microsoft/phi-2", "gpu": "A30", "batch": 1.0,
                          "t_in": np.array(t_in, dtype=dtype), "t_out": np.array(t_out, dtype=dtype)})  # fmt: skip
    out = wl.predict_many(frame)
    expected = []
    for a, b in pairs:
        with pytest.raises(InvalidInputError) as err:
            wl.checks.check_tokens(a, b, 2048)
        expected.append(str(err.value))
    assert list(out["message"]) == expected and (out["status"] == "invalid input").all()
    assert expected[0] == expected[1] and expected[6] == expected[7] != expected[8]
    assert expected[11] != expected[12]  # the refused cell itself is named


def test_predict_many_says_why_a_row_is_saturated():
    out = wl.predict_many(pd.DataFrame({"llm": [LLAMA], "gpu": ["L4"], "rate_qps": [900.0]}))
    assert out["status"][0] == "saturated"
    assert "900 req/s is beyond what one L4 can serve" in out["message"][0]


def test_predict_many_all_rows_invalid_gives_nan_not_an_error():
    out = wl.predict_many(pd.DataFrame({"llm": [LLAMA] * 2, "gpu": ["L4"] * 2,
                                        "rate_qps": [-1.0, 0.0]}))  # fmt: skip
    assert (out["status"] == "invalid input").all() and out["power_w"].isna().all()
    assert out["message"].str.contains("rate_qps").all()


@pytest.mark.parametrize(
    ("frame", "fragment"),
    [
        (pd.DataFrame(), "empty DataFrame"),
        (pd.DataFrame(columns=["llm", "gpu", "rate_qps"]), "empty DataFrame"),
        ({"llm": [LLAMA], "gpu": ["L4"], "rate_qps": [0.1]}, "got a dict; wrap the rows"),
        ([{"llm": LLAMA, "gpu": "L4", "rate_qps": 0.1}], "got a list; wrap the rows"),
        (
            pd.DataFrame({"llm": [LLAMA], "gpu": ["L4"], "rate_qps": ["fast"]}),
            "column 'rate_qps' must hold numbers (or blanks), got 'fast'",
        ),
        (
            pd.DataFrame({"llm": [LLAMA], "gpu": ["L4"], "batch": [True]}),
            "column 'batch' must hold numbers (or blanks), got True",
        ),
        (
            pd.DataFrame({"llm": [LLAMA], "gpu": ["L4"], "rate_qps": [0.1], "t_in": [[5]]}),
            "column 't_in' must hold numbers",
        ),
        (pd.DataFrame({"gpu": ["L4"], "rate_qps": [0.1]}), "needs a column 'llm'"),
    ],
)
def test_predict_many_refuses_what_is_not_a_frame_of_rows(frame, fragment):
    with pytest.raises(InvalidInputError) as err:
        wl.predict_many(frame)
    assert fragment in str(err.value)


def test_columns_keeps_the_result_columns_asked_for_with_the_same_values():
    frame = pd.DataFrame([GOOD, GOOD | {"rate_qps": -1.0}, GOOD | {"rate_qps": 500.0}])
    whole = wl.predict_many(frame)
    some = wl.predict_many(frame, columns=["itl_s", "power_w"])  # kept in the result's order
    always = [*frame.columns, "llm_architecture", "basis", "itl_interval_from", "status", "message"]
    assert set(some.columns) == {*always, "itl_s", "power_w"}
    assert list(some.columns).index("power_w") < list(some.columns).index("itl_s")
    pd.testing.assert_frame_equal(some, whole[list(some.columns)], check_exact=True)
    assert list(some["status"]) == ["ok", "invalid input", "saturated"]
    assert "capacity" in some["message"][2]  # a refused row is still told why
    assert list(wl.predict_many(frame, columns="itl_s").columns)[-5:] == [
        "itl_s", "basis", "itl_interval_from", "status", "message"]  # fmt: skip


@pytest.mark.parametrize(
    ("columns", "fragment"),
    [
        (["power"], "no result column 'power'; did you mean 'power_w'"),
        (["itl_s", "ITL"], "no result column 'ITL'; did you mean 'itl_s'"),
        (["status"], "no result column 'status'"),  # always returned, not a numeric column
        (3, "takes a list of result column names, got 3"),
        ([("power_w",)], "takes a list of result column names"),
    ],
)
def test_columns_refuses_a_name_that_is_not_a_result_column(columns, fragment):
    with pytest.raises(InvalidInputError) as err:
        wl.predict_many(pd.DataFrame([GOOD]), columns=columns)
    assert fragment in str(err.value)


# ---- one row never gets another row's configuration -------------------------------------------


def test_an_l4_row_keeps_its_power_beside_an_h100_row_with_many_gpus():
    """A row with many GPUs cannot change another row's answer (row codes once packed with a
    radix of 65 GPU counts gave an L4 × 1 row 9,055 W beside an H100 SXM × 66 row). 66 is now
    refused; 64 GPUs is the largest valid replica (on a GB200 NVL72 rack: an H100 SXM baseboard
    joins 8)."""
    alone = wl.predict_many(pd.DataFrame({"llm": [LLAMA], "gpu": ["L4"], "rate_qps": [0.1]}))
    l4 = alone["power_w"][0]
    assert 30 < l4 < 72  # a 72 W card
    for big, n in (("meta-llama/Llama-3.1-70B-Instruct", 64), (LLAMA, 66), (LLAMA, 65)):
        frame = pd.DataFrame({"llm": [big, LLAMA, big], "gpu": ["GB200", "L4", "H100 SXM"],
                              "rate_qps": [0.1] * 3, "num_gpus": [n, 1, 1]})  # fmt: skip
        out = wl.predict_many(frame)
        # equal to the solver's tolerance (the rate solve iterates over all rows at once)
        assert out["power_w"][1] == pytest.approx(l4, rel=1e-9), (n, out["power_w"].tolist())
        assert out["status"][0] == ("ok" if n == 64 else "invalid input")
        assert out["status"][2] == ("does not fit in memory" if big != LLAMA else "ok")
    assert (
        "num_gpus must be a whole number of GPUs in [1, 64], got 66"
        in (wl.predict_many(frame.assign(num_gpus=[66, 1, 1]))["message"][0])
    )


def test_configuration_codes_name_each_rows_own_objects():
    from wattgpu_lite.energy.backbone import row_arrays as R
    from wattgpu_lite.energy.uniques import unhashed
    from wattgpu_lite.specs.layout import Parallel

    rng = np.random.default_rng(20)
    llms = [wl.llm(n) for n in (LLAMA, "meta-llama/Llama-3.1-70B-Instruct", "openai/gpt-oss-20b")]
    gpus = [wl.gpu(n) for n in ("L4", "H100 SXM", "B200", "A30")]
    kinds = [Parallel(1), Parallel(2), Parallel(4), Parallel(8), Parallel(2, 2), Parallel(1, 8)]
    formats = [None, "fp8", "int4", "bf16"]
    n = 2000
    picks = [rng.integers(0, len(x), n) for x in (llms, gpus, kinds, formats)]
    rows = [[x[k] for k in p] for x, p in zip((llms, gpus, kinds, formats), picks, strict=True)]
    configs, code = R._codes(*rows)
    assert len(configs) == len({tuple(p[i] for p in picks) for i in range(n)})
    for i in range(n):
        m, g, lay, w = (unhashed(x) for x in configs[code[i]])  # LLM, GPU hashed once (keys)
        assert (m is rows[0][i], g is rows[1][i], lay == rows[2][i], w == rows[3][i]) == (
            True, True, True, True), i  # fmt: skip
