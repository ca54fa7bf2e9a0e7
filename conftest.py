"""Notebook comparison: floats are rounded to 3 significant figures before nbval compares outputs;
and the lesson checks that need a live kernel run in nbval's own (tests/lesson_kernel.py), so that
`make test` executes each notebook once. And every run, of tests or of notebooks, leaves the
working tree as it found it (tests/clean_tree.py): else the run fails, naming the paths. The
longest files are collected first (:data:`LONGEST_FIRST_S`), for xdist to hand them out first.

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


# The files xdist hands out first (`--dist loadfile --no-loadscope-reorder`, the Makefile): the
# longest, so that the files left at the end are short and both workers finish together (longest
# processing time first; xdist's own order, most tests first, left one-test files of a minute and
# more for the end). Seconds of each file on one worker of `make test` (2 shared cores, 2026-12-06);
# every other file follows in collection order. A stale figure costs balance, never a test.
LONGEST_FIRST_S = {
    "tests/face/test_cli_every_option.py": 80,
    "tests/hybrid/test_calibrated_refit.py": 73,
    "notebooks/04_leave_one_out_training.ipynb": 71,
    "tests/energy/test_backbone_searches.py": 62,
    "notebooks/06_beyond_the_papers.ipynb": 56,
    "tests/kit/test_core_install.py": 47,
    "notebooks/A3_model_choices.ipynb": 46,
    "notebooks/01b_physical_model.ipynb": 43,
    "tests/energy/test_symbolic.py": 39,
    "tests/hybrid/test_hybrid_estimator.py": 39,
    "tests/kit/test_tamper.py": 35,
    "tests/energy/test_energy_validation.py": 29,
    "tests/wattgpu/test_wattgpu_teaching.py": 25,
    "tests/energy/test_scaleout.py": 24,
    "notebooks/05_choosing_a_gpu.ipynb": 22,
    "tests/kit/test_lesson_kernel.py": 21,
    "tests/energy/test_energy_codegen.py": 20,
    "notebooks/A2_other_harnesses_and_new_hardware.ipynb": 18,
    "tests/face/test_plots_wattgpu.py": 16,
    "tests/hybrid/test_calibration.py": 15,
    "tests/face/test_cli_output.py": 15,
    "notebooks/03_dataset_and_features.ipynb": 14,
    "tests/hybrid/test_bounds.py": 13,
    "tests/hybrid/test_fit_small.py": 13,
    "tests/face/test_cli_bad_input.py": 12,
    "tests/face/test_figure_labels.py": 12,
    "tests/kit/test_clean_tree.py": 11,
    "tests/selection/test_rank_asks_once.py": 11,
    "notebooks/02_traffic_breakdown.ipynb": 9,
    "tests/hybrid/test_external_intervals.py": 9,
    "notebooks/A1_moe_fp8_several_gpus.ipynb": 9,
    "notebooks/01_energy_model_derivation.ipynb": 9,
    "tests/face/test_widgets_gpu_explorer.py": 9,
    "tests/face/test_cli_never_tracebacks.py": 9,
    "tests/kit/test_nbval_gate.py": 8,
    "tests/energy/test_serving_inputs.py": 8,
    "tests/face/test_cli_equals_python.py": 8,
}


def pytest_collection_modifyitems(config, items) -> None:
    """The items of :data:`LONGEST_FIRST_S`'s files first, longest file first (a stable sort: a
    file's items stay together and in their order)."""
    root = Path(__file__).resolve().parent

    def seconds(item) -> float:
        path = Path(str(item.path)).resolve()
        if not path.is_relative_to(root):
            return 0.0
        return LONGEST_FIRST_S.get(path.relative_to(root).as_posix(), 0.0)

    items.sort(key=lambda item: -seconds(item))


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
