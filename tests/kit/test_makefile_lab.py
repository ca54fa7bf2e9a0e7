"""``make lab`` roots JupyterLab at the repository, as Binder does, and opens notebook 00: without
``--ServerApp.root_dir`` Jupyter roots at the notebook's folder and hides data/ and wattgpu_lite/."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START = "notebooks/00_start_here.ipynb"


def _lab_recipe() -> list[str]:
    """The recipe lines of the Makefile's ``lab`` target."""
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    start = lines.index("lab: $(LAB_STAMP)") + 1
    recipe = []
    for line in lines[start:]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_lab_recipe_roots_at_the_repository_and_opens_notebook_00():
    (command,) = _lab_recipe()
    words = shlex.split(command.replace("$$(", "$(").replace("$(BIN)", ".venv/bin"))
    assert words[:2] == [".venv/bin/jupyter", "lab"]
    assert "--ServerApp.root_dir=." in words and words[-1] == START
    assert (ROOT / START).is_file()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_n_lab_runs_jupyter_from_the_repository_root():
    # run as a top-level make even when the tests themselves run under `make test`
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    out = subprocess.run(["make", "--no-print-directory", "-n", "lab"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout.splitlines()  # fmt: skip
    (line,) = [x for x in out if "jupyter lab" in x]
    assert line.endswith(f"--ServerApp.root_dir=. {START}")
