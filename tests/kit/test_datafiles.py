"""The one safe reader: bad paths, bytes and shapes become one kit error naming the file and the fix."""

from __future__ import annotations

import hashlib
import shutil

import pandas as pd
import pytest

from wattgpu_lite import datafiles as D
from wattgpu_lite import jsonfiles as J
from wattgpu_lite.errors import ConfigError, DataFileError


def _write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    "value",
    ["x" * 256, "a/" + "b" * 300 + ".json", "bad\0name.json", "", "/" + "d/" * 2100, 42, None],
)
def test_impossible_paths_are_not_paths_and_never_raise(value):
    assert D.as_path(value) is None
    assert D.is_file(value) is False


def test_a_real_file_is_a_file(tmp_path):
    path = _write(tmp_path, "a.json", b"{}")
    assert D.is_file(path) and D.is_file(str(path)) and not D.is_file(tmp_path)


@pytest.mark.parametrize(
    ("data", "words"),
    [(b"", "not valid JSON"), (b"{", "not valid JSON"), (b"\xff\xfe\x00\x01", "not UTF-8"),
     (b"[1, 2]", "list where an object"), (b"null", "NoneType where an object"),
     (b"3.5", "float where an object"), (b'{"tdp_w": NaN}', "NaN and Infinity are not allowed"),
     (b'{"tdp_w": Infinity}', "NaN and Infinity"), (b"[" * 100 + b"]" * 100, "nested deeper"),
     (b"[" * 100_000 + b"]" * 100_000, "nested deeper")],
)  # fmt: skip
def test_bad_json_is_one_error_naming_the_file(tmp_path, data, words):
    path = _write(tmp_path, "spec.json", data)
    with pytest.raises(ConfigError, match=words) as err:
        J.read_json(path, error=ConfigError, sha256=None)
    assert "spec.json" in str(err.value)


def test_missing_directory_and_oversized_files(tmp_path):
    with pytest.raises(DataFileError, match="not found or not a regular file; check the path"):
        J.read_json(tmp_path / "nope.json")
    with pytest.raises(DataFileError, match="not a regular file"):
        J.read_json(tmp_path)
    big = _write(tmp_path, "big.json", b" " * 2000 + b"{}")
    with pytest.raises(DataFileError, match="larger than 1,000 bytes"):
        J.read_json(big, max_bytes=1000)


def test_a_pinned_digest_is_checked_and_none_opts_out(tmp_path):
    path = _write(tmp_path, "mine.json", b'{"a": 1}')
    right = hashlib.sha256(b'{"a": 1}').hexdigest()
    assert J.read_json(path, sha256=right) == {"a": 1}
    with pytest.raises(DataFileError, match="checksum mismatch"):
        J.read_json(path, sha256="0" * 64)
    assert J.read_json(path, sha256=None) == {"a": 1}


@pytest.mark.parametrize(
    ("data", "words"),
    [(b"", "empty"), (b"a,b\n", "header but no rows"), (b"\xff\xfe\x00a,b\n1,2", "not a readable CSV"),
     (b'a,b\n1,"2\n', "not a readable CSV")],
)  # fmt: skip
def test_bad_csv_is_a_data_file_error(tmp_path, data, words):
    path = _write(tmp_path, "t.csv", data)
    with pytest.raises(DataFileError, match=words):
        D.read_csv(path, sha256=None)


def test_csv_reads_like_pandas(tmp_path):
    path = _write(tmp_path, "t.csv", b"a,b\n1,2\n")
    pd.testing.assert_frame_equal(D.read_csv(path, sha256=None), pd.DataFrame({"a": [1], "b": [2]}))


def test_every_shipped_file_is_listed_and_verified():
    folder = D.data_dir()
    manifest = (folder / D.MANIFEST).read_text().splitlines()
    assert D.verify_folder(folder) == len(manifest)
    recorded = dict(reversed(line.split("  ", 1)) for line in manifest)
    assert D.expected_sha256(folder / "gpus.csv") == recorded["gpus.csv"]
    assert D.expected_sha256(folder.parent / "README.md") is None  # not shipped data


def test_a_shipped_file_not_in_the_manifest_is_refused(tmp_path, monkeypatch):
    copy = tmp_path / "data"
    shutil.copytree(D.data_dir(), copy, ignore=shutil.ignore_patterns("scripts", "__pycache__"))
    (copy / "extra.csv").write_text("a\n1\n")
    monkeypatch.setenv(D.ENV_DATA, str(copy))
    assert len(D.read_csv(copy / "gpus.csv")) > 8
    with pytest.raises(DataFileError, match="extra.csv: not listed in MANIFEST.sha256"):
        D.read_csv(copy / "extra.csv")


@pytest.mark.parametrize(
    ("env", "wheel", "words"),
    [(True, False, "copy gpus.csv again"), (False, True, "reinstall the kit"),
     (False, False, "git checkout data/gpus.csv")],
)  # fmt: skip
def test_the_fix_depends_on_the_install(monkeypatch, tmp_path, env, wheel, words):
    if env:
        monkeypatch.setenv(D.ENV_DATA, str(tmp_path))
    else:
        monkeypatch.delenv(D.ENV_DATA, raising=False)
    real_is_dir = type(tmp_path).is_dir
    monkeypatch.setattr(
        type(tmp_path), "is_dir", lambda p: wheel if p.name == "_data" else real_is_dir(p)
    )
    assert words in D.restore_hint("gpus.csv")
