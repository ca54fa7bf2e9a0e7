"""Write data/MANIFEST.sha256: the sha256 of every file under data/ (``sha256sum -c`` format).

Run after any deliberate change to a data file: ``.venv/bin/python data/scripts/update_manifest.py``.
``tests/kit/test_data_manifest.py`` fails, naming the file, when a file changes without this step.
It also pins the manifest: ``MANIFEST_SHA256`` in wattgpu_lite/datafiles.py is rewritten to the
new manifest's sha256 (the kit refuses a manifest whose digest is not that one).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

DATA = Path(__file__).resolve().parents[1]
MANIFEST = DATA / "MANIFEST.sha256"
PIN_FILE = DATA.parent / "wattgpu_lite" / "datafiles.py"
PIN = re.compile(r'^MANIFEST_SHA256 = "[0-9a-f]{64}"$', re.MULTILINE)


def data_files() -> list[Path]:
    """Every file under data/ but the manifest itself and Python caches, in path order."""
    skip = {MANIFEST}
    return sorted(
        p for p in DATA.rglob("*") if p.is_file() and p not in skip and "__pycache__" not in p.parts
    )


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest_text() -> str:
    return "".join(f"{sha256(p)}  {p.relative_to(DATA).as_posix()}\n" for p in data_files())


def pin(text: str) -> str:
    """wattgpu_lite/datafiles.py's text with MANIFEST_SHA256 set to the sha256 of ``text``."""
    code = PIN_FILE.read_text(encoding="utf-8")
    if len(PIN.findall(code)) != 1:
        raise SystemExit(f"{PIN_FILE}: no single MANIFEST_SHA256 line to rewrite")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return PIN.sub(f'MANIFEST_SHA256 = "{digest}"', code)


if __name__ == "__main__":
    text = manifest_text()
    MANIFEST.write_bytes(text.encode("utf-8"))
    PIN_FILE.write_text(pin(text), encoding="utf-8")
    print(f"{MANIFEST.name}: {len(data_files())} files; pinned in {PIN_FILE.name}")
