"""One output convention for every CLI command: ``--json`` is an object with ``schema_version`` and
``kind``, counts are integers, numbers are rounded to 6 significant figures, NaN is null."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from wattgpu_lite.__main__ import build_parser, main
from wattgpu_lite.face.cli.output import (
    TEXT_WIDTH,
    clean,
    document,
    is_count,
    round_sig,
    text_table,
)

FIXTURES = Path(__file__).parents[1] / "fixtures"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
RANK = ["rank", "--llm", LLAMA, "--scenario", "server_low", "--itl-sla-ms", "30", "--gpus", "A30,L4",
        "--gpu-counts", "1,2"]  # fmt: skip
# one invocation of every command (and of each form of `llms`), with the kind its JSON names
COMMANDS = {
    "gpus": (["gpus"], "gpus"),
    "llms": (["llms"], "llms"),
    "llms --aliases": (["llms", "--aliases"], "llm_aliases"),
    "llms --llm": (["llms", "--llm", str(FIXTURES / "gpt2.json")], "llm_config"),
    "rank": (RANK, "rank"),
    "compare": (["compare", "--llm", LLAMA, "--gpus", "A30,L4,T4", "--rate-qps", "0.5"], "compare"),
    "estimate": (["estimate", "--gpu", "H100 NVL", "--llm", LLAMA, "--tp", "2"], "estimate"),
    "predict": (["predict", "--llm", LLAMA, "--gpu", "A30", "--scenario", "offline"], "predict"),
    "explain": (["explain", "--llm", LLAMA, "--gpu", "A30", "--rate-qps", "0.2"], "explain"),
    "evaluate": (["evaluate", "--model", "hybrid", "--strategy", "logo"], "evaluate"),
}


def _json(capsys, argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _counts(value, key: str = ""):
    """Every (key, value) of a count field, anywhere in a document."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _counts(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _counts(v, key)
    elif is_count(key) and value is not None:
        yield key, value


def _floats(value):
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for v in value:
            yield from _floats(v)
    elif isinstance(value, float):
        yield value


def test_the_table_covers_every_command():
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert {argv[0] for argv, _ in COMMANDS.values()} == set(sub.choices)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_json_is_an_envelope_with_integer_counts_and_rounded_numbers(capsys, name):
    argv, kind = COMMANDS[name]
    doc = _json(capsys, argv)
    assert isinstance(doc, dict) and list(doc)[:2] == ["schema_version", "kind"]
    assert (doc["schema_version"], doc["kind"]) == (1, kind)
    counts = list(_counts(doc))
    assert counts and all(type(v) is int for _, v in counts), counts
    assert all(v == round_sig(v, 6) for v in _floats(doc))


def test_rank_counts_are_integers(capsys):
    rows = _json(capsys, COMMANDS["rank"][0])["rows"]
    keys = ("replicas", "num_gpus", "tp", "ep", "max_batch")
    assert {type(r[k]) for r in rows for k in keys} == {int}
    assert [r["rank"] for r in rows if r["meets_sla"]] == [1, 2]  # a plan that misses has none
    assert {r["num_gpus"] for r in rows} == {1, 2}


def test_estimate_rounds_like_every_command(capsys):
    doc = _json(capsys, COMMANDS["estimate"][0])
    assert (doc["tp"], doc["num_gpus"], doc["t_in"], doc["t_out"]) == (2, 2, 15, 180)
    assert len(repr(doc["total_j"]).replace(".", "").lstrip("0")) <= 6


def test_clean_rounds_nulls_nan_counts_and_refuses_infinity():
    assert clean({"power_w": 118.13558140065778, "replicas": 2.0, "x": math.nan}) == {
        "power_w": 118.136, "replicas": 2, "x": None}  # fmt: skip
    assert clean({"context_length": 1048576.0, "share": 0.5}) == {"context_length": 1048576,
                                                                  "share": 0.5}  # fmt: skip
    with pytest.raises(ValueError, match="result field 'itl_s' is inf"):
        clean({"itl_s": math.inf})


def test_document_puts_the_envelope_first_and_keeps_no_older_version():
    doc = document("predict", {"schema_version": 1, "model": "hybrid", "max_batch": 256.0})
    assert doc == {"schema_version": 1, "kind": "predict", "model": "hybrid", "max_batch": 256}
    assert list(doc) == ["schema_version", "kind", "model", "max_batch"]


# ------------------------------------------------------------------ --output FILE and --quiet
def _file_rows(doc: dict) -> list[dict]:
    """What a .csv/.parquet file must hold: the document's rows, or the document as one row."""
    from wattgpu_lite.face.cli.output import flat_row

    body = {k: v for k, v in doc.items() if k not in ("schema_version", "kind")}
    if doc["kind"] == "evaluate" and doc["model"] == "hybrid":
        return [r | {"table": t} for t in ("pooled", "per_group", "paper_reading") for r in doc[t]]
    return body["rows"] if "rows" in body else [flat_row(body)]


def _same(got, want) -> bool:
    """A value read back from a file against the JSON's (null = empty cell; numbers exact)."""
    if want is None or want == "":
        return got is None or got == "" or (isinstance(got, float) and math.isnan(got))
    if isinstance(want, bool):
        return got in (want, str(want))
    if isinstance(want, int | float):
        return float(got) == float(want)
    return str(got) == str(want)


def _saved(capsys, tmp_path, name: str, suffix: str) -> tuple[dict, Path]:
    argv, _ = COMMANDS[name]
    doc = _json(capsys, argv)
    path = tmp_path / f"out{suffix}"
    assert main([*argv, "--output", str(path), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")  # --quiet: nothing on success
    return doc, path


def _assert_table_matches(table, doc: dict) -> None:
    want = _file_rows(doc)
    rows = table.to_dict(orient="records")
    assert len(rows) == len(want) and set(table.columns) == {k for w in want for k in w}
    bad = [(k, r[k], w.get(k)) for r, w in zip(rows, want, strict=True) for k in r
           if not _same(r[k], w.get(k))]  # fmt: skip
    assert not bad, bad[:5]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_output_json_is_the_json_output(capsys, tmp_path, name):
    doc, path = _saved(capsys, tmp_path, name, ".json")
    assert json.loads(path.read_text(encoding="utf-8")) == doc


@pytest.mark.parametrize("name", list(COMMANDS))
def test_output_csv_holds_the_json_rows(capsys, tmp_path, name):
    import pandas as pd

    doc, path = _saved(capsys, tmp_path, name, ".csv")
    _assert_table_matches(pd.read_csv(path, keep_default_na=False, na_values=[""]), doc)


@pytest.mark.parametrize("name", ["gpus", "rank", "predict", "estimate", "evaluate"])
def test_output_parquet_holds_the_json_rows(capsys, tmp_path, name):
    pytest.importorskip("pyarrow")
    import pandas as pd

    doc, path = _saved(capsys, tmp_path, name, ".parquet")
    _assert_table_matches(pd.read_parquet(path), doc)


def test_output_without_quiet_prints_the_view_and_where_it_saved(capsys, tmp_path):
    path = tmp_path / "gpus.csv"
    assert main(["gpus", "--output", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "H100 NVL" in out and err == f"saved to {path}\n"
    assert main(["gpus", "--quiet"]) == 0 and capsys.readouterr() == ("", "")


@pytest.mark.parametrize("name", ["gpus", "predict", "estimate"])
def test_quiet_beside_json_still_prints_the_json(capsys, tmp_path, name):
    """--json: the JSON is the output; --quiet silences only the rest (here, "saved to")."""
    argv, _ = COMMANDS[name]
    path = tmp_path / "out.json"
    assert main([*argv, "--json", "--quiet", "--output", str(path)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == json.loads(path.read_text(encoding="utf-8")) and err == ""


@pytest.mark.parametrize(
    ("target", "words"),
    [("out.txt", "unknown file type .txt; use one of .csv, .json, .parquet"),
     ("out", "unknown file type (no extension); use one of .csv, .json, .parquet"),
     ("no/such/folder/out.csv", "folder 'no/such/folder' does not exist")],
)  # fmt: skip
def test_output_refusals_are_one_line_before_any_model_loads(capsys, target, words):
    assert (
        main(["predict", "--llm", LLAMA, "--gpu", "A30", "--batch", "1", "--output", target]) == 2
    )
    out, err = capsys.readouterr()
    assert out == "" and err == f"error: --output {target!r}: {words}\n"


def test_parquet_without_pyarrow_says_how_to_install_it(capsys, monkeypatch, tmp_path):
    import sys

    # what the command reads (the catalog, the parser's electricity defaults) is read before
    # pyarrow is blocked: pandas' text columns may need it; the writer is what is tested here
    assert main(["gpus", "--output", str(tmp_path / "g.csv")]) == 0
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now raises ImportError
    assert main(["gpus", "--output", str(tmp_path / "g.parquet")]) == 2
    assert (
        capsys.readouterr().err == "error: --output .parquet needs pyarrow: pip install pyarrow\n"
    )
    assert not (tmp_path / "g.parquet").exists()


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_text_view_fits_100_columns_and_wide_shows_every_column(capsys, name):
    argv, _ = COMMANDS[name]
    assert main(argv) == 0
    narrow = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in narrow) <= TEXT_WIDTH, name
    assert main([*argv, "--wide"]) == 0
    wide = capsys.readouterr().out.splitlines()
    assert not any("--wide shows" in line for line in wide)
    if any("--wide shows" in line for line in narrow):
        assert max(len(line) for line in wide) > TEXT_WIDTH


def test_a_narrow_table_names_the_columns_it_leaves_out():
    table = pd.DataFrame({f"column_{i}": [1.23456789 * i] for i in range(14)})
    text = text_table(table).splitlines()
    assert max(len(line) for line in text) <= TEXT_WIDTH
    kept = text[0].split()
    left_out = [c for c in table.columns if c not in kept]
    assert left_out and kept == list(table.columns[: len(kept)])
    assert " ".join(text[2:]).startswith(f"({len(left_out)} more columns: {', '.join(left_out)};")
    assert text_table(table, wide=True).splitlines()[0].split() == list(table.columns)
    assert "1.235" in text_table(table, wide=True)  # rounded to TEXT_DIGITS figures
