"""``--plot FILE.png``: a command's figure saved with matplotlib's Agg backend (no display needed).

The flag is checked before any model loads (a ``.png`` path in a folder that exists, matplotlib
installed); a missing matplotlib is one line naming the extra that brings it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from wattgpu_lite.errors import InvalidInputError

NEEDS = "--plot needs matplotlib: pip install 'wattgpu-lite[lab]' (or pip install matplotlib)"


def add_plot_flag(parser: argparse.ArgumentParser, what: str) -> None:
    """Register ``--plot FILE.png``."""
    parser.add_argument(
        "--plot", metavar="FILE.png", help=f"also save {what} as a PNG figure (needs matplotlib)"
    )


def has_matplotlib() -> bool:
    """Whether matplotlib imports (only asked when ``--plot`` is given)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def check_plot(path: str) -> None:
    """Refuse a ``--plot`` the CLI cannot write, before any model loads."""
    target = Path(path)
    if target.suffix.lower() != ".png":
        raise InvalidInputError(f"--plot {path!r}: give a .png file name")
    if not target.parent.is_dir():
        raise InvalidInputError(f"--plot {path!r}: folder {str(target.parent)!r} does not exist")
    if not has_matplotlib():
        raise InvalidInputError(NEEDS)


def save_plot(draw: Callable[[], object], path: str) -> None:
    """Draw the figure (``draw()`` returns a matplotlib Figure) on the Agg backend, save it to
    ``path`` and close it."""
    check_plot(path)
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    fig = draw()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
