"""wl.measurements checks its arguments: dense_only='no' (or 0, None) was read by truth (all
runs or dense ones, silently), sha256=5 was a TypeError inside the checksum message; a file of
your own with other columns is not told to restore the shipped table with git."""

from __future__ import annotations

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import DataFileError, InvalidInputError


@pytest.mark.parametrize("dense_only", ["no", 0, None])
def test_dense_only_is_true_or_false(dense_only):
    with pytest.raises(InvalidInputError, match=r"measurements: dense_only must be a boolean"):
        wl.measurements(dense_only=dense_only)


@pytest.mark.parametrize("sha256", [5, "abc", ""])
def test_sha256_is_a_hex_digest_or_none(sha256):
    with pytest.raises(InvalidInputError, match=r"sha256 must be 64 hex digits, got .*or None"):
        wl.measurements(sha256=sha256)
    upper = wl.measurements.DATA_SHA256.upper()  # as some tools print it: the same digest
    assert len(wl.measurements(sha256=upper)) == len(wl.measurements())


def test_a_file_of_your_own_with_other_columns_is_told_what_to_give(tmp_path):
    own = tmp_path / "my_runs.csv"
    own.write_text("llm,gpu,power\nx,L4,70\n")
    with pytest.raises(DataFileError, match=r"my_runs\.csv: missing columns") as err:
        wl.measurements(path=own, sha256=None)
    assert "Give the file these columns." in str(err.value) and "git checkout" not in str(err.value)
