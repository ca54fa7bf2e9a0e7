"""A value as a file path, without an error: strings that cannot be a path are never a path.

:func:`as_path` never asks the file system about a string that cannot name a file (a NUL byte, a
part longer than 255 bytes, a whole longer than 4096); :func:`is_file` asks it once and answers
False, never an error, for a path the OS refuses.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

NAME_MAX, PATH_MAX = 255, 4096  # bytes: POSIX limits of one path part and of a whole path


def as_path(value: Any) -> Path | None:
    """``value`` as a Path if it can name a file (str or PathLike, no NUL, parts <= 255 bytes,
    whole <= 4096 bytes), else None. Never touches the file system."""
    try:
        raw = os.fsencode(value) if isinstance(value, str | os.PathLike) else b""
    except (TypeError, ValueError):
        raw = b""
    short = raw and len(raw) <= PATH_MAX and max(map(len, raw.split(b"/"))) <= NAME_MAX
    return Path(os.fsdecode(raw)) if short and b"\0" not in raw else None


def is_file(value: Any) -> bool:
    """True if ``value`` names an existing regular file; False (never an error) otherwise."""
    path = as_path(value)
    try:
        return path is not None and path.is_file()
    except (OSError, ValueError):
        return False
