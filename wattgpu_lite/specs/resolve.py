"""Turn what a user types into a GPU or an LLM: an object, a catalog name, a dict or a JSON file.

Used by ``WattGPU.predict`` and the CLI (``--llm NAME|config.json --gpu NAME|spec.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

from wattgpu_lite.specs.catalog import GPU, LLM, gpu, llm


def _is_json_path(value) -> bool:
    return isinstance(value, Path) or (isinstance(value, str) and value.endswith(".json"))


def resolve_llm(value) -> LLM:
    """An LLM from an LLM, a catalog name, a config.json dict or a path to a config.json."""
    if isinstance(value, LLM):
        return value
    if isinstance(value, dict) or _is_json_path(value):
        return LLM.from_hf_config(value)
    return llm(value)


def resolve_gpu(value) -> GPU:
    """A GPU from a GPU, a catalog name, a spec dict or a path to a spec JSON file."""
    if isinstance(value, GPU):
        return value
    if _is_json_path(value):
        value = json.loads(Path(value).read_text())
    return GPU.from_spec(value) if isinstance(value, dict) else gpu(value)
