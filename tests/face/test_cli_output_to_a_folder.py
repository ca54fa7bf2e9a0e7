"""--output naming an existing folder, or a file the CLI cannot write, is one error line (exit 2)
naming the path and why: it was 'internal error: IsADirectoryError' after the model had run."""

from __future__ import annotations

import pandas as pd

from tests.cli_runner import one_error_line, run_cli

PREDICT = ["predict", "--llm", "llama-3.1-8b", "--gpu", "L4", "--batch", "8"]


def test_a_folder_as_the_output_is_refused_with_a_file_inside_it(capsys, tmp_path):
    folder = tmp_path / "results.csv"
    folder.mkdir()
    words = ["results.csv' is a folder", "name a file", "result.csv"]
    one_error_line(*run_cli([*PREDICT, "--output", str(folder)], capsys), words)


def test_a_file_that_cannot_be_written_is_one_line(capsys, tmp_path, monkeypatch):
    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(pd.DataFrame, "to_csv", denied)
    target = tmp_path / "out.csv"
    words = ["out.csv': cannot write it (Permission denied)"]
    one_error_line(*run_cli([*PREDICT, "--output", str(target)], capsys), words)
