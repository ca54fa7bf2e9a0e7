"""LLM.from_hf_config(path, name=...) takes the name wl.predict takes (1 to 200 printable
characters): name=5 made a model named '5', name='' the default 'custom model', name='  ' a
blank name."""

from __future__ import annotations

from pathlib import Path

import pytest

import wattgpu_lite as wl
from wattgpu_lite.errors import InvalidInputError

CONFIG = (
    Path(__file__).resolve().parents[1] / "fixtures" / "configs" / "meta-llama__Llama-3.1-8B.json"
)


@pytest.mark.parametrize("name", [5, "", "  ", "x" * 201, "tab\there"])
def test_a_name_that_is_no_name_is_refused(name):
    with pytest.raises(InvalidInputError, match=r"name must be a name of 1 to 200 printable"):
        wl.LLM.from_hf_config(CONFIG, name=name)


def test_a_name_is_kept_without_its_spaces():
    assert wl.LLM.from_hf_config(CONFIG, name=" my/finetune ").name == "my/finetune"
    assert wl.LLM.from_hf_config(CONFIG).name == "custom model"  # the config names no Hub id
