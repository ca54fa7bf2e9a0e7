"""JSON quirks in a GPU spec file or a config.json. Syntax errors
say where and what JSON lacks (comments, trailing commas, single quotes), not NaN; a number too
large for a float (1e400, read by Python as infinity) is refused naming its field; a UTF-8
byte-order mark is skipped, as RFC 8259 allows (the same spec as without it); other encodings
are refused. Deterministic.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import ConfigError, DataFileError, SpecError
from wattgpu_lite.jsonfiles import parse_json
from wattgpu_lite.specs.resolve import resolve_gpu, resolve_llm

FIXTURES = Path(__file__).parents[1] / "fixtures"
SPEC_TEXT = json.dumps(json.loads((FIXTURES / "gpu_rtx5090_spec.json").read_text()))
LLAMA_TEXT = json.dumps(
    json.loads((FIXTURES / "configs" / "meta-llama__Llama-3.1-8B.json").read_text())
)
SYNTAX = "JSON has no comments, trailing commas or single quotes"


def _file(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


SPEC_SYNTAX = {
    "trailing_comma": SPEC_TEXT[:-1] + ", }",
    "comment": "// my GPU\n" + SPEC_TEXT,
    "single_quotes": SPEC_TEXT.replace('"', "'"),
    "empty": "",
    "whitespace": "  \n\t",
    "two_documents": SPEC_TEXT + SPEC_TEXT,
    "unquoted_key": SPEC_TEXT.replace('"tdp_w"', "tdp_w"),
    "truncated": SPEC_TEXT[: len(SPEC_TEXT) // 2],
}


@pytest.mark.parametrize("name", sorted(SPEC_SYNTAX))
def test_a_spec_file_with_a_syntax_error_says_where_and_not_nan(tmp_path, name):
    path = _file(tmp_path, f"{name}.json", SPEC_SYNTAX[name])
    with pytest.raises(SpecError) as caught:
        resolve_gpu(path)
    message = str(caught.value)
    assert f"{name}.json" in message and "not valid JSON" in message and "line " in message
    assert SYNTAX in message and "NaN" not in message


@pytest.mark.parametrize(
    ("literal", "shown"), [("1e400", "inf"), ("-1e400", "-inf"), ("1E999", "inf")]
)
def test_a_spec_number_too_large_for_a_float_is_refused_naming_its_field(tmp_path, literal, shown):
    path = _file(tmp_path, "big.json", SPEC_TEXT.replace('"tdp_w": 575', f'"tdp_w": {literal}'))
    with pytest.raises(SpecError, match=f"'tdp_w': must be finite, got {shown}"):
        resolve_gpu(path)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_a_spec_nan_or_infinity_literal_is_refused_with_the_fix(tmp_path, literal):
    path = _file(tmp_path, "nan.json", SPEC_TEXT.replace('"tdp_w": 575', f'"tdp_w": {literal}'))
    with pytest.raises(SpecError, match="NaN and Infinity are not allowed: write a number"):
        resolve_gpu(path)


@pytest.mark.parametrize(
    ("encoding", "data"),
    [("utf-16", SPEC_TEXT.encode("utf-16")), ("utf-32", SPEC_TEXT.encode("utf-32")),
     ("latin-1", SPEC_TEXT.replace("RTX 5090", "RTX 5090 é").encode("latin-1"))],
)  # fmt: skip
def test_a_spec_file_in_another_encoding_is_refused(tmp_path, encoding, data):
    with pytest.raises(SpecError, match="not UTF-8 text"):
        resolve_gpu(_file(tmp_path, "enc.json", data))


def test_a_spec_file_with_a_byte_order_mark_is_the_same_spec(tmp_path):
    plain = resolve_gpu(_file(tmp_path, "plain.json", SPEC_TEXT))
    marked = resolve_gpu(_file(tmp_path, "bom.json", b"\xef\xbb\xbf" + SPEC_TEXT.encode()))
    assert marked == plain


def test_a_config_with_a_byte_order_mark_is_the_same_model(tmp_path):
    path = _file(tmp_path, "config.json", b"\xef\xbb\xbf" + LLAMA_TEXT.encode())
    plain = wl.LLM.from_hf_config(json.loads(LLAMA_TEXT))
    assert wl.LLM.from_hf_config(path).params_b == plain.params_b
    assert resolve_llm(path).params_b == plain.params_b


@pytest.mark.parametrize(
    "text",
    [LLAMA_TEXT[:-1] + ",}", "/* llama */" + LLAMA_TEXT, LLAMA_TEXT.replace('"', "'")],
    ids=["trailing_comma", "comment", "single_quotes"],
)
def test_a_config_file_with_a_syntax_error_is_refused_both_ways(tmp_path, text):
    path = _file(tmp_path, "config.json", text)
    with pytest.raises(ConfigError, match="not valid JSON"):
        wl.LLM.from_hf_config(path)
    with pytest.raises(ConfigError, match=SYNTAX):
        resolve_llm(path)


def test_a_key_twice_with_the_same_value_is_still_refused(tmp_path):
    path = _file(tmp_path, "config.json", LLAMA_TEXT[:-1] + ', "vocab_size": 128256}')
    for read in (wl.LLM.from_hf_config, resolve_llm):
        with pytest.raises(ConfigError, match="'vocab_size' appears twice"):
            read(path)


def test_parse_json_blames_nan_only_for_nan():
    with pytest.raises(DataFileError) as syntax:
        parse_json(b'{"a": 1,}', "f.json")
    assert "NaN" not in str(syntax.value) and "trailing commas" in str(syntax.value)
    with pytest.raises(DataFileError, match="NaN and Infinity are not allowed"):
        parse_json(b'{"a": NaN}', "f.json")
    assert parse_json(b'\xef\xbb\xbf{"a": 1}', "f.json") == {"a": 1}
