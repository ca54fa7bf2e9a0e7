"""The student edition of the notebooks, written from the instructor edition (``make student``).

The committed notebooks are the instructor edition: every graded exercise's answer sits in a
code cell tagged ``solution`` (:mod:`wattgpu_lite.face.exercises` checks it), every "Try this"
solution and every "Check your understanding" answer in a collapsed ``<details>`` block. The
student edition is the same notebooks with

- each ``solution`` code cell replaced by its stub: the imports and each function's signature and
  docstring, with ``# YOUR CODE HERE`` and ``raise NotImplementedError`` as the body (the check
  below it then says what to write);
- each markdown cell tagged ``solution`` removed, and each ``<details>`` block whose summary is
  "Solution" or "Answer" removed from the markdown;
- the check cells tagged ``raises-exception`` (nbval expects an unanswered check to fail), the
  "Try this" checks dropped from the metadata (their solutions are gone), the edition named in
  the notebook metadata, every output and execution count cleared.

``python -m wattgpu_lite.face.student [SOURCE] [DEST]`` (defaults ``notebooks`` and ``student``)
writes every notebook of SOURCE, and copies its other files (the course page, the glossary), into
DEST. Deterministic: the same instructor edition gives the same bytes.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import re
import shutil
import sys
from pathlib import Path

SOLUTION, CHECK = "solution", "check"  # the cell tags of a graded exercise
RAISES = "raises-exception"  # nbval's tag for a cell expected to raise
META = "wattgpu_lite"
STUB_BODY = "# YOUR CODE HERE"
_HIDDEN = re.compile(
    r"\n?[ \t]*<details>\s*<summary>\s*(?:Solution|Answer)\s*</summary>.*?</details>[ \t]*",
    re.S | re.I,
)


def tags(cell: dict) -> list[str]:
    """The cell's metadata tags."""
    return list(cell.get("metadata", {}).get("tags", []))


def _lines(source: str | list[str]) -> str:
    return source if isinstance(source, str) else "".join(source)


def stub(source: str, where: str = "a solution cell") -> str:
    """The student's stub of an answer cell: its imports, then each function's signature and
    docstring with ``# YOUR CODE HERE`` and ``raise NotImplementedError`` as its body.

    An answer cell holds imports and function definitions only (so that it can be run, and
    checked, on its own); anything else raises ``ValueError`` naming ``where``."""
    tree, lines, out = ast.parse(source), source.splitlines(), []
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            out += lines[node.lineno - 1 : node.end_lineno]
        elif isinstance(node, ast.FunctionDef):
            first = node.body[0]
            doc = isinstance(first, ast.Expr) and isinstance(
                getattr(first, "value", None), ast.Constant
            )
            end = first.end_lineno if doc else first.lineno - 1
            if end < node.lineno or (not doc and first.lineno == node.lineno):
                raise ValueError(f"{where}: write the body of {node.name} on its own lines")
            indent = " " * first.col_offset
            out += ["", ""] if out else []
            out += lines[node.lineno - 1 : end]
            out += [
                f"{indent}{STUB_BODY}",
                f'{indent}raise NotImplementedError("write {node.name}")',
            ]
        else:
            raise ValueError(
                f"{where}: an answer cell holds imports and function definitions only, found "
                f"{type(node).__name__} on line {node.lineno}; move it into the function"
            )
    return "\n".join(out) + "\n"


def student_markdown(text: str) -> str:
    """``text`` without its "Solution" and "Answer" ``<details>`` blocks (and the blank lines they
    leave: at most one between paragraphs)."""
    return re.sub(r"\n{3,}", "\n\n", _HIDDEN.sub("", text)) if _HIDDEN.search(text) else text


def student_notebook(nb: dict, name: str = "notebook") -> dict:
    """The student edition of one instructor notebook (see the module docstring)."""
    out = copy.deepcopy(nb)
    cells = []
    for i, cell in enumerate(out["cells"]):
        cell_tags = tags(cell)
        if cell["cell_type"] == "markdown":
            if SOLUTION in cell_tags:
                continue
            cell["source"] = student_markdown(_lines(cell["source"]))
            cell.get("metadata", {}).get(META, {}).pop("checks", None)
            if cell.get("metadata", {}).get(META) == {}:
                del cell["metadata"][META]
        elif cell["cell_type"] == "code":
            if SOLUTION in cell_tags:
                cell["source"] = stub(
                    _lines(cell["source"]), f"{name}, cell {i} ({cell.get('id')})"
                )
            if CHECK in cell_tags and RAISES not in cell_tags:
                cell["metadata"]["tags"] = [*cell_tags, RAISES]
            cell["outputs"], cell["execution_count"] = [], None
        cells.append(cell)
    out["cells"] = cells
    out["metadata"].setdefault(META, {})["edition"] = "student"
    return out


def dumps(nb: dict) -> str:
    """A notebook's JSON as Jupyter writes it (indent 1, non-ASCII kept, a final newline)."""
    return json.dumps(nb, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def check_replaceable(source: Path, dest: Path) -> None:
    """ValueError unless ``dest`` may be emptied: a folder holding only a student edition of
    ``source`` (the files a run writes, each notebook marked ``edition: student``), never a
    folder that holds ``source`` (``dest='.'`` removed the repository) nor a file."""
    fix = "pass a new folder, e.g. student (the default)"
    if source.resolve().is_relative_to(dest.resolve()) or not dest.is_dir():
        kind = "a file" if not dest.is_dir() else f"the folder that holds {source}"
        raise ValueError(f"the student edition's folder {dest} is {kind}; {fix}")
    ours = {p.name for p in source.iterdir() if p.is_file()}
    for path in dest.iterdir():
        if not (path.is_file() and path.name in ours and _student_or_copy(path)):
            why = f"holds {path.name}, which no student edition of {source} writes"
            raise ValueError(f"will not empty {dest}: it {why}; {fix}, or remove it yourself")


def _student_or_copy(path: Path) -> bool:
    """Whether ``path`` is a notebook of a student edition, or a file that is no notebook."""
    if path.suffix != ".ipynb":
        return True
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        return nb["metadata"][META]["edition"] == "student"
    except (ValueError, KeyError, TypeError, OSError):
        return False


def write_student_edition(source: Path, dest: Path) -> list[Path]:
    """Write the student edition of every notebook in ``source`` to ``dest`` (emptied first),
    with the folder's other files copied; the paths of the notebooks written."""
    source, dest = Path(source), Path(dest)
    if not source.is_dir():
        raise FileNotFoundError(f"no notebook folder {source} (run from the repository root)")
    if dest.resolve() == source.resolve():
        raise ValueError(f"the student edition would overwrite the instructor edition in {source}")
    if dest.exists():
        check_replaceable(source, dest)
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    written = []
    for path in sorted(source.iterdir()):
        if path.suffix == ".ipynb":
            nb = student_notebook(json.loads(path.read_text()), path.name)
            (dest / path.name).write_text(dumps(nb))
            written.append(dest / path.name)
        elif path.is_file():
            shutil.copyfile(path, dest / path.name)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m wattgpu_lite.face.student",
        description="Write the student edition of the notebooks (no solutions, no outputs).",
    )
    parser.add_argument("source", nargs="?", default="notebooks", help="default: notebooks")
    parser.add_argument("dest", nargs="?", default="student", help="default: student")
    args = parser.parse_args(argv)
    try:
        written = write_student_edition(Path(args.source), Path(args.dest))
    except (OSError, ValueError) as err:
        parser.error(str(err))
    print(f"student edition: {len(written)} notebooks in {args.dest}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
