"""Test-wide settings: every hypothesis test is derandomized (the same examples on every run, so a
failure is reproducible and a pass means the same thing each time), with no deadline (2 shared
cores) and no example database. The shared helpers (lessons, fresh_load, ...) sit beside the
chapter folders, so this folder is put on the import path (after everything else)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.append(str(Path(__file__).resolve().parent))

settings.register_profile("kit", derandomize=True, deadline=None, database=None)
settings.load_profile("kit")


@pytest.fixture(autouse=True)
def _no_defaults_from_the_shell(monkeypatch):
    """The CLI reads WATTGPU_LITE_* variables (face/cli/defaults.py): tests never see the
    developer's."""
    for name in [n for n in os.environ if n.startswith("WATTGPU_LITE_")]:
        monkeypatch.delenv(name)


# The modules `make test-fast` leaves out (marked ``slow``): each takes seconds on 2 cores, and
# together about four fifths of pytest's time (``pytest --durations=0``, 2026-12-03). `make test`
# runs them all; `make test-fast` (``-m "not slow and not install"``) runs the other ~2,900 tests.
SLOW_MODULES = {
    "energy/test_symbolic.py": "sympy derivations re-derived",
    "energy/test_energy_validation.py": "the LOGO validation of physical mode, refitted per fold",
    "energy/test_backbone_searches.py": "the whole catalog against a fine grid",
    "energy/test_energy_codegen.py": "sympy code generation compared with the shipped files",
    "face/test_cli_every_option.py": "every CLI option end to end",
    "face/test_cli_output.py": "every command's output files",
    "face/test_dashboard_browser.py": "the dashboard in Chromium",
    "face/test_plots_wattgpu.py": "WattGPU figures drawn",
    "face/test_figure_labels.py": "every figure drawn",
    "face/test_widgets_gpu_explorer.py": "the dashboard's widgets driven",
    "face/test_cli_never_tracebacks.py": "75 CLI runs with bad input",
    "face/test_cli_bad_input.py": "69 CLI runs with bad input",
    "hybrid/test_bounds.py": "bounds over the catalog",
    "hybrid/test_fit_small.py": "the backbone fitted on all the runs",
    "hybrid/test_calibrated_refit.py": "one leave-one-source-out fold refitted",
    "kit/test_core_install.py": "a fresh venv from PyPI",
    "kit/test_nbval_gate.py": "notebook kernels started",
    "kit/test_lesson_kernel.py": "notebook kernels started",
    "kit/test_tamper.py": "the kit imported in fresh processes on tampered data",
    "selection/test_rank_asks_once.py": "rankings over the catalog",
    "wattgpu/test_wattgpu_teaching.py": "XGBoost models refitted",
    "wattgpu/test_evaluation.py": "XGBoost cross-validation",
}


def pytest_collection_modifyitems(config, items) -> None:
    """Mark every test of :data:`SLOW_MODULES` ``slow``."""
    here = Path(__file__).resolve().parent
    for item in items:
        path = Path(str(item.path)).resolve()
        if path.is_relative_to(here) and path.relative_to(here).as_posix() in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
