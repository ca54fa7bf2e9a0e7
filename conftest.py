"""Notebook comparison: floats are rounded to 3 significant figures before nbval compares outputs;
and the lesson checks that need a live kernel run in nbval's own (tests/lesson_kernel.py), so that
`make test` executes each notebook once. And every run, of tests or of notebooks, leaves the
working tree as it found it (tests/clean_tree.py): else the run fails, naming the paths.

nbval's sanitizer file (tests/nbval_sanitize.cfg) takes plain regex → text replacements, which can mask
a number but not round it. We add one more pattern whose replacement is a function, so a stored
``0.012345`` and a fresh ``0.0123449`` compare equal while a changed third figure fails the build.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import pytest

FLOAT_PATTERN = (
    r"(?<![\w.])-?\d+\.\d+(?:[eE][-+]?\d+)?(?![\w.])|(?<![\w.])-?\d+[eE][-+]?\d+(?![\w.])"
)
SIGNIFICANT_FIGURES = 3


def round_float_text(match: re.Match[str]) -> str:
    """The matched float written with 3 significant figures (``1234.5`` -> ``1.23e+03``)."""
    return f"{float(match.group(0)):.{SIGNIFICANT_FIGURES}g}"


def _student_edition(path: Path) -> bool:
    """The notebook is a student edition (``make student``: wattgpu_lite.face.student)."""
    metadata = json.loads(path.read_text()).get("metadata", {})
    return metadata.get("wattgpu_lite", {}).get("edition") == "student"


def pytest_collectstart(collector) -> None:
    """Give every notebook collector the rounding pattern after its file patterns, a figure
    recorder in its kernel before the first cell, and the lesson checks after the last."""
    if not str(getattr(collector, "path", "")).endswith(".ipynb"):
        return
    sys.path.insert(0, str(Path(__file__).parent / "tests"))
    import lesson_kernel

    original, setup, collect = collector.setup_sanitize_files, collector.setup, collector.collect

    def setup_with_rounding() -> None:
        original()
        collector.sanitize_patterns[FLOAT_PATTERN] = round_float_text

    def setup_with_recorder() -> None:
        setup()
        lesson_kernel.run_in(collector.kernel, lesson_kernel.RECORDER)

    def collect_with_lesson():
        yield from collect()
        if not _student_edition(Path(str(collector.path))):  # its "Try this" solutions are gone
            yield lesson_kernel.LessonItem.from_parent(collector, name="lesson checks")

    collector.setup_sanitize_files = setup_with_rounding
    collector.setup, collector.collect = setup_with_recorder, collect_with_lesson


def _clean_tree():
    """tests/clean_tree.py, loaded by path (the tests folder is not on the path yet)."""
    spec = importlib.util.spec_from_file_location(
        "clean_tree", Path(__file__).parent / "tests" / "clean_tree.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _watches(config) -> bool:
    """Only the session a person started watches the tree: not an xdist worker, not a pytest
    started inside a test (it inherits the watching session's environment variable)."""
    return not hasattr(config, "workerinput") and not os.environ.get(_clean_tree().WATCHING)


def pytest_configure(config) -> None:
    """Record what ``git status`` shows before anything runs."""
    if _watches(config):
        tree = _clean_tree()
        config._clean_tree = (tree, tree.snapshot(Path(__file__).parent))
        os.environ[tree.WATCHING] = "1"


def pytest_sessionfinish(session, exitstatus) -> None:
    """Fail the run when ``git status`` shows something else than when it started."""
    tree, before = getattr(session.config, "_clean_tree", (None, None))
    if before is None:
        return
    after = tree.snapshot(Path(__file__).parent)
    lines = tree.changes(before, after) if after is not None else []
    if lines:
        session.config._clean_tree_report = tree.report(lines)
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter) -> None:
    report = getattr(terminalreporter.config, "_clean_tree_report", None)
    if report:
        terminalreporter.section("working tree changed", sep="=", red=True, bold=True)
        terminalreporter.line(report, red=True)
