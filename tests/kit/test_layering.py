"""The package's shape: data flows one way, specs → runs → energy, wattgpu → hybrid → selection → face.

Reads every module's imports with ``ast`` (module-level and inside functions alike) and fails on an
import that runs against the flow or between the two peer chapters (energy, wattgpu), on an import
cycle, and on a kit import inside a function outside the CLI (where it would only dodge a cycle),
naming the modules involved.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "wattgpu_lite"
# rank of each chapter: a module may import its own chapter or one of lower rank
RANKS = {
    "errors": 0, "datafiles": 0.5, "checks": 0.5, "metrics": 0.5, "jsonio": 0.5, "jsonfiles": 0.75,
    "specs": 1,
    "runs": 2, "energy": 3, "wattgpu": 3, "hybrid": 4, "selection": 5, "face": 6, "__main__": 7,
}  # fmt: skip
# inside hybrid: what predicts, what fits (and may use the predictor), what reports on both
HYBRID_PARTS = {"predict": 0, "fit": 1, "report": 2}
LAZY_ALLOWED = ("wattgpu_lite.face.cli",)  # the CLI imports a command's chapter when it runs
CHAIN = "wattgpu_lite.hybrid.predict.chain"  # selection's one module of hybrid/ and energy/


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def resolve(target: str) -> str:
    """The kit module an import names (``wattgpu_lite.a.b`` may be a module or a name in one)."""
    parts = target.split(".")
    while parts:
        base = PACKAGE.parent.joinpath(*parts)
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return ".".join(parts)
        parts.pop()
    raise AssertionError(f"import of {target!r} names no module of the kit")


def imports_of(path: Path) -> list[tuple[str, bool]]:
    """(imported kit module, inside a function?) for every import statement of a file."""
    tree = ast.parse(path.read_text())
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom) and child.level:
                raise AssertionError(f"{module_name(path)}: relative import; use absolute paths")
            if isinstance(child, ast.ImportFrom) and (child.module or "").startswith(
                "wattgpu_lite"
            ):
                for alias in child.names:
                    found.append((resolve(f"{child.module}.{alias.name}"), in_function))
            elif isinstance(child, ast.Import):
                found.extend((resolve(a.name), in_function) for a in child.names
                             if a.name.startswith("wattgpu_lite."))  # fmt: skip
            visit(child, nested)

    visit(tree, False)
    return found


def chapter(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def hybrid_part(module: str) -> str | None:
    """predict, fit or report for a module of ``wattgpu_lite.hybrid.<part>``, else None."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "hybrid" else None


def graph() -> dict[str, set[tuple[str, bool]]]:
    """module -> {(imported module, lazily?)} over the whole package but its lazy ``__init__``."""
    edges = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if name == "wattgpu_lite":
            continue  # the top __init__ only maps public names to modules, by string
        edges[name] = {(t, lazy) for t, lazy in imports_of(path) if t != name}
    return edges


def flow_violations(edges: dict[str, set[tuple[str, bool]]]) -> list[str]:
    """Imports against the flow, between peers, or lazy outside the CLI, as readable lines."""
    bad = []
    for src, targets in sorted(edges.items()):
        for dst, lazy in sorted(targets):
            a, b = chapter(src), chapter(dst)
            if b == "__init__" or a not in RANKS or b not in RANKS:
                bad.append(f"{src} imports {dst}: not a chapter of the layout")
            elif a != b and RANKS[b] >= RANKS[a]:
                bad.append(
                    f"{src} imports {dst}: {a} may not import {b} (the flow runs the other way)"
                )
            pa, pb = hybrid_part(src), hybrid_part(dst)
            if a == b == "hybrid" and pa and pb and HYBRID_PARTS[pb] > HYBRID_PARTS[pa]:
                bad.append(f"{src} imports {dst}: hybrid.{pa} may not import hybrid.{pb}")
            if lazy and not src.startswith(LAZY_ALLOWED):
                bad.append(f"{src} imports {dst} inside a function: import it at the top")
    return bad


def cycles(edges: dict[str, set[tuple[str, bool]]]) -> list[list[str]]:
    """Every import cycle found by depth-first search (each as the list of its modules)."""
    found, state, stack = [], {}, []

    def dfs(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt, _ in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                dfs(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            dfs(node)
    return found


def test_every_import_runs_with_the_flow():
    assert flow_violations(graph()) == []


def test_the_package_has_no_import_cycle():
    assert cycles(graph()) == [], "import cycles: " + "; ".join(
        " -> ".join(c) for c in cycles(graph())
    )


def chain_violations(edges: dict[str, set[tuple[str, bool]]]) -> list[str]:
    """Imports of a ``selection`` module into ``hybrid/`` or ``energy/`` other than the chain, as
    readable lines naming the module and what it imports."""
    bad = []
    for src, targets in sorted(edges.items()):
        for dst, _ in sorted(targets):
            if (
                chapter(src) == "selection"
                and chapter(dst) in ("hybrid", "energy")
                and dst != CHAIN
            ):
                bad.append(f"{src} imports {dst}: selection reaches the predictor through {CHAIN}")
    return bad


def test_selection_reaches_the_predictor_through_the_chain_alone():
    assert chain_violations(graph()) == []


def test_the_chain_checker_names_the_module_and_its_import():
    edges = {
        "wattgpu_lite.selection.plan": {
            (CHAIN, False),
            ("wattgpu_lite.hybrid.predict.steps", False),
        },
        "wattgpu_lite.selection.layouts": {("wattgpu_lite.energy.occupancy", False)},
        "wattgpu_lite.face.cli.rank": {("wattgpu_lite.hybrid.predict.api", True)},
    }
    assert [line.split(":")[0] for line in chain_violations(edges)] == [
        "wattgpu_lite.selection.layouts imports wattgpu_lite.energy.occupancy",
        "wattgpu_lite.selection.plan imports wattgpu_lite.hybrid.predict.steps",
    ]


def test_each_chapter_says_what_it_offers_and_where_it_is_taught():
    for folder in ("specs", "runs", "energy", "wattgpu", "hybrid", "selection", "face"):
        doc = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text())) or ""
        assert "wattgpu_lite." in doc and len(doc) > 200, folder
        assert "notebook" in doc.lower() or folder == "face", (
            f"{folder}: which notebook teaches it?"
        )


def test_few_modules_remain_at_the_top():
    top = {p.stem for p in PACKAGE.glob("*.py")}
    # the bottom of the layering: the checks, the data files (and the JSON files read from them),
    # the metrics and the JSON writer
    allowed = {
        "__init__",
        "__main__",
        "errors",
        "datafiles",
        "jsonfiles",
        "checks",
        "metrics",
        "jsonio",
    }
    assert top <= allowed, top


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        (
            {"wattgpu_lite.specs.llm": {("wattgpu_lite.hybrid.load", False)}},
            "specs may not import hybrid",
        ),
        (
            {"wattgpu_lite.energy.physical": {("wattgpu_lite.wattgpu.features", False)}},
            "energy may not import wattgpu",
        ),
        (
            {"wattgpu_lite.hybrid.predict.model": {("wattgpu_lite.runs.table", True)}},
            "inside a function",
        ),
        (
            {"wattgpu_lite.hybrid.predict.api": {("wattgpu_lite.hybrid.fit.build", False)}},
            "hybrid.predict may not import hybrid.fit",
        ),
    ],
)
def test_the_checker_names_both_modules_of_a_bad_import(edges, expected):
    (line,) = flow_violations(edges)
    src, (dst, _) = next(iter(edges.items()))[0], next(iter(next(iter(edges.values()))))
    assert expected in line and src in line and dst in line


def test_the_checker_finds_a_cycle():
    edges = {"wattgpu_lite.runs.a": {("wattgpu_lite.runs.b", False)},
             "wattgpu_lite.runs.b": {("wattgpu_lite.runs.a", False)}}  # fmt: skip
    assert cycles(edges) == [["wattgpu_lite.runs.a", "wattgpu_lite.runs.b", "wattgpu_lite.runs.a"]]


def third_party_imports(path: Path) -> set[str]:
    """Top-level names of the non-kit packages a file imports (anywhere in it)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names - {"wattgpu_lite", "__future__"}


def test_what_predicts_needs_numpy_and_pandas_only():
    """hybrid.predict (what ``wl.predict`` imports) never names XGBoost or scikit-learn."""
    import sys

    allowed = {"numpy", "pandas", *sys.stdlib_module_names}
    for path in sorted((PACKAGE / "hybrid" / "predict").glob("*.py")):
        assert third_party_imports(path) <= allowed, (
            path.name,
            third_party_imports(path) - allowed,
        )


def test_hybrid_is_three_parts_and_nothing_loose():
    loose = {p.stem for p in (PACKAGE / "hybrid").glob("*.py")} - {"__init__"}
    assert loose == set() and {p.name for p in (PACKAGE / "hybrid").iterdir() if p.is_dir()
                               and p.name != "__pycache__"} == set(HYBRID_PARTS)  # fmt: skip
