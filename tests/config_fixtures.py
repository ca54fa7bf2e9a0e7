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
