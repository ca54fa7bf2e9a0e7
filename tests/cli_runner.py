"""Running the CLI in-process for the bad-input tests, and the shape of a refusal: exit 2, one line."""

from __future__ import annotations

import os

from wattgpu_lite.face.cli.main import main


def run_cli(argv: list[str], capsys, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``wattgpu-lite argv``, with ``env`` set for the call only."""
    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    finally:
        os.environ.clear()
        os.environ.update(saved)
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(code: int, out: str, err: str, words: list[str]) -> None:
    """No traceback, exit 2, one ``error: …`` line on stderr naming every one of ``words``."""
    assert "Traceback" not in out + err
    assert code == 2, f"exit {code}: {err[:300]!r}"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    missing = [w for w in words if w not in err]
    assert not missing, f"{missing} not in {err}"
