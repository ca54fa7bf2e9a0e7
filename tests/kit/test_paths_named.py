"""Every file path the kit's text names exists: docs, docstrings and comments say where a thing is,
so a moved or deleted file must not leave its old name behind."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# a repository path: one of the kit's top folders, then name parts, ending in a file suffix
PATH = re.compile(r"(?<![\w./-])((?:tests|benchmarks|data/scripts|wattgpu_lite|notebooks)"
                  r"/[\w./-]*?\.(?:py|ipynb|csv|json|md|cfg))(?![\w/])")  # fmt: skip
TEXT_SUFFIXES = {".py", ".md", ".toml", ".cfg", ".txt", ""}


def tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()  # fmt: skip
    return [ROOT / n for n in names if Path(n).suffix in TEXT_SUFFIXES and (ROOT / n).is_file()]


def named_paths(text: str) -> set[str]:
    """The repository paths a text names (globs and placeholders such as ``X.ipynb`` skipped)."""
    return {p for p in PATH.findall(text) if "*" not in p and "<" not in p and "/X." not in p}


def test_the_pattern_finds_a_path_and_skips_a_glob():
    text = "see `tests/kit/test_style.py`, data/scripts/update_manifest.py and tests/*.py"
    assert named_paths(text) == {"tests/kit/test_style.py", "data/scripts/update_manifest.py"}


def test_every_path_named_in_the_kit_exists():
    missing = []
    for path in tracked_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        missing += [f"{path.relative_to(ROOT)} names {p}" for p in sorted(named_paths(text))
                    if not (ROOT / p).exists()]  # fmt: skip
    assert missing == [], "\n".join(missing)
