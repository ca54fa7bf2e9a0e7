"""Probes of round 2 (issue 20): ``predict_many`` checks every row as ``predict`` does, internal
groupings cannot give one row another's answer, ``rank`` refuses odd GPU counts and candidates
cleanly, every offered ``--weights`` works end to end, and text output survives any encoding.

Each probe asserts a specific message fragment or a specific value."""

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


# ---- item 2: one row never gets another row's configuration ------------------------------------


def test_an_l4_row_keeps_its_power_beside_an_h100_row_with_many_gpus():
    """The issue's case: an H100 SXM × 66 row made an L4 × 1 row report 9,055 W (codes packed
    with a radix of 65 GPU counts). 66 is now refused; 64 GPUs is the largest valid replica."""
    alone = wl.predict_many(pd.DataFrame({"llm": [LLAMA], "gpu": ["L4"], "rate_qps": [0.1]}))
    l4 = alone["power_w"][0]
    assert 30 < l4 < 72  # a 72 W card
    for big, n in (("meta-llama/Llama-3.1-70B-Instruct", 64), (LLAMA, 66), (LLAMA, 65)):
        frame = pd.DataFrame({"llm": [big, LLAMA, big], "gpu": ["H100 SXM", "L4", "H100 SXM"],
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
    from wattgpu_lite.energy import backbone_rows as R
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
        m, g, lay, w = configs[code[i]]
        assert (m is rows[0][i], g is rows[1][i], lay == rows[2][i], w == rows[3][i]) == (
            True, True, True, True), i  # fmt: skip


# ---- item 3: rank's GPU counts and candidates ---------------------------------------------------

RANK = ["rank", "--llm", LLAMA, "--rate-qps", "0.1", "--itl-sla-ms", "50", "--gpus", "L4"]


@pytest.mark.parametrize(
    ("counts", "fragment"),
    [
        ("a", "gpu_counts must be a number, got 'a'"),
        ("2.5", "gpu_counts must be a whole number, got 2.5"),
        ("1,x", "gpu_counts must be a number, got 'x'"),
        ("0", "gpu_counts must be from 1 to 64, got 0"),
        ("65", "gpu_counts must be from 1 to 64, got 65"),
        ("nan", "gpu_counts must be finite"),
        (",", "gpu_counts is empty"),
        ("3", "no layout of gpu_counts (3,) can serve"),
    ],
)
def test_rank_gpu_counts_errors_are_one_line_exit_2(capsys, counts, fragment):
    from wattgpu_lite.__main__ import main

    assert main([*RANK, "--gpu-counts", counts]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and fragment in err and err.count("\n") == 1, err


def test_rank_a_bare_gpu_name_is_one_candidate():
    one = wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50, candidates="L4", gpu_counts=(1,))
    listed = wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50, candidates=["L4"], gpu_counts=(1,))
    assert one["gpu"].tolist() == ["L4"]
    assert one["energy_per_token_j"].tolist() == listed["energy_per_token_j"].tolist()
    device = wl.gpu("H100 SXM")
    assert wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50, candidates=device,
                        gpu_counts=1)["gpu"].tolist() == ["H100 SXM"]  # fmt: skip


def test_rank_gpu_counts_that_split_no_heads_say_so():
    with pytest.raises(InvalidInputError) as err:
        wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50, candidates=["L4", "H100 SXM"],
                     gpu_counts=(3,))  # fmt: skip
    text = str(err.value)
    assert "no layout of gpu_counts (3,) can serve" in text and "tp must divide 32" in text
    assert "fits no candidate" not in text
    assert text.count("tp=3") == 1  # one reason, not one per GPU


@pytest.mark.parametrize(
    ("counts", "fragment"),
    [((2.5,), "gpu_counts must be a whole number, got 2.5"), ((True,), "must be a number"),
     (object(), "gpu_counts must be GPUs per replica"), ((), "gpu_counts is empty")],
)  # fmt: skip
def test_rank_gpus_checks_gpu_counts_in_python(counts, fragment):
    with pytest.raises(InvalidInputError) as err:
        wl.rank_gpus(LLAMA, rate_qps=0.1, itl_sla_ms=50, candidates="L4", gpu_counts=counts)
    assert fragment in str(err.value)


# ---- item 4: every --weights choice the CLI offers works end to end ----------------------------

# bits per weight each offered choice is served at (data/energy_coefficients.csv, weights:<fmt>)
CHOICE_BITS = {"bf16": 16, "fp16": 16, "fp32": 16, "fp8": 8, "int8": 8, "int7": 7 + 23 / 128,
               "int6": 6 + 22 / 128, "int5": 5 + 21 / 128, "int4": 4 + 20 / 128,
               "int3": 3 + 19 / 128, "int2": 2 + 18 / 128, "fp4": 4.25, "mxfp4": 4.25,
               "nvfp4": 4.5, "nf4": 4.5}  # fmt: skip


def test_the_offered_weight_choices_are_the_ones_tested():
    from wattgpu_lite.face.cli import WEIGHT_CHOICES

    assert set(WEIGHT_CHOICES) == set(CHOICE_BITS)


@pytest.mark.parametrize("weights", sorted(CHOICE_BITS))
def test_estimate_serves_each_offered_weight_choice(capsys, weights):
    import json

    from wattgpu_lite.__main__ import main
    from wattgpu_lite.energy.precision import canonical_format

    assert (
        main(["estimate", "--gpu", "H100 NVL", "--llm", LLAMA, "--weights", weights, "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["weights"] == canonical_format(weights)
    assert out["weight_bits"] == pytest.approx(CHOICE_BITS[weights], rel=1e-5)  # 6 figures
    assert math.isfinite(out["total_j"]) and out["total_j"] > 0


@pytest.mark.parametrize("weights", sorted(CHOICE_BITS))
def test_rank_serves_each_offered_weight_choice(capsys, weights):
    import json

    from wattgpu_lite.__main__ import main
    from wattgpu_lite.energy.occupancy import weight_bytes
    from wattgpu_lite.energy.precision import canonical_format

    argv = ["rank", "--llm", LLAMA, "--rate-qps", "0.1", "--itl-sla-ms", "50", "--gpus",
            "H100 SXM", "--gpu-counts", "1", "--weights", weights, "--json"]  # fmt: skip
    assert main(argv) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert row["weights"] == canonical_format(weights) and row["fits"]
    gb = weight_bytes(wl.llm(LLAMA), weights) / 1e9
    assert row["weights_per_gpu_gb"] == pytest.approx(gb, rel=1e-5)  # JSON at 6 figures
    assert math.isfinite(row["energy_per_token_j"]) and row["energy_per_token_j"] > 0


def test_fewer_bits_store_fewer_bytes_for_the_int_formats():
    from wattgpu_lite.energy.occupancy import weight_bytes

    sizes = [weight_bytes(wl.llm(LLAMA), w) for w in ("int2", "int3", "int4", "int8")]
    assert sizes == sorted(sizes) and sizes[0] < 0.15 * weight_bytes(wl.llm(LLAMA), "bf16")


def test_every_storage_format_can_be_served():
    from wattgpu_lite.energy.precision import weight_bits
    from wattgpu_lite.specs.llm import WEIGHT_FORMATS

    bits = {f: weight_bits(wl.llm(LLAMA), f) for f in WEIGHT_FORMATS}
    assert bits == {f: pytest.approx(CHOICE_BITS[f], rel=1e-12) for f in WEIGHT_FORMATS}


# ---- item 5: text output on any encoding, names that cannot add lines ---------------------------

RANK_TEXT = ["rank", "--llm", LLAMA, "--rate-qps", "0.1", "--itl-sla-ms", "50", "--gpus",
             "L4,H100 SXM", "--gpu-counts", "1,2", "--top", "4"]  # fmt: skip


def test_rank_text_under_cp1252_writes_co2_in_ascii():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(wl.__file__).resolve().parents[1]
    env = os.environ | {"PYTHONIOENCODING": "cp1252", "PYTHONPATH": str(root)}
    run = subprocess.run([sys.executable, "-m", "wattgpu_lite", *RANK_TEXT], env=env,
                         capture_output=True, timeout=300, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    out = run.stdout.decode("cp1252")
    assert "g CO2e per request (wall)" in " ".join(out.split()) and "Pick: " in out
    assert "CO₂".encode() not in run.stdout


def test_rank_text_on_an_ascii_stream_falls_back_character_by_character(monkeypatch):
    import io
    import sys

    from wattgpu_lite.__main__ import main

    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", stream)
    assert main(RANK_TEXT) == 0
    stream.flush()
    out = raw.getvalue().decode("ascii")  # every byte is ASCII
    assert "g CO2e per request (wall)" in " ".join(out.split()) and "L4* x2" in out
    assert stream.errors == "strict"  # the stream's own handling is back after the command


def test_a_gpu_name_with_a_newline_cannot_add_lines(tmp_path, capsys):
    import json

    from wattgpu_lite.__main__ import main

    spec = {"name": "Evil\nGPU\tX", "release_year": 2024, "memory_gb": 48, "memory_type": "HBM3",
            "bandwidth_gbs": 2000, "tdp_w": 300, "fp16_tflops": 400}  # fmt: skip
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(spec))
    argv = ["rank", "--llm", LLAMA, "--rate-qps", "0.1", "--itl-sla-ms", "50", "--gpus",
            f"{path},L4", "--gpu-counts", "1"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Evil\\nGPU\\tX" in out
    assert not any(line.startswith("GPU") for line in out.splitlines())
    assert "\t" not in out
    assert main(["predict", "--llm", LLAMA, "--gpu", str(path), "--rate-qps", "0.1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"{LLAMA} on Evil\\nGPU\\tX: rate 0.1 req/s")


def test_escape_controls_writes_every_control_character_as_its_escape():
    from wattgpu_lite.face.cli.text import ascii_of, escape_controls

    assert escape_controls("a\nb\r\tc") == "a\\nb\\r\\tc"
    assert escape_controls("\x1b[31mred") == "\\x1b[31mred"
    assert escape_controls("left\u202eright") == "left\\u202eright"
    assert escape_controls("H100 SXM ×2 · CO₂") == "H100 SXM ×2 · CO₂"
    assert [ascii_of(c) for c in "₂≤×–µé😀"] == ["2", "<=", "x", "-", "u", "e", "?"]
