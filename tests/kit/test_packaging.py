"""What ships is what was tested: the wheel's contents, licence, dependencies and version."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import wattgpu_lite as wl

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """A wheel built from this tree by pip (hatchling fetched into an isolated build env)."""
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)]
    subprocess.run(cmd, check=True, capture_output=True)
    return zipfile.ZipFile(next(out.glob("wattgpu_lite-*.whl")))


def test_the_wheel_ships_every_data_file_but_no_build_script(wheel):
    names = set(wheel.namelist())
    data = {
        p.relative_to(ROOT / "data").as_posix() for p in (ROOT / "data").rglob("*") if p.is_file()
    }
    shipped = {
        n.removeprefix("wattgpu_lite/_data/") for n in names if n.startswith("wattgpu_lite/_data/")
    }
    assert shipped == {n for n in data if not n.startswith("scripts/") and "__pycache__" not in n}
    assert not [n for n in names if n.endswith(".py") and not n.startswith("wattgpu_lite/")]
    assert not [n for n in names if "/scripts/" in n or "hatch_build" in n]


def test_the_wheel_carries_the_licences_and_the_tested_dependencies(wheel):
    meta = wheel.read(next(n for n in wheel.namelist() if n.endswith("METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in meta
    licences = [n for n in wheel.namelist() if "/licenses/" in n]
    assert any(n.endswith("/licenses/LICENSE") for n in licences)
    assert any(n.endswith("LICENSE-watt-counts.txt") for n in licences)
    for extra in ("train", "lab", "test"):  # the CPU build, in every extra that brings XGBoost
        assert (
            "Requires-Dist: xgboost-cpu>=3.1; (sys_platform == 'linux' or sys_platform == 'win32') "
            f"and extra == '{extra}'" in meta
        )
        assert (
            "Requires-Dist: xgboost>=3.1; (sys_platform != 'linux' and sys_platform != 'win32') "
            f"and extra == '{extra}'" in meta
        )


def test_the_core_requires_numpy_and_pandas_only(wheel):
    meta = wheel.read(next(n for n in wheel.namelist() if n.endswith("METADATA"))).decode()
    core = [line.removeprefix("Requires-Dist: ") for line in meta.splitlines()
            if line.startswith("Requires-Dist: ") and "extra ==" not in line]  # fmt: skip
    assert core == ["numpy>=1.24.1", "pandas>=2.2", "tomli>=1.1; python_version < '3.11'"]
    assert {line.split(": ", 1)[1] for line in meta.splitlines()
            if line.startswith("Provides-Extra: ")} == {"train", "lab", "test", "bench"}  # fmt: skip


def test_binder_pins_every_package_the_notebooks_need():
    """Binder installs ``-e .`` (the core) beside its pins: the pins must hold [train] and [lab]."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the tomli backport (a core dependency there)
        import tomli as tomllib

    pins = {line.split("==")[0].lower() for line in
            (ROOT / "binder/requirements.txt").read_text().splitlines()
            if "==" in line and not line.startswith("#")}  # fmt: skip
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    needed = {
        re.split(r"[<>=;\[ ]", r, maxsplit=1)[0].lower() for r in extras["train"] + extras["lab"]
    }
    needed -= {"wattgpu_lite", "xgboost"}  # the kit itself; Binder (Linux) takes the CPU build
    assert needed <= pins, sorted(needed - pins)


def test_the_licence_is_the_apache_license_the_metadata_names():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith(" " * 33 + "Apache License\n") and "Version 2.0, January 2004" in text
    assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text()


def test_binder_pins_the_cpu_build_and_a_notebook_that_goes_with_its_jupyterlab():
    pins = dict(
        line.split("==") for line in (ROOT / "binder/requirements.txt").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    )  # fmt: skip
    assert "xgboost" not in pins and pins["xgboost-cpu"] >= "3.1"
    lab, notebook = (tuple(map(int, pins[k].split(".")[:2])) for k in ("jupyterlab", "notebook"))
    assert notebook == (7, lab[1]), "notebook 7.N goes with jupyterlab 4.N"


def test_python_m_wattgpu_lite_version():
    out = subprocess.run([sys.executable, "-m", "wattgpu_lite", "--version"], capture_output=True,
                         text=True, cwd=ROOT, check=True).stdout  # fmt: skip
    version = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.M)[1]
    assert out.startswith(f"wattgpu_lite {version} (xgboost 3.") and wl.__version__ == version
