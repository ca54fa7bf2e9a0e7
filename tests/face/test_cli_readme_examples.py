"""The README's command-line examples are commands the parser accepts: every ``wattgpu-lite``
line of its code blocks (an optional ``[...]`` part given), so a renamed flag or choice fails here
before a reader copies it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from wattgpu_lite.face.cli.main import build_parser

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
BLOCKS = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
EXAMPLES = [
    line.split("  #")[0].strip()
    for block in BLOCKS
    for line in block.splitlines()
    if line.startswith("wattgpu-lite ")
]


def test_the_readme_has_examples_of_every_command_it_lists():
    commands = {shlex.split(line)[1] for line in EXAMPLES}
    assert {"gpus", "predict", "estimate", "rank", "evaluate"} <= commands
    assert any("--strategy loso" in line for line in EXAMPLES)


@pytest.mark.parametrize("line", EXAMPLES)
def test_each_readme_example_parses(line):
    words = shlex.split(line.replace("[", "").replace("]", ""))[1:]
    args = build_parser().parse_args(words)
    assert args.command == words[0]
