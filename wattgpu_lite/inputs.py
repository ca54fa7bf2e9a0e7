"""Turn what a user types into a GPU or an LLM: an object, a catalog name, a dict or a JSON file.

Used by ``WattGPU.predict`` and the CLI (``--llm NAME|config.json --gpu NAME|spec.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

from .catalog import GPU, LLM, gpu, llm
from .errors import UnknownLLMError, UnsupportedModelError
from .measurements import load


def _is_json_path(value) -> bool:
    return isinstance(value, Path) or (isinstance(value, str) and value.endswith(".json"))


def resolve_llm(value) -> LLM:
    """An LLM from an LLM, a catalog name, a config.json dict or a path to a config.json."""
    if isinstance(value, LLM):
        return value
    if isinstance(value, dict) or _is_json_path(value):
        return LLM.from_hf_config(value)
    try:
        return llm(value)
    except UnknownLLMError:
        _refuse_measured_moe(str(value))
        raise


def _refuse_measured_moe(name: str) -> None:
    """UnsupportedModelError if ``name`` is one of the MoE/Mamba models Watt Counts measured."""
    runs = load()
    sparse = {n.lower(): n for n in runs.loc[~runs["dense"], "llm"].unique()}
    full = sparse.get(name.lower()) or next(
        (n for k, n in sparse.items() if k.endswith("/" + name.lower())), None
    )
    if full:
        raise UnsupportedModelError(
            f"{full!r} is a mixture-of-experts or state-space model: WattGPU is trained and "
            "evaluated on dense models only (its features assume every parameter is used for "
            "every token). Pick a dense model from wl.llms()."
        )


def resolve_gpu(value) -> GPU:
    """A GPU from a GPU, a catalog name, a spec dict or a path to a spec JSON file."""
    if isinstance(value, GPU):
        return value
    if _is_json_path(value):
        value = json.loads(Path(value).read_text())
    return GPU.from_spec(value) if isinstance(value, dict) else gpu(value)
