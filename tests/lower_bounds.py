"""Print the declared minimum versions as exact pins, for `make test-min`.

    python tests/lower_bounds.py pyproject.toml > minimum.txt

Every ``name>=X`` of the project's dependencies and of its ``train``, ``lab`` and ``test`` extras
(the dashboard test needs voila) becomes ``name==X`` (an extra naming the kit's other extras,
``wattgpu_lite[train]``, is skipped: its requirements are listed already)
(environment markers kept), so a fresh environment holds exactly the oldest versions the kit
claims to support; pytest then shows whether the claim holds.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib  # Python 3.11+: run `make test-min` with PY=python3.11 or newer

REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9_.\-\[\]]+)\s*>=\s*([0-9][^,;\s]*)\s*(;.*)?$")


def requirements(pyproject: Path) -> list[str]:
    """The dependencies and the ``train``, ``lab`` and ``test`` extras of a pyproject.toml,
    without the extras' references to the kit itself."""
    project = tomllib.loads(pyproject.read_text())["project"]
    extras = project["optional-dependencies"]
    itself = project["name"].replace("-", "_").lower()
    every = project["dependencies"] + extras["train"] + extras["lab"] + extras["test"]
    return [r for r in every if not r.replace("-", "_").lower().startswith(f"{itself}[")]


def pinned(requirement: str) -> str:
    """``"xgboost-cpu>=3.1; sys_platform == 'linux'"`` -> ``"xgboost-cpu==3.1; sys_platform ..."``."""
    match = REQUIREMENT.match(requirement)
    if match is None:
        raise SystemExit(f"lower_bounds: {requirement!r} has no `>=` lower bound to test")
    name, version, marker = match.groups()
    return f"{name}=={version}{marker or ''}"


if __name__ == "__main__":
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml")
    print("\n".join(pinned(r) for r in requirements(path)))
