"""A catalog id before a same-named relative path.

The rule (wattgpu_lite/specs/resolve.py): a string that names a catalog entry is that entry, even
when the working directory holds a file or folder of the same relative path (``L4``,
``meta-llama/Llama-3.1-8B-Instruct``); an AmbiguousNameWarning names both and the explicit path
(``./L4``), which the CLI prints as one ``note:`` line on stderr. ``./NAME`` or a pathlib.Path is
the file. Before this rule a file named ``L4`` holding an RTX 5090 spec silently replaced the L4.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

import wattgpu_lite as wl
from wattgpu_lite.face.cli.main import main
from wattgpu_lite.specs.resolve import AmbiguousNameWarning

FIXTURES = Path(__file__).parents[1] / "fixtures"
LLAMA_ID = "meta-llama/Llama-3.1-8B-Instruct"
GPT2, RTX5090 = "openai-community/gpt2", "RTX 5090"  # what the same-named files hold


@pytest.fixture
def shadowed(tmp_path, monkeypatch):
    """A working directory whose files ``L4`` and ``meta-llama/Llama-3.1-8B-Instruct`` are a
    GPU spec (RTX 5090) and a config.json (GPT-2) under catalog names."""
    (tmp_path / "meta-llama").mkdir()
    shutil.copy(FIXTURES / "gpt2.json", tmp_path / LLAMA_ID)
    shutil.copy(FIXTURES / "gpu_rtx5090_spec.json", tmp_path / "L4")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A working directory with a Hub-like folder ``meta-llama/Llama-3.1-8B-Instruct/config.json``."""
    (tmp_path / LLAMA_ID).mkdir(parents=True)
    shutil.copy(FIXTURES / "gpt2.json", tmp_path / LLAMA_ID / "config.json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _messages(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, AmbiguousNameWarning)]


def _check_notes(messages: list[str], cwd: Path) -> None:
    """One note per shadowed name, naming the catalog entry, the working directory and ./NAME."""
    assert len(messages) == 2, messages
    llm_note = next(m for m in messages if "catalog LLM" in m)
    gpu_note = next(m for m in messages if "catalog GPU" in m)
    assert f"'./{LLAMA_ID}'" in llm_note and "also a file" in llm_note
    assert "'./L4'" in gpu_note and "also a file" in gpu_note
    assert all(str(cwd) in m and "is used" in m for m in messages)


def test_predict_uses_the_catalog_and_says_so(shadowed):
    with pytest.warns(AmbiguousNameWarning) as record:
        p = wl.predict(LLAMA_ID, "L4", rate_qps=0.5)
    assert (p.inputs.llm, p.inputs.gpu) == (LLAMA_ID, "L4")
    _check_notes(_messages(record), shadowed)


def test_estimate_energy_uses_the_catalog_and_says_so(shadowed):
    with pytest.warns(AmbiguousNameWarning) as record:
        est = wl.estimate_energy(LLAMA_ID, "L4")
    assert (est.llm, est.gpu) == (LLAMA_ID, "L4")
    _check_notes(_messages(record), shadowed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AmbiguousNameWarning)  # the same call, no files: no note
        shutil.rmtree(shadowed / "meta-llama")
        (shadowed / "L4").unlink()
        assert wl.estimate_energy(LLAMA_ID, "L4").total_j == pytest.approx(est.total_j)


@pytest.mark.parametrize("as_path", [lambda s: f"./{s}", Path], ids=["./NAME", "pathlib.Path"])
def test_an_explicit_path_is_the_file(shadowed, as_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", AmbiguousNameWarning)
        est = wl.estimate_energy(as_path(LLAMA_ID), as_path("L4"))
        p = wl.predict(as_path(LLAMA_ID), as_path("L4"), rate_qps=0.5)
    assert (est.llm, est.gpu) == (GPT2, RTX5090)
    assert (p.inputs.llm, p.inputs.gpu) == (GPT2, RTX5090)


def test_a_same_named_folder_is_noted_with_its_config_json(folder):
    with pytest.warns(AmbiguousNameWarning, match="also a folder") as record:
        est = wl.estimate_energy(LLAMA_ID, "L4")
    assert est.llm == LLAMA_ID
    assert f"'./{LLAMA_ID}/config.json'" in _messages(record)[0]
    assert wl.estimate_energy(f"./{LLAMA_ID}/config.json", "L4").llm == GPT2


def test_predict_many_uses_the_catalog(shadowed):
    import pandas as pd

    with pytest.warns(AmbiguousNameWarning):
        out = wl.predict_many(pd.DataFrame({"llm": [LLAMA_ID], "gpu": ["L4"], "rate_qps": [0.5]}))
    assert list(out["status"]) == ["ok"]
    # the catalog L4 draws tens of watts; the RTX 5090 spec in the file would be a 575 W card
    assert float(out["power_w"].iloc[0]) < 150


@pytest.mark.parametrize("command", ["estimate", "predict", "explain"])
def test_cli_uses_the_catalog_with_a_note(shadowed, capsys, command):
    load = [] if command == "estimate" else ["--rate-qps", "0.5"]
    assert main([command, "--llm", LLAMA_ID, "--gpu", "L4", *load, "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    inputs = {
        "estimate": doc,
        "predict": doc.get("inputs"),
        "explain": (doc.get("prediction") or {}).get("inputs"),
    }[command]
    names = (inputs["llm"], inputs["gpu"])
    assert names == (LLAMA_ID, "L4")
    notes = [ln.removeprefix("note: ") for ln in err.splitlines() if ln.startswith("note: ")]
    _check_notes(notes, shadowed)


def test_cli_explicit_path_reads_the_file_without_a_note(shadowed, capsys):
    assert main(["estimate", "--llm", f"./{LLAMA_ID}", "--gpu", "./L4", "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert (doc["llm"], doc["gpu"]) == (GPT2, RTX5090)
    assert "note:" not in err


def test_cli_note_survives_quiet(shadowed, capsys):
    assert main(["estimate", "--llm", LLAMA_ID, "--gpu", "L4", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err.count("note: ") == 2
