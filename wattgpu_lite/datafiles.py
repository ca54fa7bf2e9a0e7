"""Where the kit's data files live: ``wattgpu_lite/_data`` in an installed wheel, else ``data/``.

Every module that reads a shipped table asks :func:`data_dir`, so a wheel and a source checkout
behave the same.
"""

from __future__ import annotations

from pathlib import Path


def data_dir() -> Path:
    """wattgpu_lite/_data in an installed wheel, else data/ of the source tree."""
    packaged = Path(__file__).parent / "_data"
    return packaged if packaged.is_dir() else Path(__file__).parents[1] / "data"
