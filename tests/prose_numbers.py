"""After a re-run, the prose numbers that no longer match an output, each with the sentence it sits
in and the nearest output numbers: the list to fix by hand, in one pass.

    python tests/prose_numbers.py notebooks/*.ipynb

(The same check as tests/kit/test_lessons.py's prose-number test, with candidates for each miss.)
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import lessons

NEAREST = 3  # candidates shown per stale number


def candidates(token: str, outputs: set[float], n: int = NEAREST) -> list[float]:
    """The ``n`` output numbers closest to ``token`` in ratio (same sign ignored)."""
    want = abs(lessons.to_float(token))
    if want == 0:
        return sorted(outputs, key=abs)[:n]
    pool = [x for x in outputs if x != 0]
    return sorted(pool, key=lambda x: abs(abs(x) / want - 1))[:n]


def context(text: str, token: str, width: int = 70) -> str:
    """The words around the first occurrence of ``token`` in ``text`` (one line)."""
    flat = " ".join(text.split())
    m = re.search(rf"(?<![\d.,]){re.escape(token)}(?![\d])", flat)
    if not m:
        return ""
    return "…" + flat[max(0, m.start() - width) : m.end() + width // 2] + "…"


def stale(nb: dict) -> list[tuple[str, str, list[float]]]:
    """(number, context, nearest outputs) for every prose number no output matches."""
    prose = lessons.checked_prose(nb)
    outputs = lessons.output_numbers(lessons.outputs_text(nb))
    misses = lessons.unmatched_numbers(prose, outputs, lessons.allowed_numbers(nb))
    clean = lessons.prose_for_numbers(prose)
    return [(t, context(clean, t), candidates(t, outputs)) for t in dict.fromkeys(misses)]


def main(paths: list[str]) -> int:
    """Print the stale numbers of each notebook; exit status 1 if any."""
    found = 0
    for path in paths:
        for token, where, near in stale(json.loads(Path(path).read_text())):
            found += 1
            print(
                f"{Path(path).name}: {token}  (outputs near it: {', '.join(f'{x:g}' for x in near)})"
            )
            print(f"    {where}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
