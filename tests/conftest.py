"""Test-wide settings: every hypothesis test is derandomized (the same examples on every run, so a
failure is reproducible and a pass means the same thing each time), with no deadline (2 shared
cores) and no example database."""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("kit", derandomize=True, deadline=None, database=None)
settings.load_profile("kit")
