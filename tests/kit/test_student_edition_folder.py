"""`python -m wattgpu_lite.face.student SOURCE DEST` empties DEST before writing: it does so only
for a folder that holds a student edition, never for one that holds the notebooks themselves or
anyone's other files, and a bad folder is one error line, not a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wattgpu_lite.face import student

NOTEBOOK = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def source(tmp_path: Path) -> Path:
    folder = tmp_path / "course" / "notebooks"
    folder.mkdir(parents=True)
    (folder / "00_intro.ipynb").write_text(json.dumps(NOTEBOOK))
    (folder / "README.md").write_text("the course\n")
    return folder


def test_a_folder_holding_the_notebooks_is_not_emptied(source):
    for dest in (source.parent, source.parent.parent):  # '.' and its parent: the repository
        with pytest.raises(ValueError, match=r"is the folder that holds .*pass a new folder"):
            student.write_student_edition(source, dest)
    assert (source / "00_intro.ipynb").is_file()


def test_a_folder_with_other_files_is_not_emptied(source, tmp_path):
    dest = tmp_path / "thesis"
    dest.mkdir()
    (dest / "chapter1.tex").write_text("mine\n")
    with pytest.raises(ValueError, match=r"will not empty .*holds chapter1\.tex"):
        student.write_student_edition(source, dest)
    assert (dest / "chapter1.tex").read_text() == "mine\n"


def test_an_instructor_copy_is_not_emptied(source, tmp_path):
    backup = tmp_path / "backup"
    backup.mkdir()
    (backup / "00_intro.ipynb").write_text(json.dumps(NOTEBOOK))  # no edition: the solutions
    with pytest.raises(ValueError, match=r"will not empty .*holds 00_intro\.ipynb"):
        student.write_student_edition(source, backup)
    assert (backup / "00_intro.ipynb").is_file()


def test_a_file_as_the_folder_is_refused(source, tmp_path):
    dest = tmp_path / "notes.txt"
    dest.write_text("mine\n")
    with pytest.raises(ValueError, match=r"notes\.txt is a file"):
        student.write_student_edition(source, dest)
    assert dest.read_text() == "mine\n"


def test_a_previous_student_edition_is_replaced(source, tmp_path):
    dest = tmp_path / "student"
    first = student.write_student_edition(source, dest)
    assert student.write_student_edition(source, dest) == first
    assert json.loads(first[0].read_text())["metadata"]["wattgpu_lite"]["edition"] == "student"


def test_the_command_says_a_missing_folder_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        student.main([str(tmp_path / "nowhere"), str(tmp_path / "student")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "no notebook folder" in err and "Traceback" not in err
