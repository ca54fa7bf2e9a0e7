"""Verified at load time: a changed shipped file, a damaged model or an old xgboost is a
DataFileError naming the file and the fix, never a silently different prediction.

The data folder is copied to tmp and selected with $WATTGPU_LITE_DATA; each tampered copy is
loaded in a fresh interpreter (the kit caches its tables), which must refuse it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from fresh_load import load_in_fresh_interpreter

import wattgpu_lite as wl
from wattgpu_lite import datafiles as D
from wattgpu_lite.errors import DataFileError
from wattgpu_lite.wattgpu import regressor

ROOT = Path(__file__).resolve().parents[2]
LOADERS = {
    "gpu": "wl.gpu('T4')",
    "llm": "wl.llm('01-ai/Yi-1.5-6B-Chat')",
    "energy": "wl.estimate_energy('meta-llama/Llama-2-7b-hf', 'H100 NVL', mode='physical')",
    "wattgpu": "wl.WattGPU.pretrained().predict('meta-llama/Llama-3.1-8B-Instruct', 'L4', 'offline')",
    "hybrid": "wl.HybridState.pretrained()",
}


def _copy_data(tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(ROOT / "data", copy, ignore=shutil.ignore_patterns("scripts", "__pycache__"))
    return copy


def _load(data: Path, loader: str) -> str:
    """What a fresh interpreter on ``data`` says: LOADED, or the DataFileError's message."""
    return load_in_fresh_interpreter(data, LOADERS[loader])


def _replace(old: str, new: str):
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return edit


def _json_edit(change):
    def edit(text: str) -> str:
        state = json.loads(text)
        change(state)
        return json.dumps(state)

    return edit


def _leaf(state: dict) -> None:
    tree = state["learner"]["gradient_booster"]["model"]["trees"][0]
    leaf = tree["left_children"].index(-1)
    tree["base_weights"][leaf] *= 1.01


def _calibration(state: dict) -> None:
    row = state["tables"]["new gpu"]["power"]["server"]
    row["0.8"] *= 0.5


TAMPERS = [
    ("gpus.csv", _replace(",70.0,65.0,", ",75.0,65.0,"), "gpu"),  # T4 TDP
    ("gpus.csv", _replace("GDDR6,300.1,", "GDDR6,330.1,"), "gpu"),  # L4 bandwidth
    ("llms.csv", _replace("Yi-1.5-6B-Chat,llama,32,", "Yi-1.5-6B-Chat,llama,30,"), "llm"),
    ("energy_coefficients.csv", _replace("flops_per_param_token,physical,2,", "flops_per_param_token,physical,2.2,"), "energy"),
    ("models/wattgpu/power.json", _json_edit(_leaf), "wattgpu"),
    ("models/wattgpu/preprocessing.json", _replace('"xgboost_min_version": "3.1.0"', '"xgboost_min_version": "2.0.0"'), "wattgpu"),
    ("models/wattgpu_hybrid/state.json", _json_edit(_calibration), "hybrid"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "edit", "loader"), TAMPERS, ids=[f"{t[0]}-{t[2]}" for t in TAMPERS]
)
def test_a_tampered_shipped_file_is_refused_by_name(tmp_path, name, edit, loader):
    data = _copy_data(tmp_path)
    assert _load(data, loader) == "LOADED"  # the untouched copy loads
    path = data / name
    path.write_text(edit(path.read_text()))
    out = _load(data, loader)
    assert out.startswith(f"DataFileError: {name}: checksum mismatch"), out
    assert f"copy {name} again" in out and D.ENV_DATA in out


def test_an_emptied_catalog_with_a_matching_manifest_line_is_refused_by_the_pin(tmp_path):
    data = _copy_data(tmp_path)
    (data / "gpus.csv").write_text("")
    lines = (data / D.MANIFEST).read_text().splitlines()
    empty = hashlib.sha256(b"").hexdigest()
    (data / D.MANIFEST).write_text(
        "".join(f"{empty}  gpus.csv\n" if ln.endswith("  gpus.csv") else ln + "\n" for ln in lines)
    )
    out = _load(data, "gpu")  # the manifest's own sha256 is pinned in datafiles.py
    assert (
        out.startswith("DataFileError: MANIFEST.sha256 in")
        and "this version of the kit pins" in out
    )


def test_a_file_changed_after_the_first_check_is_still_caught(tmp_path, monkeypatch):
    data = _copy_data(tmp_path)
    monkeypatch.setenv(D.ENV_DATA, str(data))
    assert D.verify_folder(data) > 20 and len(D.read_csv(data / "llms.csv")) > 40
    path = data / "llms.csv"
    path.write_text(path.read_text().replace(",llama,32,", ",llama,31,", 1))
    with pytest.raises(DataFileError, match="llms.csv: checksum mismatch"):
        D.read_csv(path)


def _model_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(ROOT / "data/models/wattgpu", folder)
    return folder


@pytest.mark.parametrize(
    ("name", "edit", "words"),
    [("power.json", lambda t: t[: len(t) // 2], "model file .*power.json: cannot be loaded"),
     ("power.json", lambda t: "{}", "model file .*power.json: cannot be loaded"),
     ("itl.json", lambda t: "[1, 2]", "model file .*itl.json: cannot be loaded"),
     ("preprocessing.json", lambda t: t.replace('"targets"', '"target"'), "preprocessing.json: lacks"),
     ("preprocessing.json", lambda t: t.replace('"means"', '"mean"'), "power.json: cannot be loaded"),
     ("preprocessing.json", lambda t: t.replace('"xgboost_version": "3.2.0",', ""), "records no xgboost_version"),
     ("preprocessing.json", lambda t: "", "model state .*not valid JSON")],
)  # fmt: skip
def test_a_damaged_model_of_ones_own_is_a_data_file_error_naming_it(tmp_path, name, edit, words):
    folder = _model_copy(tmp_path)
    (folder / name).write_text(edit((folder / name).read_text()))
    with pytest.raises(DataFileError, match=words):
        wl.WattGPU.load(folder)


def test_an_old_xgboost_is_refused_with_the_upgrade(tmp_path, monkeypatch):
    monkeypatch.setattr(regressor.xgb(), "__version__", "3.0.5")
    with pytest.raises(
        DataFileError,
        match=r"built with xgboost 3\.2\.0; xgboost 3\.0\.5 is installed.*pip install 'xgboost>=3\.1\.0'",
    ):
        wl.WattGPU.load(_model_copy(tmp_path))
    monkeypatch.setattr(regressor.xgb(), "__version__", "3.1.0")
    assert wl.WattGPU.load(ROOT / "data/models/wattgpu").models.keys() == {"power", "itl"}


def test_a_saved_model_records_the_xgboost_it_was_built_with(tmp_path):
    state = json.loads((wl.WattGPU.pretrained().save(tmp_path) / "preprocessing.json").read_text())
    assert state["xgboost_version"] == regressor.xgb().__version__
    assert state["xgboost_min_version"] == regressor.XGBOOST_MIN == "3.1.0"
