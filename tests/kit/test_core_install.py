"""The core install is enough: a fresh venv with ``pip install -e <repo>`` and no extras runs
``predict``, ``estimate`` (both modes), ``rank`` and every CLI command but ``evaluate --model
wattgpu``, through the console script, and says which extra the rest needs.

Builds the venv once per run (PyPI access, a minute or two; generous timeouts), so it is marked
``install``: it runs in ``make test``; ``pytest -m "not install"`` leaves it out. It is skipped
only when a venv cannot be created at all.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parents[1] / "fixtures"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
RANK_OFFLINE = ["rank", "--llm", LLAMA, "--scenario", "offline", "--itl-sla-ms", "50"]
# what the core must not pull in (they belong to the [train] and [lab] extras)
EXTRAS_ONLY = ("xgboost", "xgboost-cpu", "scikit-learn", "scipy", "sympy", "matplotlib", "seaborn",
               "ipywidgets", "tqdm", "jupyterlab", "voila", "pyarrow")  # fmt: skip
TIMEOUT_S = 300  # one command (a cold start on a loaded 2-core machine is seconds)

pytestmark = pytest.mark.install

_spec = importlib.util.spec_from_file_location("install_size", ROOT / "benchmarks/install_size.py")
install_size = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(install_size)


@pytest.fixture(scope="module")
def core(tmp_path_factory) -> Path:
    """The python of a fresh venv holding the kit without extras."""
    venv = tmp_path_factory.mktemp("core") / "venv"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True,
                       capture_output=True, timeout=300)  # fmt: skip
    except (OSError, subprocess.SubprocessError) as err:
        pytest.skip(f"cannot create a venv with `{sys.executable} -m venv` here: {err}")
    python = install_size.venv_python(venv)
    out = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                          "-e", str(ROOT)], capture_output=True, text=True, timeout=1800)  # fmt: skip
    assert out.returncode == 0, f"pip install -e {ROOT} failed:\n{out.stderr[-3000:]}"
    return python


def _run(python: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    script = python.parent / ("wattgpu-lite.exe" if os.name == "nt" else "wattgpu-lite")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WATTGPU_LITE_", "PYTHON"))}
    return subprocess.run([str(script), *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=TIMEOUT_S)  # fmt: skip


def test_the_core_holds_numpy_and_pandas_and_no_extra(core):
    names = {d.split("==")[0].lower() for d in install_size.distributions(core)}
    assert {"numpy", "pandas", "wattgpu_lite"} <= {n.replace("-", "_") for n in names}
    assert not names & set(EXTRAS_ONLY), sorted(names & set(EXTRAS_ONLY))


def test_the_core_venv_is_within_the_size_goal(core):
    mb = install_size.size_mb(install_size.site_packages(core))
    assert mb <= install_size.GOAL_MB, f"core venv site-packages {mb:.0f} MB"


def test_the_library_predicts_estimates_and_ranks_on_the_core(core, tmp_path):
    code = f"""
import json, sys
import wattgpu_lite as wl
p = wl.predict({LLAMA!r}, "A30", rate_qps=0.5)
phys = wl.estimate_energy({LLAMA!r}, gpu="H100 NVL", t_in=500, t_out=300)
paper = wl.estimate_energy({LLAMA!r}, gpu="H100 NVL", mode="paper")
table = wl.rank_gpus({LLAMA!r}, rate_qps=2, itl_sla_ms=30)
heavy = sorted(m for m in ("sympy", "xgboost", "sklearn", "scipy", "matplotlib") if m in sys.modules)
print(json.dumps({{"power_w": p.power_w, "phys_j": phys.total_j, "paper_j": paper.total_j,
                  "ranked": len(table), "first": str(table["gpu"].iloc[0]), "heavy": heavy}}))
"""
    out = subprocess.run([str(core), "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         timeout=TIMEOUT_S)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout)
    assert got["heavy"] == []
    assert got["power_w"] > 0 and got["phys_j"] > 0 and got["paper_j"] > 0 and got["ranked"] > 0


# every CLI command (and form) the core answers, with the kind its JSON names
COMMANDS = {
    "gpus": (["gpus"], "gpus"),
    "llms": (["llms"], "llms"),
    "llms --aliases": (["llms", "--aliases"], "llm_aliases"),
    "llms --llm": (["llms", "--llm", str(FIXTURES / "gpt2.json")], "llm_config"),
    "rank": (["rank", "--llm", LLAMA, "--rate-qps", "2", "--itl-sla-ms", "30"], "rank"),
    "rank --source measured": ([*RANK_OFFLINE, "--source", "measured"], "rank"),
    "rank --source logo": ([*RANK_OFFLINE, "--source", "logo"], "rank"),
    "estimate": (["estimate", "--gpu", "H100 NVL", "--llm", LLAMA, "--tp", "2"], "estimate"),
    "estimate --mode paper": (
        ["estimate", "--gpu", "H100 NVL", "--llm", LLAMA, "--mode", "paper"],
        "estimate",
    ),
    "predict": (["predict", "--llm", LLAMA, "--gpu", "A30", "--scenario", "offline"], "predict"),
    "evaluate --model hybrid": (
        ["evaluate", "--model", "hybrid", "--strategy", "logo"],
        "evaluate",
    ),
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_cli_command_answers_on_the_core(core, tmp_path, name):
    argv, kind = COMMANDS[name]
    out = _run(core, [*argv, "--json"], tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema_version"] == 1 and doc["kind"] == kind
    if "rows" in doc:
        assert doc["rows"], name


@pytest.mark.parametrize(
    ("argv", "extra"),
    [
        (["evaluate", "--model", "wattgpu"], "train"),
        ([*RANK_OFFLINE, "--source", "paper"], "train"),
    ],
)
def test_what_needs_an_extra_names_it_in_one_line(core, tmp_path, argv, extra):
    out = _run(core, argv, tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    (line,) = out.stderr.splitlines()
    assert line.startswith("error: ") and f"pip install 'wattgpu-lite[{extra}]'" in line


def test_a_python_name_of_an_extra_says_which_extra(core, tmp_path):
    code = ("import wattgpu_lite as wl\n"
            "for name in ('plots', 'widgets', 'symbolic', 'WattGPU'):\n"
            "    try:\n        getattr(wl, name).__name__ if name != 'WattGPU' else wl.WattGPU.pretrained()\n"
            "    except ImportError as err:\n        print(name, err)\n")  # fmt: skip
    out = subprocess.run([str(core), "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         timeout=TIMEOUT_S)  # fmt: skip
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines())
    assert set(lines) == {"plots", "widgets", "symbolic", "WattGPU"}, out.stderr
    assert "[lab] extra" in lines["plots"] and "[lab] extra" in lines["symbolic"]
    assert "pip install 'wattgpu-lite[train]'" in lines["WattGPU"]
