"""The course page, the glossary page and the notebooks agree: each notebook's stated time
is the course table's, its terms are glossary entries, the glossary's symbol table is the library's,
the lab's stops fill 90 minutes with exercises that exist, and the page's run count is the data's."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import lessons
import pytest

import wattgpu_lite as wl
from wattgpu_lite.energy import glossary as G
from wattgpu_lite.face.exercises import EXERCISES

FOLDER = Path(__file__).resolve().parents[2] / "notebooks"
COURSE = (FOLDER / "README.md").read_text()
GLOSSARY = (FOLDER / "GLOSSARY.md").read_text()
LESSONS = sorted(p for p in FOLDER.glob("*.ipynb") if p.stem != "dashboard")
TERMS_LINE = re.compile(r"^\*\*Terms\*\* \(\[glossary\]\(GLOSSARY\.md\)\): (.+)\.$", re.M)


def _head(path: Path) -> str:
    return lessons.markdown(json.loads(path.read_text()))[0]


def glossary_terms(text: str) -> set[str]:
    """Every term of the glossary's entries ("- **LOGO, LOLO.**" gives both), lower case."""
    entries = re.findall(r"^- \*\*(.+?)\.\*\*", text, re.M)
    names = [n.split(" (")[0] for e in entries for n in e.split(", ")]
    return {n.strip().lower() for n in names}


def course_minutes() -> dict[str, int]:
    """The course table's time per notebook file: {"00_start_here": 30, ...}."""
    rows = re.findall(
        r"^\| [\w—]+ \| \[[^\]]+\]\(([\w.]+)\.ipynb\) \|[^|]+\| (\d+) min", COURSE, re.M
    )
    return {stem: int(minutes) for stem, minutes in rows}


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_stated_time_is_the_course_tables(path):
    stated = re.search(r"\*\*Time\.\*\* About (\d+) minutes", _head(path))
    assert stated, f"{path.name}: no '**Time.** About N minutes' line"
    assert int(stated.group(1)) == course_minutes()[path.stem]


def test_the_course_pages_total_is_the_sum_of_its_times():
    total = sum(course_minutes().values()) - course_minutes()["dashboard"]
    said = re.search(r"about (\d+) hours for the whole course", COURSE)
    assert said and int(said.group(1)) == round(total / 60), f"the table sums to {total} min"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_stated_time_follows_the_pacing_rule_and_a_core_notebook_fits_a_class(path):
    """The time is the pacing rule's (CONTRIBUTING.md); a core notebook (00–06, not the advanced
    A-notebooks) takes at most 45 minutes and 40 cells by it."""
    nb = json.loads(path.read_text())
    minutes = lessons.pace_minutes(nb)
    assert course_minutes()[path.stem] == minutes, f"{path.name}: the rule gives {minutes} min"
    if path.stem[0].isdigit():
        assert minutes <= lessons.CORE_MAX_MINUTES
        assert len(nb["cells"]) <= lessons.CORE_MAX_CELLS


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_terms_at_the_top_are_glossary_entries(path):
    line = TERMS_LINE.search(_head(path))
    assert line, f"{path.name}: no '**Terms** ([glossary](GLOSSARY.md)): …' line"
    terms = {t.strip().lower() for t in line.group(1).split(", ")}
    assert terms - glossary_terms(GLOSSARY) == set()


def test_glossary_reader_splits_joint_entries():
    text = "- **LOGO, LOLO.** x\n- **ITL (inter-token latency).** y\n- **P / TDP.** z\n"
    assert glossary_terms(text) == {"logo", "lolo", "itl", "p / tdp"}


def test_the_glossary_pages_symbols_are_the_librarys():
    assert GLOSSARY.rstrip("\n").endswith(G.glossary_markdown())


def test_the_lab_fills_ninety_minutes_with_exercises_that_exist():
    lab = COURSE[COURSE.index("## Path 1") : COURSE.index("## Path 2")]
    stops = re.findall(
        r"^\| (\d+)–(\d+) \| (\d\d): [^|]+\| (\d\d) · (?:Try this (\d+)|Exercise (\d\d\.\d))",
        lab,
        re.M,
    )
    assert stops and stops[0][0] == "0" and stops[-1][1] == "90"
    assert all(a[1] == b[0] for a, b in itertools.pairwise(stops))  # contiguous
    for _, _, nb, ex_nb, number, key in stops:
        path = next(FOLDER.glob(f"{ex_nb}_*.ipynb"))
        lesson = json.loads(path.read_text())
        found = {str(e.number) for e in lessons.exercises(lesson)}
        graded = {re.search(r'check\("([\w.]+)"', "".join(c["source"])).group(1)
                  for _, c in lessons.graded(lesson)}  # fmt: skip
        assert nb == ex_nb and (number in found or key in graded), (nb, number or key)
    assert sum(bool(key) for *_, key in stops) >= 3  # the lab's exercises are mostly graded


def test_the_course_page_counts_the_dense_runs():
    runs = wl.measurements(dense_only=True)
    said = f"{len(runs):,}\nreal vLLM runs of {runs['llm'].nunique()} dense LLMs"
    assert said in COURSE


def test_the_start_notebooks_map_gives_the_course_tables_times():
    """00's map of the course lists every notebook the course table lists, at the same time."""
    head = lessons.markdown(json.loads((FOLDER / "00_start_here.ipynb").read_text()))
    course_map = next(m for m in head if m.startswith("## Map of the course"))
    rows = dict(re.findall(r"^\| `([\w.]+)` \|[^|]+\| (\d+) min \|$", course_map, re.M))
    assert {k: int(v) for k, v in rows.items()} == {
        k: v for k, v in course_minutes().items() if k != "00_start_here"
    }


def test_the_readmes_notebook_table_gives_the_course_tables_times():
    """The README lists every notebook the course table lists (01b and the advanced ones too), at
    the same time."""
    readme = (FOLDER.parent / "README.md").read_text()
    rows = dict(re.findall(r"^\| `([\w.]+)` \|[^|]+\| (\d+) min \|$", readme, re.M))
    assert {k: int(v) for k, v in rows.items()} == course_minutes()


def _keys(text: str) -> set[str]:
    """Graded exercise keys named in ``text``: "01.1", "01b.2", and ranges "04.1–04.3"."""
    out = set()
    for a, b in re.findall(r"\b(\d\db?\.\d)(?:–(\d\db?\.\d))?\b", text):
        stem, first = a.split(".")
        last = int(b.split(".")[1]) if b else int(first)
        out |= {f"{stem}.{k}" for k in range(int(first), last + 1)}
    return out


def test_the_learning_outcomes_map_onto_every_graded_exercise():
    table = COURSE[COURSE.index("## Learning outcomes") : COURSE.index("## Path 2")]
    rows = re.findall(r"^\| [a-z][^|]+\| [\w, ]+ \| ([\w., ]+) \| week (\d) \|$", table, re.M)
    assert len(rows) >= 5
    assert set().union(*(_keys(r[0]) for r in rows)) == set(EXERCISES)


def test_each_week_lists_its_graded_exercises_and_an_open_task_with_a_rubric():
    weeks = re.split(r"^\*\*Week \d — ", COURSE[COURSE.index("## Path 2") :], flags=re.M)[1:]
    assert len(weeks) == 3
    listed = set()
    for week in weeks:
        graded = re.search(r"Graded exercises: ([^.]+(?:\.\d[^.]*)*)\. Explore", week)
        assert graded, week[:80]
        listed |= _keys(graded.group(1))
        assert re.search(r"(Open task|Project):", week)
        points = [int(p) for p in re.findall(r"^\| [a-z][^|]+\| (\d+) \| ", week, re.M)]
        assert len(points) >= 3 and sum(points) >= 10, points
    assert listed == set(EXERCISES)
