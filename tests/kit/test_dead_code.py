"""No dead code: vulture finds nothing unused in the package at 60 %
confidence but the names tests/vulture_whitelist.py keeps, each with the reason it stays."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import vulture

ROOT = Path(__file__).resolve().parents[2]
WHITELIST = ROOT / "tests" / "vulture_whitelist.py"
MIN_CONFIDENCE = 60


def _unused() -> list[str]:
    v = vulture.Vulture()
    v.scavenge([str(ROOT / "wattgpu_lite"), str(WHITELIST)])
    return [f"{item.filename}:{item.first_lineno}: {item.message}"
            for item in v.get_unused_code(min_confidence=MIN_CONFIDENCE)]  # fmt: skip


def test_vulture_finds_no_dead_code_in_the_package():
    unused = _unused()
    assert unused == [], (
        "dead code (delete it, or keep it in tests/vulture_whitelist.py with why):\n"
        + "\n".join(unused)
    )


def test_every_kept_name_says_why_and_names_something_that_exists():
    source = {p.relative_to(ROOT / "wattgpu_lite").as_posix(): p.read_text()
              for p in (ROOT / "wattgpu_lite").rglob("*.py")}  # fmt: skip
    lines = WHITELIST.read_text().splitlines()
    kept = [lines[node.lineno - 1] for node in ast.parse("\n".join(lines)).body[1:]]
    assert len(kept) > 50
    for line in kept:
        m = re.fullmatch(r"(_\.)?(\w+)  # (\S+): (.{12,})", line)
        assert m, f"a whitelist line is 'name  # module: why', got {line!r}"
        name, module = m.group(2), m.group(3)
        assert re.search(rf"\b{name}\b", source[module]), f"{name} is no longer in {module}"


def test_a_new_unused_function_is_found(tmp_path):
    """The check can fail: an unused function in a copy of a module is reported."""
    module = tmp_path / "extra.py"
    module.write_text("def never_called():\n    return 1\n")
    v = vulture.Vulture()
    v.scavenge([str(module)])
    assert [i.name for i in v.get_unused_code(min_confidence=MIN_CONFIDENCE)] == ["never_called"]
