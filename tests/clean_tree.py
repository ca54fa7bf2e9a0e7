"""A test run leaves the working tree as it found it: what ``git status`` shows is the same after
the run as before (the root conftest.py records it when a session starts and compares when it
finishes, on the xdist controller only; for ``pytest tests`` and for ``make nbval`` alike).

Paths .gitignore names do not count (git does not show them). A path that was already changed or
untracked when the run started counts only if its content changed during the run: a snapshot
holds, per path ``git status`` lists, its two-letter status and a digest of its bytes.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

# set by the session that watches the tree, so that pytest sessions started inside it (a
# notebook run by a test, in a subprocess) do not watch it again
WATCHING = "KIT_CLEAN_TREE_WATCHING"


def _digest(path: Path) -> str:
    if path.is_symlink():
        return "link:" + str(path.readlink())
    if path.is_dir():  # a nested repository or a submodule: its own status is not ours
        return "folder"
    if not path.exists():
        return "missing"
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(root: Path) -> dict[str, tuple[str, str]] | None:
    """{path: (status, digest)} of every path ``git status --porcelain`` lists under ``root``
    (untracked files one by one), or None when ``root`` is not in a git work tree or git is
    missing (an installed copy: nothing to compare)."""
    try:
        out = subprocess.run(
            ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"],
            cwd=root, capture_output=True, check=True, timeout=120,
        ).stdout  # fmt: skip
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root,
                             capture_output=True, check=True, text=True, timeout=60).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    base = Path(top.strip())
    entries = out.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, tuple[str, str]] = {}
    k = 0
    while k < len(entries):
        entry = entries[k]
        k += 1
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:]
        if status[0] in "RC":  # a rename or copy: the next entry is where it came from
            k += 1
        found[path] = (status, _digest(base / path))
    return found


def changes(before: dict[str, tuple[str, str]], after: dict[str, tuple[str, str]]) -> list[str]:
    """One line per path whose status or content differs between the two snapshots."""

    def shown(state: tuple[str, str] | None) -> str:
        if state is None:
            return "as committed"
        status = {"??": "untracked"}.get(state[0], f"status {state[0].strip() or state[0]!r}")
        return status

    lines = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        if old is not None and new is not None and old[0] == new[0]:
            lines.append(f"{path}: content changed during the run ({shown(new)})")
        else:
            lines.append(f"{path}: {shown(old)} before the run, {shown(new)} after it")
    return lines


def report(lines: list[str]) -> str:
    """The message that fails a run that changed the tree."""
    return (
        "the test run changed the working tree (tests must write only into temporary folders, "
        "e.g. pytest's tmp_path; if you edited these files yourself during the run, run again):\n"
        + "\n".join(f"  {line}" for line in lines)
    )
