"""Size of the core install: a fresh venv with ``pip install <repo>`` and no extras (issue 21).

    .venv/bin/python benchmarks/install_size.py              # builds a venv in a temporary folder
    .venv/bin/python benchmarks/install_size.py --venv DIR   # measures an existing venv instead

Prints the MB of the venv's site-packages (what the install added, pip's own files included) and
the distributions in it. Goal: <= 200 MB (numpy and pandas; the full kit with every extra is about
675 MB). tests/kit/test_core_install.py builds the same venv and holds the goal.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_MB = 200.0
# pip itself comes with every venv (python -m venv): counted in the size, listed apart
TOOLS = frozenset({"pip", "setuptools", "wheel"})


def venv_python(venv: Path) -> Path:
    """The interpreter of a venv (POSIX or Windows layout)."""
    posix = venv / "bin" / "python"
    return posix if posix.exists() else venv / "Scripts" / "python.exe"


def make_core_venv(venv: Path, editable: bool = False, timeout_s: float = 1800) -> Path:
    """A fresh venv at ``venv`` with the kit installed without extras; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True,
                   timeout=300)  # fmt: skip
    python = venv_python(venv)
    target = ["-e", str(ROOT)] if editable else [str(ROOT)]
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    *target], check=True, capture_output=True, text=True, timeout=timeout_s)  # fmt: skip
    return python


def site_packages(python: Path) -> Path:
    """The purelib folder of the venv ``python`` belongs to."""
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


def size_mb(folder: Path) -> float:
    """MB (10^6 bytes) of every file under ``folder`` (symlinks not followed)."""
    total = sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return total / 1e6


def distributions(python: Path) -> list[str]:
    """``name==version`` of every distribution in the venv, pip's tools excluded."""
    out = subprocess.run([str(python), "-m", "pip", "list", "--format=json",
                          "--disable-pip-version-check"], check=True, capture_output=True,
                         text=True)  # fmt: skip
    rows = json.loads(out.stdout)
    return sorted(f"{r['name']}=={r['version']}" for r in rows if r["name"].lower() not in TOOLS)


def report(python: Path) -> None:
    mb = size_mb(site_packages(python))
    dists = distributions(python)
    print(f"core venv site-packages (MB): {mb:.0f}")
    print(f"goal (MB): <= {GOAL_MB:.0f} ({'met' if mb <= GOAL_MB else 'MISSED'})")
    print(f"distributions (without pip): {len(dists)}")
    print(f"installed: {', '.join(dists)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--venv", type=Path, help="measure this existing venv instead of building one"
    )
    args = parser.parse_args()
    if args.venv is not None:
        report(venv_python(args.venv))
        return
    with tempfile.TemporaryDirectory(prefix="wattgpu-core-") as tmp:
        report(make_core_venv(Path(tmp) / "venv"))


if __name__ == "__main__":
    main()
