"""Write data/MANIFEST.sha256: the sha256 of every file under data/ (``sha256sum -c`` format).

Run after any deliberate change to a data file: ``.venv/bin/python data/scripts/update_manifest.py``.
``tests/test_data_manifest.py`` fails, naming the file, when a file changes without this step.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

DATA = Path(__file__).resolve().parents[1]
MANIFEST = DATA / "MANIFEST.sha256"


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


if __name__ == "__main__":
    MANIFEST.write_text(manifest_text())
    print(f"{MANIFEST.name}: {len(data_files())} files")
