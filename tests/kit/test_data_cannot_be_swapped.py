"""Data that cannot be swapped: for every file MANIFEST.sha256 lists, a line
removed from the manifest, an edit with its digest updated, a same-size edit with the mtime
restored (in the same process, after a first good read) and the file deleted are each a
DataFileError naming the file. Also: the manifest is pinned by the code, and the kit's modules
read shipped files only through wattgpu_lite/datafiles.py.

One copy of data/ per module, selected with $WATTGPU_LITE_DATA; each test restores what it
changed and clears the readers' per-folder caches.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import pytest
from fresh_load import load_in_fresh_interpreter

from wattgpu_lite import datafiles as D
from wattgpu_lite.errors import DataFileError

ROOT = Path(__file__).resolve().parents[2]
LISTED = [ln.split("  ", 1)[1] for ln in (ROOT / "data" / D.MANIFEST).read_text().splitlines()]
MODES = ("line_removed", "digest_updated", "same_size_mtime_kept", "deleted")


def _clear() -> None:
    D.verify_folder.cache_clear()
    D._manifest.cache_clear()


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tamper") / "data"
    shutil.copytree(ROOT / "data", folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@pytest.fixture
def data(copy, monkeypatch):
    monkeypatch.setenv(D.ENV_DATA, str(copy))
    saved = {p: p.read_bytes() for p in (copy / D.MANIFEST,)}
    _clear()
    yield copy
    for path, raw in saved.items():
        path.write_bytes(raw)
    _clear()


def _flip_same_size(raw: bytes) -> bytes:
    """One byte changed, same length (a digit or letter moved by one)."""
    i = next(i for i, b in enumerate(raw) if chr(b).isalnum())
    return raw[:i] + bytes([raw[i] ^ 1]) + raw[i + 1 :]


def _rewrite_manifest(folder: Path, name: str, digest: str | None) -> None:
    """The manifest with ``name``'s line dropped (digest None) or given ``digest``."""
    lines = (folder / D.MANIFEST).read_text().splitlines()
    out = [
        ln if not ln.endswith(f"  {name}") else f"{digest}  {name}"
        for ln in lines
        if digest is not None or not ln.endswith(f"  {name}")
    ]
    (folder / D.MANIFEST).write_text("".join(f"{ln}\n" for ln in out))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", LISTED)
def test_every_listed_file_cannot_be_swapped(data, name, mode):
    path = data / name
    original = path.read_bytes()
    stat = path.stat()
    assert D.read_bytes(path) == original  # the untouched copy reads (and warms any cache)
    try:
        if mode == "line_removed":
            _rewrite_manifest(data, name, None)
            _clear()
        elif mode == "digest_updated":
            changed = original + b"\n"
            path.write_bytes(changed)
            _rewrite_manifest(data, name, hashlib.sha256(changed).hexdigest())
            _clear()
        elif mode == "same_size_mtime_kept":
            path.write_bytes(_flip_same_size(original))
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            assert path.stat().st_size == stat.st_size
            assert path.stat().st_mtime_ns == stat.st_mtime_ns
        else:
            path.unlink()
        with pytest.raises(DataFileError) as caught:
            D.read_bytes(path)
        message = str(caught.value)
        assert message.startswith(f"{name}: "), message
        if mode == "deleted":
            assert "missing" in message and "copy" in message and "git checkout data/" in message
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_deleted_file_without_the_env_var_says_git_checkout(monkeypatch):
    monkeypatch.delenv(D.ENV_DATA, raising=False)
    name = "hybrid/nested_lolo.csv"
    error = D._missing(name, D.data_dir())
    assert "git checkout data/hybrid/nested_lolo.csv" in str(error)


def test_a_deleted_state_json_is_a_data_file_error_through_the_loader(data):
    from wattgpu_lite.hybrid.predict.model import HybridState

    path = data / "models/wattgpu_hybrid/state.json"
    original = path.read_bytes()
    path.unlink()
    try:
        with pytest.raises(DataFileError, match="models/wattgpu_hybrid/state.json: listed in"):
            HybridState.load(data / "models/wattgpu_hybrid")
    finally:
        path.write_bytes(original)


def test_the_folder_check_refuses_a_missing_listed_file_but_not_left_out_scripts(data):
    path = data / "energy_coefficients.csv"
    original = path.read_bytes()
    path.unlink()
    try:
        with pytest.raises(DataFileError, match="energy_coefficients.csv: listed in MANIFEST"):
            D.verify_folder(data)
    finally:
        path.write_bytes(original)
    _clear()
    script = data / "scripts/update_manifest.py"
    kept = script.read_bytes()
    script.unlink()
    try:
        assert D.verify_folder(data) == len(LISTED) - 1  # a wheel has no scripts/
    finally:
        script.write_bytes(kept)


def test_the_manifest_is_pinned_by_the_code():
    raw = (ROOT / "data" / D.MANIFEST).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == D.MANIFEST_SHA256, (
        "run data/scripts/update_manifest.py"
    )


def test_update_manifest_rewrites_the_pin_only():
    import data_scripts

    module = data_scripts.load("update_manifest")
    digest = hashlib.sha256(b"x\n").hexdigest()
    code = module.pin("x\n")
    assert f'MANIFEST_SHA256 = "{digest}"' in code
    current = (ROOT / "wattgpu_lite/datafiles.py").read_text()
    assert code.replace(digest, D.MANIFEST_SHA256) == current


# reads the kit's modules make; selection/ is edited by others this round (its three CSV reads
# are covered by data_dir()'s whole-folder check); runs/ hashes downloads and its own table
DIRECT_READ = re.compile(
    r"read_text\(|\.read_bytes\(\)|pd\.read_csv\(|json\.load\(|(?<![.\w])open\("
)
ALLOWED = {"datafiles.py",
           "face/cli/defaults.py",  # the user's own wattgpu-lite.toml, not a shipped file
           "face/student.py",  # the notebooks it writes the student edition of, not data
           "runs/upstream.py", "runs/table.py"}  # fmt: skip


def test_shipped_files_are_read_only_through_datafiles():
    package = ROOT / "wattgpu_lite"
    offenders = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel in ALLOWED:
            continue
        offenders += [f"{rel}: {ln.strip()}" for ln in path.read_text().splitlines()
                      if DIRECT_READ.search(ln) and "write" not in ln]  # fmt: skip
    assert not offenders, offenders


LOADERS = {
    "energy": "wl.estimate_energy('meta-llama/Llama-2-7b-hf', 'H100 NVL', mode='physical')",
    "hybrid": "wl.HybridState.pretrained()",
}


def _load(data: Path, loader: str) -> str:
    """What a fresh interpreter on ``data`` says: LOADED, or the DataFileError's message."""
    return load_in_fresh_interpreter(data, LOADERS[loader])


@pytest.fixture
def fresh(tmp_path):
    folder = tmp_path / "data"
    shutil.copytree(ROOT / "data", folder, ignore=shutil.ignore_patterns("scripts", "__pycache__"))
    return folder


def _edit_coefficients(folder: Path) -> bytes:
    """energy_coefficients.csv with one digit of its first number row changed (same size)."""
    path = folder / "energy_coefficients.csv"
    lines = path.read_bytes().split(b"\n")
    row = next(i for i, ln in enumerate(lines[1:], 1) if b",physical," in ln)
    lines[row] = _flip_same_size(lines[row])
    path.write_bytes(b"\n".join(lines))
    return path.read_bytes()


def test_a_line_removed_and_a_coefficient_changed_is_refused_in_a_fresh_interpreter(fresh):
    _edit_coefficients(fresh)
    _rewrite_manifest(fresh, "energy_coefficients.csv", None)
    out = _load(fresh, "energy")
    assert out.startswith(f"DataFileError: {D.MANIFEST} in"), out
    assert "does not list energy_coefficients.csv" in out and "pins" in out, out


def test_a_coefficient_changed_with_its_digest_updated_is_refused_by_the_pin(fresh):
    changed = _edit_coefficients(fresh)
    _rewrite_manifest(fresh, "energy_coefficients.csv", hashlib.sha256(changed).hexdigest())
    out = _load(fresh, "energy")
    assert out.startswith(f"DataFileError: {D.MANIFEST} in") and "pins" in out, out


def test_a_deleted_state_json_is_a_data_file_error_in_a_fresh_interpreter(fresh):
    (fresh / "models/wattgpu_hybrid/state.json").unlink()
    out = _load(fresh, "hybrid")
    assert out.startswith("DataFileError: models/wattgpu_hybrid/state.json: listed in"), out
    assert "copy models/wattgpu_hybrid/state.json again" in out, out
