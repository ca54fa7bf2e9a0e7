"""The README's errors table matches the code: every row names a real exception, and a test triggers it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import wattgpu_lite as wl
from wattgpu_lite import errors

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def readme_error_names() -> list[str]:
    section = ROOT.joinpath("README.md").read_text().split("## Errors you may see")[1]
    return re.findall(r"^\| `(\w+Error)` \|", section.split("\n## ")[0], flags=re.MULTILINE)


def _corrupted_runs(tmp_path: Path) -> None:
    copy = tmp_path / "runs.csv"
    shutil.copy(wl.measurements.DATA_PATH, copy)
    copy.write_text(copy.read_text().replace("163.365", "163.366", 1))
    wl.measurements(path=copy, sha256=wl.measurements.DATA_SHA256)


def _without_xgboost(tmp_path: Path) -> None:
    import sys

    saved = sys.modules.get("xgboost")
    sys.modules["xgboost"] = None  # what a core install (no [train] extra) looks like to an import
    try:
        wl.WattGPU().fit(wl.measurements())
    finally:
        if saved is None:
            del sys.modules["xgboost"]
        else:
            sys.modules["xgboost"] = saved


TRIGGERS = {
    "UnknownGPUError": lambda tmp: wl.gpu("H100 NLV"),
    "UnknownLLMError": lambda tmp: wl.llm("llama-9"),
    "UnsupportedModelError": lambda tmp: wl.LLM.from_hf_config(FIXTURES / "mamba.json"),
    "ConfigError": lambda tmp: wl.LLM.from_hf_config(
        {"model_type": "llama", "num_hidden_layers": 2}
    ),
    "SpecError": lambda tmp: wl.GPU.from_spec(
        {
            "name": "x",
            "release_year": 2024,
            "memory_gb": 48,
            "memory_type": "HBM3",
            "bandwidth_gbs": 2000,
            "tdp_w": -1,
            "fp16_tflops": 400,
        }
    ),  # fmt: skip
    "InvalidInputError": lambda tmp: wl.estimate_energy(
        "meta-llama/Llama-3.1-8B-Instruct", "H100 NVL", t_in=0
    ),
    "DataFileError": _corrupted_runs,
    "CapacityError": lambda tmp: wl.predict("meta-llama/Llama-3.1-8B-Instruct", "L4", rate_qps=1e3),
    "MissingExtraError": _without_xgboost,
    "NoFeasibleGPUError": lambda tmp: wl.rank_gpus(
        "meta-llama/Llama-3.3-70B-Instruct",
        scenario="server_low",
        itl_sla_ms=50,
        candidates=["T4", "L4"],
        gpu_counts=(1,),
    ),
}
# what each message must name: (the field, name or file at fault; words of the fix)
NAMES_AND_FIXES = {
    "UnknownGPUError": ("'H100 NLV'", "Close matches: 'H100 NVL'", "GPU.from_spec"),
    "UnknownLLMError": ("'llama-9'", "Close matches:", "from_hf_config"),
    "UnsupportedModelError": ("model_type 'mamba'", "KV cache", "Use a decoder LLM"),
    "CapacityError": ("capacity is about", "req/s", "Pass a lower rate_qps"),
    "ConfigError": ("lacks", "num_attention_heads", "Add one of these keys"),
    "SpecError": ("'tdp_w'", "from 10 to 5000", "as its spec sheet has it"),
    "InvalidInputError": ("t_in", "whole number", "e.g. t_in=500"),
    "DataFileError": ("runs.csv", "checksum mismatch", "git checkout data/"),
    "NoFeasibleGPUError": ("T4:", "L4:", "Try GPUs with more memory"),
    "MissingExtraError": (
        "[train] extra",
        "xgboost is not installed",
        "pip install 'wattgpu-lite[train]'",
    ),
}


def test_table_lists_every_user_facing_exception():
    documented = set(readme_error_names())
    defined = {n for n, c in vars(errors).items() if isinstance(c, type) and n.endswith("Error")}
    assert documented == defined - {"WattGPUError", "UnknownNameError"}
    assert documented == set(TRIGGERS)


@pytest.mark.parametrize("name", readme_error_names())
def test_each_documented_error_is_raised_by_its_trigger(name, tmp_path):
    with pytest.raises(getattr(errors, name)) as info:
        TRIGGERS[name](tmp_path)
    assert type(info.value).__name__ == name
    message = str(info.value)
    assert "\n" not in message.strip(), "one line, as the CLI prints it"
    missing = [w for w in NAMES_AND_FIXES[name] if w not in message]
    assert not missing, f"{name} message lacks {missing}: {message}"
