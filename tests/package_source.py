"""The package's modules parsed once per test process and shared by every test that reads the
source (each_concept_once, no_hidden_state, physics_records): parsing and walking the ~150
modules costs about 0.8 s, which those tests paid seven times. The trees are only read."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import wattgpu_lite as wl

PACKAGE = Path(wl.__file__).parent


@cache
def package_trees() -> dict[str, ast.Module]:
    """Relative path (``energy/backbone/__init__.py``) -> the module's syntax tree, sorted by path."""
    paths = sorted(PACKAGE.rglob("*.py"))
    return {p.relative_to(PACKAGE).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
            for p in paths}  # fmt: skip


@cache
def package_nodes() -> dict[str, tuple[ast.AST, ...]]:
    """Relative path -> every node of its tree, in ``ast.walk`` order."""
    return {path: tuple(ast.walk(tree)) for path, tree in package_trees().items()}
