"""The library passes records and keywords, not long rows of positional values, and imports
modules by names a reader can follow: no call passes more than four values by position (a
``*splat`` counts as many, since a tuple of the wrong length shifts every later value), and no
module is imported under an alias of one to four capital letters."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "wattgpu_lite"
MAX_POSITIONAL = 4
# functions whose positional values are one list of like values, not parameters with a place
# each (no value can shift into another's meaning): they may take any number
VARIADIC = frozenset(
    {"max", "min", "zip", "itertools.product", "np.broadcast_arrays", "np.broadcast_shapes"}
    | {"pd.option_context", "sp.Piecewise"}
    | {"ax.stackplot"}
)
CAPITALS = re.compile(r"[A-Z]{1,4}")


def _handed_on(value: ast.expr) -> bool:
    """``*args`` or ``*case.args``: an argument list passed on as its caller wrote it."""
    return (isinstance(value, ast.Name) and value.id == "args") or (
        isinstance(value, ast.Attribute) and value.attr == "args"
    )


def long_calls(tree: ast.AST) -> list[str]:
    """Calls that pass more than :data:`MAX_POSITIONAL` values by position, as ``line: call``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or ast.unparse(node.func) in VARIADIC:
            continue
        splats = [a for a in node.args if isinstance(a, ast.Starred)]
        many = any(not _handed_on(a.value) for a in splats)
        if many or len(node.args) - len(splats) > MAX_POSITIONAL:
            found.append(f"{node.lineno}: {ast.unparse(node.func)}({len(node.args)} positional)")
    return found


def capital_aliases(tree: ast.AST) -> list[str]:
    """Imports under an alias of one to four capital letters (``import … as S``)."""
    return [
        f"{node.lineno}: {name.name} as {name.asname}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in node.names
        if name.asname and CAPITALS.fullmatch(name.asname)
    ]


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out.append((".".join(parts[:-1] if parts[-1] == "__init__" else parts), path))
    return out


MODULES = _modules()


def test_the_checks_see_what_they_are_for():
    tree = ast.parse(
        "import numpy as NP\nfrom wattgpu_lite.energy import backbone as S\n"
        "f(1, 2, 3, 4, 5)\nf(*row)\ng(1, 2, 3, 4, e=5)\nzip(a, b, c, d, e)\n"
        "h(*args, **kwargs)\nanswer(*case.args)\nk(x, *pair)\n"
    )
    assert long_calls(tree) == ["3: f(5 positional)", "4: f(1 positional)", "9: k(2 positional)"]
    assert capital_aliases(tree) == ["1: numpy as NP", "2: backbone as S"]
    assert not capital_aliases(ast.parse("import numpy as np\nfrom a import b as hybrid_b\n"))


def test_the_modules_checked_are_the_whole_library():
    names = {name for name, _ in MODULES}
    assert {"wattgpu_lite.checks", "wattgpu_lite.energy._physical_generated"} <= names
    assert len(names) > 100


def _found(check) -> dict[str, list[str]]:
    """What ``check`` finds in each module checked, the modules where it finds nothing left out."""
    found = {name: check(ast.parse(path.read_text(encoding="utf-8"))) for name, path in MODULES}
    return {name: lines for name, lines in found.items() if lines}


def test_no_call_passes_more_than_four_values_by_position():
    assert _found(long_calls) == {}


def test_no_module_is_imported_under_a_capital_alias():
    assert _found(capital_aliases) == {}
