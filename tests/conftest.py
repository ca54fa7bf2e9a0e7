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
