"""Every file the kit reads, read one safe way, and every shipped file checked against its sha256.

    data_dir()                  # $WATTGPU_LITE_DATA, else wattgpu_lite/_data (a wheel), else data/
    read_csv(path)              # a DataFrame, or DataFileError naming the file
    read_bytes(path)            # the bytes, checked against data/MANIFEST.sha256 if shipped

The readers catch OS, decode and parse errors (JSON files: :mod:`wattgpu_lite.jsonfiles`), cap
the size, and never ask the file system about a string that cannot be a path. Every read of a file
in the data folder hashes the bytes it returns and compares them with the folder's manifest, which
:data:`MANIFEST_SHA256` pins (``sha256=None``: a user's own file; a hex digest pins another one).
"""

from __future__ import annotations

import hashlib
import io
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from wattgpu_lite.errors import DataFileError, WattGPUError

ENV_DATA = "WATTGPU_LITE_DATA"  # a folder to read the data from instead (tests, tampering)
MANIFEST = "MANIFEST.sha256"
FROM_MANIFEST = "manifest"  # sha256= default: the manifest's digest for a shipped file, else none
MAX_BYTES = 16 * 2**20  # the largest shipped file is ~1.4 MB; a config.json a few kB
NAME_MAX, PATH_MAX = 255, 4096  # bytes: POSIX limits of one path part and of a whole path
LEFT_OUT = ("scripts",)  # parts of data/ a wheel leaves out (hatch_build.py): never read by the kit
# sha256 of data/MANIFEST.sha256, written by data/scripts/update_manifest.py; do not edit by hand
MANIFEST_SHA256 = "86707dd63acff7dd498ed995c83490beb09c7074a6f4c900605501f6619403b8"


def data_dir() -> Path:
    """$WATTGPU_LITE_DATA if set, else wattgpu_lite/_data in an installed wheel, else data/; the
    first call for a folder checks every file its manifest lists (:func:`verify_folder`)."""
    folder = _folder()
    verify_folder(folder)
    return folder


def _folder() -> Path:
    """The data folder :func:`data_dir` uses, not yet verified."""
    if os.environ.get(ENV_DATA):
        return Path(os.environ[ENV_DATA])
    packaged = Path(__file__).parent / "_data"
    return packaged if packaged.is_dir() else packaged.parents[1] / "data"


@lru_cache(maxsize=8)
def verify_folder(folder: Path) -> int:
    """Check every file of ``folder``'s (pinned) manifest but the build scripts a wheel leaves
    out; DataFileError names the first changed or missing one. Returns the number checked."""
    checked = 0
    for name, digest in _manifest(folder).items():
        path = folder / name
        if path.is_file():
            _check_digest(path.read_bytes(), digest, name)
            checked += 1
        elif Path(name).parts[0] not in LEFT_OUT:
            raise _missing(name, folder)
    return checked


def _missing(name: str, folder: Path) -> DataFileError:
    missing = f"{name}: listed in {MANIFEST} but missing from {folder}, so the kit is incomplete"
    return DataFileError(f"{missing}; {restore_hint(name)}")


def restore_hint(name: str) -> str:
    """What to do about a changed or missing shipped file, for this kind of install."""
    if os.environ.get(ENV_DATA):
        again = f"copy {name} again from the kit's data/ into ${ENV_DATA}={os.environ[ENV_DATA]}"
        lacks = "(if data/ lacks it too, `git checkout data/` or reinstall the kit)"
        pinned = "the manifest is pinned by the kit's code, so a changed folder cannot be made"
        return f"{again} {lacks}; {pinned} trusted by editing its manifest"
    if (Path(__file__).parent / "_data").is_dir():
        return "reinstall the kit (pip install --force-reinstall wattgpu_lite); do not edit it"
    on_purpose = "if you changed it on purpose, run data/scripts/update_manifest.py"
    return f"restore it with `git checkout data/{name}`; {on_purpose}"


def fix_for(path: Any) -> str:
    """:func:`restore_hint` for a shipped file; for a user's own file, to check or rebuild it."""
    file = as_path(path)
    name = shipped_name(file) if file is not None else None
    return restore_hint(name) if name else "check the file, or write it again with the kit"


def as_path(value: Any) -> Path | None:
    """``value`` as a Path if it can name a file (str or PathLike, no NUL, parts <= 255 bytes,
    whole <= 4096 bytes), else None. Never touches the file system."""
    try:
        raw = os.fsencode(value) if isinstance(value, str | os.PathLike) else b""
    except (TypeError, ValueError):
        raw = b""
    short = raw and len(raw) <= PATH_MAX and max(map(len, raw.split(b"/"))) <= NAME_MAX
    return Path(os.fsdecode(raw)) if short and b"\0" not in raw else None


def is_file(value: Any) -> bool:
    """True if ``value`` names an existing regular file; False (never an error) otherwise."""
    path = as_path(value)
    try:
        return path is not None and path.is_file()
    except (OSError, ValueError):
        return False


def refuse_folder(value: Any, what: str, inside: str | None, error: type[WattGPUError]) -> None:
    """``error`` if ``value`` names a folder (a model's download): the kit reads one file."""
    path = as_path(value)
    try:
        if path is None or not path.is_dir():
            return
    except (OSError, ValueError):
        return
    fix = f"pass the path of the {what} file itself"
    if inside and is_file(path / inside):
        fix = f"pass the file inside it: {str(path / inside)!r}"
    raise error(f"{str(value)!r} is a folder, not a {what} file; {fix}")


@lru_cache(maxsize=8)
def _manifest(folder: Path) -> dict[str, str]:
    """name -> sha256 of a folder's MANIFEST.sha256 (``sha256sum`` format), itself pinned."""
    try:
        raw = (folder / MANIFEST).read_bytes()
        lines = raw.decode("utf-8").splitlines()
        listed = {name: digest for digest, name in (ln.split("  ", 1) for ln in lines if ln)}
    except (OSError, UnicodeDecodeError, ValueError) as err:
        why = f"cannot be read ({err}); {restore_hint(MANIFEST)}"
        raise DataFileError(f"{MANIFEST} in {folder} {why}") from None
    actual = hashlib.sha256(raw).hexdigest()
    if actual != MANIFEST_SHA256:
        unlisted = _unlisted(folder, listed)
        dropped = f"; it does not list {', '.join(unlisted)}" if unlisted else ""
        raise DataFileError(
            f"{MANIFEST} in {folder}: sha256 {actual[:12]}… is not the {MANIFEST_SHA256[:12]}… "
            "this version of the kit pins, so the manifest was changed (a line removed or a digest "
            f"edited){dropped} and no file it lists can be trusted; {restore_hint(MANIFEST)}"
        )
    return listed


def _unlisted(folder: Path, listed: dict[str, str], most: int = 5) -> list[str]:
    """Up to ``most`` files of ``folder`` a manifest does not list (the manifest aside)."""
    try:
        names = (p.relative_to(folder).as_posix() for p in sorted(folder.rglob("*")) if p.is_file())
        found = [n for n in names if n != MANIFEST and "__pycache__" not in n and n not in listed]
        return found[:most]
    except OSError:
        return []


def shipped_name(path: Path) -> str | None:
    """``path`` relative to the data folder (posix), or None for a file outside it."""
    try:
        return path.resolve().relative_to(_folder().resolve()).as_posix()
    except (OSError, RuntimeError, ValueError):
        return None


def expected_sha256(path: Path) -> str | None:
    """The manifest's sha256 of a shipped file; None outside the data folder."""
    name = shipped_name(path)
    if name is None:
        return None
    digest = _listed(name)
    if digest is None:
        unlisted = f"not listed in {MANIFEST}, so it is not a file the kit shipped"
        raise DataFileError(f"{name}: {unlisted}; {restore_hint(name)}")
    return digest


def _listed(name: str) -> str | None:
    """The pinned manifest's sha256 of ``name`` (None if unlisted), or DataFileError naming it."""
    try:
        return _manifest(_folder().resolve()).get(name)
    except DataFileError as err:
        raise DataFileError(f"{name}: cannot be verified: {err}") from None


def _check_digest(data: bytes, expected: str, name: str) -> None:
    """DataFileError naming ``name`` unless the sha256 of exactly these bytes is ``expected``."""
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        mismatch = f"checksum mismatch, sha256 {actual[:12]}… is not the {expected[:12]}… expected"
        why = "so its numbers cannot be trusted (the file was changed or damaged)"
        raise DataFileError(f"{name}: {mismatch}, {why}; {restore_hint(name)}")


def read_bytes(
    path: Any,
    *,
    sha256: str | None = FROM_MANIFEST,
    what: str = "data file",
    error: type[WattGPUError] = DataFileError,
    max_bytes: int = MAX_BYTES,
) -> bytes:
    """The bytes of a file, size-capped and checked against ``sha256`` (see the module doc)."""
    file = as_path(path)
    if file is None:
        why = f"not a usable file path (empty, a NUL byte, or a name over {NAME_MAX} bytes)"
        raise error(f"{what} {str(path)[:80]!r}: {why}; pass the path of a JSON or CSV file")
    try:
        if not file.is_file():  # a file the (pinned) manifest lists: DataFileError, restore it
            name = shipped_name(file) if sha256 == FROM_MANIFEST else None
            if name is not None and _listed(name) is not None:
                raise _missing(name, _folder())
            raise error(f"{what} {file}: not found or not a regular file; check the path")
        if file.stat().st_size > max_bytes:
            size = f"larger than {max_bytes:,} bytes; check it is the right file"
            raise error(f"{what} {file}: {size}")
        data = file.read_bytes()
        expected = expected_sha256(file) if sha256 == FROM_MANIFEST else sha256
        if expected is not None:
            _check_digest(data, expected, shipped_name(file) or file.name)
    except OSError as err:
        why = f"cannot be read ({err.strerror or err}); check the path and its permissions"
        raise error(f"{what} {file}: {why}") from None
    return data


def read_csv(
    path: Any,
    *,
    what: str = "data file",
    sha256: str | None = FROM_MANIFEST,
    max_bytes: int = MAX_BYTES,
    **options: Any,
) -> pd.DataFrame:
    """A CSV file as a DataFrame (``options`` go to pandas); DataFileError names the file."""
    data = read_bytes(path, sha256=sha256, what=what, max_bytes=max_bytes)
    name = shipped_name(Path(path))
    label, fix = (name, restore_hint(name)) if name else (str(path), "fix the file or pass another")
    try:
        table = pd.read_csv(io.BytesIO(data), **options)
    except pd.errors.EmptyDataError:
        raise DataFileError(f"{label}: empty; {fix}") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as err:
        why = " ".join(str(err).split())[:300]
        raise DataFileError(f"{label}: not a readable CSV ({why}); {fix}") from None
    if table.empty:
        raise DataFileError(f"{label}: has a header but no rows; {fix}")
    return table
