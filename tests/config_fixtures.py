"""The real config.json files of tests/fixtures/configs, and what a refusal's fix sounds like."""

from __future__ import annotations

import json
import re
from pathlib import Path

CONFIGS = Path(__file__).parent / "fixtures" / "configs"
#: a refusal names what to do: one of these verbs
FIX = re.compile(r"\b(pass|write|use|keep|set|check|leave|rename|fix|delete|add|drop)\b", re.I)


def config(name: str) -> dict:
    """The stored config.json of ``name`` (the Hub id with / as __)."""
    return json.loads((CONFIGS / f"{name}.json").read_text())


def refused(error: type, words: list[str], call, exact: bool = False) -> str:
    """The message of the ``error`` that ``call()`` raises (of exactly that class if ``exact``):
    one line, naming every one of ``words`` and saying what to do."""
    import pytest

    from wattgpu_lite.errors import WattGPUError

    with pytest.raises(WattGPUError if exact else error) as caught:
        call()
    message = str(caught.value)
    if exact:
        assert type(caught.value) is error, (type(caught.value).__name__, message)
    missing = [w for w in words if w not in message]
    assert not missing, f"{missing} not in: {message}"
    assert FIX.search(message), f"no fix in: {message}"
    assert "\n" not in message
    return message
