"""A test run that writes into the working tree fails, naming what it wrote (tests/clean_tree.py,
wired in by the root conftest.py): new, changed and removed paths count, ignored ones do not, and
a file already changed before the run counts only if the run changes it again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import clean_tree
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, timeout=60)


@pytest.fixture
def repo(tmp_path) -> Path:
    """A git repository with one committed file and an ignored folder; bytecode is ignored, as in
    the kit (a pytest run in it writes __pycache__/ unless the shell sets PYTHONDONTWRITEBYTECODE)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _git(tmp_path, "init", "-q")
    (tmp_path / "kept.txt").write_text("one\n")
    (tmp_path / ".gitignore").write_text("ignored/\n__pycache__/\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start")
    return tmp_path


def test_new_changed_and_removed_paths_are_named(repo):
    before = clean_tree.snapshot(repo)
    assert before == {}
    (repo / "stray.csv").write_text("x\n")
    (repo / "kept.txt").write_text("two\n")
    (repo / ".gitignore").unlink()
    assert clean_tree.changes(before, clean_tree.snapshot(repo)) == [
        ".gitignore: as committed before the run, status 'D' after it",
        "kept.txt: as committed before the run, status 'M' after it",
        "stray.csv: as committed before the run, untracked after it",
    ]


def test_an_ignored_file_does_not_count(repo):
    before = clean_tree.snapshot(repo)
    (repo / "ignored").mkdir()
    (repo / "ignored" / "figure.png").write_bytes(b"png")
    assert clean_tree.changes(before, clean_tree.snapshot(repo)) == []


def test_a_file_changed_before_the_run_counts_only_if_the_run_changes_it(repo):
    (repo / "kept.txt").write_text("edited by hand\n")
    (repo / "notes.txt").write_text("mine\n")
    before = clean_tree.snapshot(repo)
    assert clean_tree.changes(before, clean_tree.snapshot(repo)) == []
    (repo / "kept.txt").write_text("edited by a test\n")
    (repo / "notes.txt").write_text("theirs\n")
    assert clean_tree.changes(before, clean_tree.snapshot(repo)) == [
        "kept.txt: content changed during the run (status 'M')",
        "notes.txt: content changed during the run (untracked)",
    ]


def test_outside_a_git_work_tree_there_is_nothing_to_compare(tmp_path):
    assert clean_tree.snapshot(tmp_path) is None


def _pytest_in(repo: Path, body: str, *args: str) -> subprocess.CompletedProcess:
    """pytest on one test file in ``repo`` (a copy of the kit's root conftest.py and
    tests/clean_tree.py, committed), as a person starts it (not inside a watching session)."""
    (repo / "tests").mkdir()
    shutil.copy(ROOT / "conftest.py", repo / "conftest.py")
    shutil.copy(ROOT / "tests" / "clean_tree.py", repo / "tests" / "clean_tree.py")
    (repo / "test_it.py").write_text(body)
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "kit")
    env = {k: v for k, v in os.environ.items() if k != clean_tree.WATCHING}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # a quick start: xdist only, named below
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist.plugin",
           "test_it.py", *args]  # fmt: skip
    return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=300)


def test_a_run_that_writes_into_the_tree_fails_naming_the_file_on_the_controller_only(repo):
    body = (
        "from pathlib import Path\n\n"
        "def test_writes_a_stray_file():\n"
        "    Path(__file__).with_name('gpus.csv').write_text('name\\n')\n\n"
        "def test_writes_into_tmp_path(tmp_path):\n"
        "    (tmp_path / 'gpus.csv').write_text('name\\n')\n"
    )
    run = _pytest_in(repo, body, "-n", "2")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "2 passed" in run.stdout
    assert run.stdout.count("gpus.csv: as committed before the run, untracked after it") == 1


def test_a_run_that_writes_only_into_temporary_folders_passes(repo):
    body = "def test_writes_into_tmp_path(tmp_path):\n    (tmp_path / 'x.csv').write_text('1')\n"
    run = _pytest_in(repo, body)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "working tree changed" not in run.stdout
