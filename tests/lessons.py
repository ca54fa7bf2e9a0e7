"""Reading a notebook as a lesson: its parts, its exercises, the numbers in its prose.

The conventions these functions read are written down in CONTRIBUTING.md ("Writing a notebook");
tests/kit/test_lessons.py applies them to every notebook, and conftest.py runs each notebook's
exercises in the kernel nbval executes it in (tests/lesson_kernel.py). Pure functions of the
notebook's JSON, so they are tested on hand-made text in tests/kit/test_lessons_parser.py.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

SIG = 3  # nbval compares outputs after rounding floats to 3 significant figures (conftest.py)
MAX_ALLOWED = 30  # at most this many explicitly allowed prose numbers per notebook
META = "wattgpu_lite"  # notebook metadata key: {"prose_numbers": {"0.017": "why it is allowed"}}
# the "Try this" cell's metadata: {"wattgpu_lite": {"checks": {"1": "EXPRESSION", "2": {"student":
# "EXPRESSION", "library": "EXPRESSION"}}}}: a knob exercise changes what EXPRESSION shows; a
# "write it yourself" exercise's function gives what the library gives

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$", re.M)
_ITEM = re.compile(r"^\*\*(\d+)\.", re.M)  # "**1. Title.**" or "**1.** text" starts an item
_DETAILS = re.compile(r"<details>(.*?)</details>", re.S | re.I)
_FENCE = re.compile(r"```python\n(.*?)```", re.S)
_DURATION = re.compile(r"\b\d+\s*(?:min|minutes|h|hours)\b", re.I)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# a number in prose: not glued to a word (H100, Qwen3-8B, 2N, 10⁹) and not a hyphenated
# compound (16-bit, 90-minute); thousands may be comma-separated
_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹"
PROSE_NUMBER = re.compile(
    rf"(?<![\w.\-−/{_SUP}])[-−]?(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?(?![\w{_SUP}]|-[A-Za-z]|\.\d)"
)
OUTPUT_NUMBER = re.compile(
    r"(?<![A-Za-z_.\d])[-−]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?![A-Za-z_\d])"
)
REFERENCE = re.compile(
    r"(?:notebooks?|section|§|tables?|figures?|fig\.|eq\.|equation|issue|arxiv|step|question|"
    r"exercise|chapter|version)\s*$",
    re.I,
)
_DURATION_AFTER = re.compile(r"\s*(?:minutes?|min\b|hours?|weeks?)", re.I)
_STRIP = [
    re.compile(r"```.*?```", re.S),  # fenced code
    re.compile(r"`[^`\n]*`"),  # inline code
    re.compile(r"\$\$.*?\$\$", re.S),  # display math
    re.compile(r"\$[^$\n]+\$"),  # inline math
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"https?://\S+"),  # bare URLs
    re.compile(r"<[^>\n]+>"),  # HTML tags
    re.compile(r"^(#{1,6}\s+)[\d.·\s]+", re.M),  # section numbers of headings
]


@dataclass(frozen=True)
class Exercise:
    """One "Try this" item: its number, statement, solution prose, solution code and check."""

    number: int
    statement: str
    solution_prose: str
    check: str | dict | None  # from the cell metadata (see META); None if missing
    code: str | None

    @property
    def writes_it_yourself(self) -> bool:
        """A "write it yourself" exercise: the student's code against the library's."""
        return isinstance(self.check, dict)


def markdown(nb: dict) -> list[str]:
    """The source of every markdown cell, in order."""
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]


WORDS_PER_MINUTE = 150  # reading speed of the pacing rule (CONTRIBUTING.md, "Writing a notebook")
EXERCISE_MINUTES = 8  # one graded exercise done in class
CORE_MAX_MINUTES = 45  # a core notebook (00–06) fits one class
CORE_MAX_CELLS = 40


def pace_minutes(nb: dict) -> int:
    """The stated time of a notebook by the course's pacing rule:
    minutes = words of markdown outside collapsed <details> blocks / WORDS_PER_MINUTE
    + 1 per code cell + EXERCISE_MINUTES, rounded up to a multiple of 5."""
    prose = _DETAILS.sub("", " ".join(markdown(nb)))
    code_cells = sum(c["cell_type"] == "code" for c in nb["cells"])
    minutes = len(prose.split()) / WORDS_PER_MINUTE + code_cells + EXERCISE_MINUTES
    return 5 * math.ceil(minutes / 5)


def section(nb: dict, title: str) -> str:
    """The markdown from the level-2 heading ``## {title}`` to the next level-1/2 heading."""
    text = "\n\n".join(markdown(nb))
    start = re.search(rf"^##\s+{re.escape(title)}\s*$", _blank_code(text), re.M | re.I)
    if not start:
        return ""
    nxt = re.search(r"^#{1,2}\s", _blank_code(text)[start.end() :], re.M)
    return text[start.end() : start.end() + nxt.start()] if nxt else text[start.end() :]


def _blank_code(text: str) -> str:
    """``text`` with fenced code replaced by spaces of the same length (a "# comment" line in a
    solution is not a heading)."""
    return re.sub(r"```.*?```", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def items(text: str) -> list[tuple[int, str]]:
    """(number, body) of each "**N." item of a section."""
    starts = list(_ITEM.finditer(_blank_code(text)))
    ends = [m.start() for m in starts[1:]] + [len(text)] if starts else []
    return [(int(m.group(1)), text[m.start() : e]) for m, e in zip(starts, ends, strict=True)]


def exercises(nb: dict) -> list[Exercise]:
    """The "Try this" items, each with its solution in a <details> block and its check in the
    metadata of the cell that holds "## Try this"."""
    out, checks = [], try_this_checks(nb)
    for number, body in items(section(nb, "Try this")):
        solution = _DETAILS.search(body)
        inner = solution.group(1) if solution else ""
        fence = _FENCE.search(inner)
        statement = body[: solution.start()] if solution else body
        prose = _FENCE.sub("", inner)
        code = fence.group(1) if fence else None
        out.append(Exercise(number, statement, prose, checks.get(str(number)), code))
    return out


def try_this_checks(nb: dict) -> dict:
    """``{"1": check, ...}`` from the metadata of the markdown cell holding "## Try this"."""
    for cell in nb["cells"]:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and re.search(r"^##\s+Try this\s*$", text, re.M | re.I):
            return dict(cell.get("metadata", {}).get(META, {}).get("checks", {}))
    return {}


def _check_problem(e: Exercise) -> str | None:
    """What is wrong with an exercise's check (None: nothing)."""
    if e.code is None:
        return f"exercise {e.number} has no <details> solution with a python block"
    if isinstance(e.check, str) and e.check.strip():
        return None
    if isinstance(e.check, dict) and set(e.check) == {"student", "library"}:
        return None
    return f"exercise {e.number} has no check in the Try this cell's metadata ({META}.checks)"


def structure_problems(nb: dict, folder: Path) -> list[str]:
    """What the lesson layout misses (empty list: nothing)."""
    md = markdown(nb)
    first, problems = (md[0] if md else ""), []
    for marker in ("what you will learn", "prerequisites", "lives in"):
        if marker not in first.lower():
            problems.append(f"first cell lacks {marker!r}")
    if not _DURATION.search(first):
        problems.append("first cell gives no time in minutes or hours")
    targets = [t.split("#")[0] for t in _LINK.findall(first)]
    for word in ("previous", "next"):
        if not re.search(rf"{word}[^\n]*\]\(", first, re.I):
            problems.append(f"first cell lacks a {word!r} link")
    problems += [f"link to a missing file {t!r}" for t in targets
                 if t and not t.startswith("http") and not (folder / t).exists()]  # fmt: skip
    if not section(nb, "Summary").strip():
        problems.append("no '## Summary' section")
    questions = items(section(nb, "Check your understanding"))
    if not 3 <= len(questions) <= 5:
        problems.append(f"{len(questions)} check-your-understanding questions (want 3 to 5)")
    problems += [f"question {n} has no <details> answer" for n, b in questions
                 if not _DETAILS.search(b)]  # fmt: skip
    found = exercises(nb)
    if len(found) < 2:
        problems.append(f"{len(found)} 'Try this' exercises (want at least 2)")
    problems += [p for p in map(_check_problem, found) if p]
    if found and not any(e.writes_it_yourself for e in found) and not graded(nb):
        problems.append(
            "no 'write it yourself' exercise (a check with 'student' and 'library', "
            "or a graded exercise: a code cell tagged 'solution')"
        )
    if md and "try this" not in md[-1].lower():
        problems.append("'Try this' is not the last markdown cell")
    return problems


def graded(nb: dict) -> list[tuple[dict, dict]]:
    """(answer cell, check cell) of each graded exercise: a code cell tagged ``solution``
    followed by a code cell tagged ``check`` (wattgpu_lite.face.student). A solution cell without
    its check right after it raises ``ValueError``."""
    cells, out = nb["cells"], []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code" or "solution" not in cell.get("metadata", {}).get(
            "tags", []
        ):
            continue
        after = cells[i + 1] if i + 1 < len(cells) else None
        if after is None or "check" not in after.get("metadata", {}).get("tags", []):
            raise ValueError(f"the solution cell {cell.get('id')} is not followed by a check cell")
        out.append((cell, after))
    return out


def prose_for_numbers(text: str) -> str:
    """``text`` without code, math, link targets, URLs, HTML tags and heading numbers."""
    for pattern in _STRIP:
        text = pattern.sub(lambda m: m.group(1) if m.groups() else " ", text)
    return text


def prose_numbers(text: str) -> list[str]:
    """Numbers a reader reads as results in markdown ``text`` (see notebooks/README.md)."""
    clean = prose_for_numbers(text)
    out = []
    for m in PROSE_NUMBER.finditer(clean):
        token = m.group(0)
        if REFERENCE.search(clean[max(0, m.start() - 12) : m.start()]) and "." not in token:
            continue  # "notebook 03", "Table 2", "§5", "Tables 2 and 3"
        if REFERENCE.search(clean[max(0, m.start() - 12) : m.start()]) and _is_arxiv(token):
            continue
        if _DURATION_AFTER.match(clean, m.end()):
            continue  # "about 45 minutes", "3 weeks": a reader's time, not a result
        if not is_exempt(token):
            out.append(token)
    return out


def _is_arxiv(token: str) -> bool:
    return bool(re.fullmatch(r"\d{4}\.\d{4,5}", token))


def is_exempt(token: str) -> bool:
    """Integers 0-12 (counts, ordinals) and years 1990-2039."""
    value = to_float(token)
    return value == int(value) and "." not in token and (abs(value) <= 12 or 1990 <= value <= 2039)


def to_float(token: str) -> float:
    """'1,560' -> 1560.0, '−57.8' -> -57.8."""
    return float(token.replace(",", "").replace("−", "-"))


def significant_digits(token: str) -> int:
    """Significant figures as written: '0.0206' -> 3, '1,560' -> 3, '13.50' -> 4, '730' -> 2."""
    digits = token.replace(",", "").lstrip("-−")
    whole, _, frac = digits.partition(".")
    if frac:
        return max(len((whole + frac).lstrip("0")), 1)
    return max(len(whole.lstrip("0").rstrip("0")), 1)


def rounded(value: float, digits: int) -> Decimal:
    """``value`` (its shortest repr) rounded half-up to ``digits`` significant figures."""
    d = Decimal(repr(abs(value)))
    if d == 0:
        return d
    return d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=ROUND_HALF_UP)


def matches(token: str, outputs: set[float]) -> bool:
    """The prose number equals some output number rounded to the prose's own significant
    figures (at least 2); with 3 or fewer, also the output first rounded to 3 figures as nbval
    does (signs ignored, so '58 % less' matches an output −57.8)."""
    d = max(significant_digits(token), 2)  # "0.3" must be 0.30: one figure matches too much
    want = rounded(to_float(token), d)
    for x in outputs:
        if rounded(x, d) == want or (d <= SIG and rounded(float(rounded(x, SIG)), d) == want):
            return True
    return False


def output_numbers(text: str) -> set[float]:
    """Every number printed in ``text`` (an output)."""
    found = set()
    for m in OUTPUT_NUMBER.finditer(text):
        try:
            value = to_float(m.group(0).rstrip(","))
        except ValueError:
            continue
        if math.isfinite(value):
            found.add(value)
    return found


def outputs_text(nb: dict) -> str:
    """All text outputs of the code cells (stdout, stderr, text/plain, text/markdown)."""
    parts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            if "text" in out:
                parts.append("".join(out["text"]))
            data = out.get("data", {})
            parts += ["".join(data[k]) for k in ("text/plain", "text/markdown") if k in data]
    return "\n".join(parts)


def allowed_numbers(nb: dict) -> dict[str, str]:
    """The notebook's explicit allow-list: metadata["wattgpu_lite"]["prose_numbers"]."""
    return dict(nb.get("metadata", {}).get(META, {}).get("prose_numbers", {}))


def checked_prose(nb: dict) -> str:
    """Every markdown cell, without the solutions of "Try this" (their numbers are checked
    against the solution's own output when the exercise runs)."""
    text = "\n\n".join(markdown(nb))
    start = re.search(r"^##\s+Try this\s*$", text, re.M | re.I)
    if not start:
        return text
    return text[: start.end()] + _DETAILS.sub(" ", text[start.end() :])


def unmatched_numbers(prose: str, outputs: set[float], allowed: dict[str, str]) -> list[str]:
    """Prose numbers found in no output and on no allow-list entry."""
    allow = {to_float(k) for k in allowed}
    return [t for t in prose_numbers(prose) if to_float(t) not in allow and not matches(t, outputs)]
