"""Bring your own config, named: ``name=`` / ``--name``; a Hub id read from
``_name_or_path`` only when it is one; a memory refusal names the GPU count that fits, by the
kit's own memory rule (Mixtral 8x7B on one H100 SXM: "try --num-gpus 2")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy.occupancy import kv_capacity_seqs
from wattgpu_lite.energy.request import fewest_gpus_that_fit
from wattgpu_lite.errors import CapacityError, InvalidInputError
from wattgpu_lite.face.cli.main import main
from wattgpu_lite.specs.llm_config import is_hub_id
from wattgpu_lite.specs.resolve import resolve_llm

FIXTURES = Path(__file__).parents[1] / "fixtures"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
MIXTRAL = "mistralai/Mixtral-8x7B-v0.1"


@pytest.mark.parametrize("text", ["meta-llama/Llama-3.1-8B", "mistralai/Mixtral-8x7B-v0.1",
                                  "Qwen/Qwen3-30B-A3B"])  # fmt: skip
def test_a_hub_id_reads_as_one(text):
    assert is_hub_id(text)


@pytest.mark.parametrize("text", ["/home/me/runs/llama", "./out", "../ckpt/model", "~/models/x",
                                  "C:\\models\\x", "runs/checkpoint-500", "me/step1000",
                                  "a/b/c", "llama", "owner/", "/owner/name"])  # fmt: skip
def test_a_path_or_a_checkpoint_is_no_hub_id(text):
    assert not is_hub_id(text)


def _config(**name) -> dict:
    cfg = json.loads((FIXTURES / "mixtral_moe.json").read_text())
    cfg.pop("_name_or_path")
    return cfg | name


def test_a_config_is_named_by_its_hub_id_only_when_it_is_one():
    assert resolve_llm(_config(_name_or_path="example/tiny-moe")).name == "example/tiny-moe"
    leaked = _config(_name_or_path="/scratch/me/runs/checkpoint-1200")
    assert resolve_llm(leaked).name == "custom model"
    assert resolve_llm(_config()).name == "custom model"


def test_name_names_a_model_you_bring_in_python_and_on_the_command_line(tmp_path, capsys):
    leaked = _config(_name_or_path="/scratch/me/runs/checkpoint-1200")
    est = wl.estimate_energy(leaked, "H100 SXM", name="my-moe")
    assert est.llm == "my-moe"
    path = tmp_path / "config.json"
    path.write_text(json.dumps(leaked))
    p = wl.predict(str(path), "H100 SXM", rate_qps=0.1, name="my-moe")
    assert p.inputs.llm == "my-moe"
    argv = ["predict", "--llm", str(path), "--gpu", "H100 SXM", "--rate-qps", "0.1", "--name",
            "my-moe", "--json"]  # fmt: skip
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(p.to_json())
    assert main(["llms", "--llm", str(path), "--name", "my-moe", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "my-moe"


def test_a_catalog_model_keeps_its_name():
    with pytest.raises(InvalidInputError, match="catalog model"):
        wl.predict(LLAMA, "A30", rate_qps=0.1, name="mine")
    with pytest.raises(InvalidInputError, match="catalog model"):
        resolve_llm(wl.llm(LLAMA), "mine")


def test_mixtral_on_one_h100_is_told_the_count_that_fits_and_that_count_answers(capsys):
    model, gpu = wl.llm(MIXTRAL), wl.gpu("H100 SXM")
    t_in, t_out = 15, 180
    # the kit's memory rule: not one sequence beside the weights on one GPU, one on two
    assert kv_capacity_seqs(model, gpu, t_in, t_out, num_gpus=1, weights=model.weight_format) < 1
    assert fewest_gpus_that_fit(model, gpu, model.weight_format, t_in, t_out=t_out) == 2
    with pytest.raises(CapacityError, match=r"try num_gpus=2 .*or pick a GPU with more memory"):
        wl.predict(MIXTRAL, "H100 SXM", rate_qps=0.5)
    assert wl.predict(MIXTRAL, "H100 SXM", rate_qps=0.5, num_gpus=2).power_w > 0
    assert main(["predict", "--llm", MIXTRAL, "--gpu", "H100 SXM", "--rate-qps", "0.5"]) == 2
    assert "try --num-gpus 2" in capsys.readouterr().err


def test_no_count_is_suggested_when_none_fits():
    big, small = wl.llm("mistralai/Mixtral-8x22B-v0.1"), wl.gpu("T4")
    n = fewest_gpus_that_fit(big, small, big.weight_format, 15, t_out=180)
    assert (
        n is None
        or kv_capacity_seqs(big, small, 15, 180, num_gpus=n, weights=big.weight_format) >= 1
    )
