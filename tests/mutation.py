"""A small mutation run over the kit's core numeric code: ``make mutation``.

Each mutant changes one thing in one function (an arithmetic or comparison operator, a numeric
constant by 10 %, ``median``/``mean``, ``max``/``min``, a divisor ``x`` to ``x + 1``, or one of the
NAMED mutants below, which earlier suites let through). The mutated module is written into a
private copy of the repository and the tests that cover it run with ``pytest -x``; a mutant is
killed when they fail. Two copies run side by side (2 cores), each serving one mutant at a time.

    python tests/mutation.py            # every target; prints the score and the survivors
    python tests/mutation.py --list     # the mutants, without running them

A survivor listed in EQUIVALENT (with why) changes no observable behaviour and leaves the score.
"""

from __future__ import annotations

import argparse
import ast
import copy
import queue
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = "wattgpu_lite"
# module -> (functions to mutate, "*" for module-level constants too; the tests that cover them)
TARGETS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "specs/workload.py": (("*", "server_time_per_token_s"), ("tests/kit/test_mutation_oracles.py", "tests/wattgpu/test_predictors.py::test_predictions_are_physical", "tests/kit/test_golden.py")),
    "energy/breakdown.py": (("breakdown_frame",), ("tests/kit/test_mutation_oracles.py", "tests/kit/test_golden.py")),
    "metrics.py": (("ape_pct", "mdape_pct"), ("tests/kit/test_mutation_oracles.py", "tests/kit/test_each_concept_once.py")),
    "wattgpu/metrics.py": (("pearson_r",), ("tests/kit/test_mutation_oracles.py",)),
    "wattgpu/evaluation.py": (("folds",), ("tests/kit/test_mutation_oracles.py",)),
    "wattgpu/predictor.py": (("predict_frame",), ("tests/wattgpu/test_predictors.py::test_predictions_are_physical", "tests/kit/test_golden.py")),
    "wattgpu/regressor.py": (("target_values", "to_natural", "training_rows", "_version"), ("tests/kit/test_mutation_oracles.py", "tests/kit/test_golden.py")),
    "runs/schema.py": (("*", "scenario_for_rate", "scenario_group"), ("tests/kit/test_mutation_oracles.py", "tests/runs/test_measurements.py")),
    "specs/hf_config.py": (("kv_heads",), ("tests/kit/test_mutation_oracles.py", "tests/specs/test_catalog.py")),
    "checks.py": (("check_number", "check_count", "check_flag", "check_tokens", "shown"), ("tests/kit/test_checks.py",)),
    "energy/backbone/step_power.py": (("gpu_idle_power_w", "idle_power_w", "step_time_s", "raw_busy_power_w"), ("tests/energy/test_hybrid_serving.py", "tests/kit/test_mutation_oracles.py", "tests/kit/test_golden.py::test_hybrid_predictions_are_pinned", "tests/hybrid/test_predict_api.py", "tests/energy/test_backbone_searches.py")),
    "energy/backbone/__init__.py": (("busy_power_w", "capacity_qps", "at_batch", "at_rate", "rate_loads"), ("tests/energy/test_hybrid_serving.py", "tests/kit/test_mutation_oracles.py", "tests/kit/test_golden.py::test_hybrid_predictions_are_pinned", "tests/hybrid/test_predict_api.py", "tests/energy/test_backbone_searches.py")),
    "hybrid/fit/conformal.py": (("weighted_quantile", "group_quantile"), ("tests/hybrid/test_hybrid_conformal.py", "tests/kit/test_mutation_oracles.py", "tests/kit/test_golden.py::test_hybrid_predictions_are_pinned")),
    "hybrid/predict/steps.py": (("predict_arrays", "backbone_step", "rows_backbone", "bounds_step"), ("tests/hybrid/test_predict_api.py", "tests/hybrid/test_steps.py", "tests/kit/test_mutation_oracles.py", "tests/kit/test_golden.py::test_hybrid_predictions_are_pinned", "tests/hybrid/test_bounds.py")),
    "hybrid/predict/interval_steps.py": (("intervals_step", "_q_of", "bounded_intervals", "cell_step", "cross_source_widths", "_cell_quantiles"), ("tests/hybrid/test_predict_api.py", "tests/hybrid/test_steps.py", "tests/hybrid/test_cross_source_intervals.py", "tests/kit/test_mutation_oracles.py", "tests/kit/test_golden.py::test_hybrid_predictions_are_pinned", "tests/hybrid/test_bounds.py")),
    "hybrid/predict/one_row.py": (("one_row_backbone",), ("tests/hybrid/test_predict_api.py", "tests/hybrid/test_steps.py", "tests/kit/test_mutation_oracles.py", "tests/kit/test_golden.py::test_hybrid_predictions_are_pinned", "tests/hybrid/test_bounds.py")),
    "hybrid/predict/intervals.py": (("basis_code_of", "q_at", "excess_efolds", "outside_support"), ("tests/hybrid/test_predict_api.py", "tests/hybrid/test_hybrid_conformal.py", "tests/kit/test_mutation_oracles.py", "tests/kit/test_golden.py::test_hybrid_predictions_are_pinned")),
    "hybrid/predict/result.py": (("status_of", "itl_interval_codes"), ("tests/hybrid/test_predict_api.py", "tests/hybrid/test_cross_source_intervals.py", "tests/kit/test_mutation_oracles.py")),
    "hybrid/predict/bounds.py": (("*", "floor_step_s", "bounded", "energy_bounds"), ("tests/hybrid/test_bounds.py", "tests/kit/test_golden.py::test_hybrid_predictions_are_pinned")),
    "hybrid/report/results.py": (("width_hi_lo", "interval_score"), ("tests/hybrid/test_interval_scores.py", "tests/kit/test_readme_findings.py")),
}  # fmt: skip
# (module, old text, new text, label): mutants an earlier suite let survive
NAMED = [
    ("energy/breakdown.py", 'df["energy_j"] / t_out', 'df["energy_j"] / (t_out + 1)', "per-output-token energy / (t_out+1)"),
    ("metrics.py", "float(np.median(ape))", "float(np.mean(ape))", "median error computed as a mean"),
    ("wattgpu/evaluation.py", 'else frame["llm"] + "|" + frame["gpu"]', 'else frame["llm"]', "CV folds grouped by LLM only"),
    ("specs/workload.py", "DEFAULT_T_OUT = 180", "DEFAULT_T_OUT = 198", "default output length +10 %"),
    ("specs/hf_config.py", 'return 1 if flag(cfg, "multi_query") in (True, None) else n_heads', "return n_heads", "multi_query ignored"),
    ("hybrid/fit/conformal.py", "return max(q_level, q_floor)", "return min(q_level, q_floor)", "interval floor max -> min (the successor of logo+lolo max)"),
    ("hybrid/predict/bounds.py", "value = power[0] * time[0]", "value = power[0] * time[2]", "energy from the upper time bound"),
    ("hybrid/predict/interval_steps.py", "v / backbone_result.physics[\"in_flight\"], fixed)", "v, fixed)", "batch time per token not divided by the batch"),
]  # fmt: skip
NAMED_TESTS: dict[str, tuple[str, ...]] = {}
# mutant key (module function: `code` what; line numbers left out, so an edit elsewhere in the
# module keeps the entry) -> why the mutant cannot change behaviour
FAST_PATH = ("check_tokens' fast path: a pair it turns away goes on to check_count and the "
             "context test below, which return the same numbers or raise")  # fmt: skip
ONE_ROW = ("a one-row path on the row's floats: a row that takes the arrays' path instead gets the "
           "same values (the same operations in the same order), and many rows never take it")  # fmt: skip
EQUIVALENT: dict[str, str] = {
    "checks.py check_tokens: `_within(t_in, 1, limit)` 1 x 1.1": FAST_PATH,
    "checks.py check_tokens: `_within(t_out, 1, limit)` 1 x 1.1": FAST_PATH,
    "checks.py check_tokens: `context_length is None or int(n_in) + int(n_out) <= limit` Or -> And": FAST_PATH,
    "checks.py check_tokens: `int(n_in) + int(n_out) <= limit` LtE -> Lt": FAST_PATH,
    "checks.py check_tokens: `context_length is not None and t_in + t_out > limit` And -> Or": "reached only after the fast path refused the pair: with a context length given, both counts valid and the sum within it, the fast path has already returned",
    "checks.py check_tokens: `t_in + t_out > limit` Gt -> GtE": "a sum exactly at the context length is returned by the fast path and never reaches this test",
    "checks.py check_number: `lo <= number <= hi` LtE -> Lt": "reached only after _within refused the value; a finite real at exactly lo was accepted there",
    "wattgpu/metrics.py pearson_r: `len(t) < 2 or np.std(t) == 0 or np.std(p) == 0` Or -> And": "np.corrcoef of a constant input is NaN too, as the guard returns",
    "energy/backbone/__init__.py rate_loads: `np.maximum(busy, 1e-300)` 1e-300 x 1.1": "a guard against 0/0: where no request is in flight the busy share is 0 and P_busy drops out",
    "energy/backbone/__init__.py rate_loads: `load.shape == (1,) and np.shape(cap) == (1,)` And -> Or": ONE_ROW,
    "energy/backbone/__init__.py rate_loads: `load.shape == (1,)` Eq -> NotEq": ONE_ROW,
    "energy/backbone/__init__.py rate_loads: `np.shape(cap) == (1,)` Eq -> NotEq": ONE_ROW,
    "energy/backbone/__init__.py rate_loads: `load.shape == (1,)` 1 x 1.1": ONE_ROW,
    "energy/backbone/__init__.py rate_loads: `np.shape(cap) == (1,)` 1 x 1.1": ONE_ROW,
    "energy/backbone/__init__.py rate_loads: `maximum(u, 1e-300)` 1e-300 x 1.1": "a guard against 0/0 (one row's floats): where no request is in flight the busy share is 0 and P_busy drops out",
    "hybrid/predict/intervals.py excess_efolds: `v.shape[1] == 1` 1 x 1.1": ONE_ROW,
    "hybrid/fit/conformal.py group_quantile: `1.0 / counts[codes]` 1.0 x 1.1": "scaling every weight by one factor leaves a weighted quantile where it is",
    "hybrid/fit/conformal.py weighted_quantile: `level * cum[-1] - 1e-12` 1e-12 x 1.1": "a rounding tolerance on the cumulative weight; 1.1e-12 picks the same score",
    "hybrid/fit/conformal.py weighted_quantile: `len(scores) - 1` Sub -> Add": "a guard: for level <= 1 the search index is already at most n - 1",
    "hybrid/predict/steps.py predict_arrays: `default 0.8` 0.8 x 1.1": "an unused default: every caller passes the level",
    "hybrid/predict/steps.py predict_arrays: `default 1` 1 x 1.1": "an unused default: every caller passes the layout (num_gpus)",
    "hybrid/predict/steps.py rows_backbone: `np.maximum(cap, 1.0)` 1.0 x 1.1": "the cap is a whole number of sequences: from 1 up the floor changes nothing; at 0 (the weights do not fit) the capacity is 0 and every number NaN",
    "hybrid/predict/interval_steps.py intervals_step: `rows.bandwidth / 1000000000.0` divisor + 1": "bandwidth / (1e9 + 1): a change of 1e-9, inside the support tolerance",
    "hybrid/predict/interval_steps.py intervals_step: `rows.flops / 1000000000000.0` divisor + 1": "FLOP/s / (1e12 + 1): a change of 1e-12, inside the support tolerance",
    "hybrid/predict/interval_steps.py intervals_step: `len(code) > 1` Gt -> GtE": "a shortcut: np.unique of one code is that code",
    "hybrid/predict/interval_steps.py intervals_step: `len(code) > 1` 1 x 1.1": "a shortcut: a code named twice is looked up twice, the same q",
    "hybrid/predict/interval_steps.py cell_step: `rows.num_gpus > 1` 1 x 1.1": "GPUs per replica are whole numbers: > 1 and > 1.1 hold for the same counts",
    "hybrid/predict/interval_steps.py intervals_step: `len(code) == 1` Eq -> NotEq": "a memo: the q table kept (one_config.kept_fact, keyed by the codes and the level) or made afresh is the same table",
    "hybrid/predict/interval_steps.py intervals_step: `len(code) == 1` 1 x 1.1": "a memo: the q table kept (one_config.kept_fact, keyed by the codes and the level) or made afresh is the same table",
    "hybrid/predict/interval_steps.py _q_of: `2 * len(intervals.BASES)` 2 x 1.1": "a longer table of half-widths: the codes index the same entries",
    "hybrid/predict/intervals.py excess_efolds: `np.maximum([values[name] for name in WATCHED], 1e-12)` 1e-12 x 1.1": "a guard against log(0): no watched input is near 1e-12",
    "hybrid/predict/bounds.py <module>: `UNBOUNDED_W = 1e+300` 1e+300 x 1.1": "any power limit no step reaches disables the ceiling the same way",
}  # fmt: skip
SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
         ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
         ast.NotEq: ast.Eq, ast.And: ast.Or, ast.Or: ast.And}  # fmt: skip
CALLS = {"median": "mean", "mean": "median", "max": "min", "min": "max", "maximum": "minimum",
         "minimum": "maximum"}  # fmt: skip


@dataclass(frozen=True)
class Mutant:
    module: str
    label: str  # where, for a reader: "module:line what"
    source: str  # the whole mutated module
    key: str = ""  # what, kept across edits elsewhere: "module function: `code` what"


def _in_scope(tree: ast.Module, functions: tuple[str, ...]) -> list[ast.AST]:
    """Nodes of the named functions (and of module-level assignments when "*" is listed)."""
    roots = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    funcs = [
        f
        for r in roots
        for f in ast.walk(r)
        if isinstance(f, ast.FunctionDef) and f.name in functions
    ]
    tops = (
        [n for n in tree.body if isinstance(n, ast.Assign | ast.AnnAssign)]
        if "*" in functions
        else []
    )
    return [node for root in funcs + tops for node in ast.walk(root)]


def _edits(node: ast.AST):
    """(description, function that mutates a deep copy of the node in place) for one node."""
    if isinstance(node, ast.BinOp | ast.BoolOp) and type(node.op) in SWAPS:
        yield (
            f"{type(node.op).__name__} -> {SWAPS[type(node.op)].__name__}",
            lambda n: setattr(n, "op", SWAPS[type(n.op)]()),
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        yield (
            "divisor + 1",
            lambda n: setattr(n, "right", ast.BinOp(n.right, ast.Add(), ast.Constant(1))),
        )
    if isinstance(node, ast.Compare) and type(node.ops[0]) in SWAPS:
        yield (
            f"{type(node.ops[0]).__name__} -> {SWAPS[type(node.ops[0])].__name__}",
            lambda n: n.ops.__setitem__(0, SWAPS[type(n.ops[0])]()),
        )
    if (
        isinstance(node, ast.Constant)
        and type(node.value) in (int, float)
        and node.value not in (0,)
    ):
        yield f"{node.value!r} x 1.1", lambda n: setattr(n, "value", _bumped(n.value))
    if isinstance(node, ast.Call):
        name = (
            node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        )
        if name in CALLS:
            yield f"{name}() -> {CALLS[name]}()", lambda n: _rename_call(n, CALLS[name])
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "drop not", None  # handled by the caller (replaces the node)


def _owners(tree: ast.Module) -> dict[int, str]:
    """The enclosing function's name of every node (by id), "<module>" outside functions."""
    owner = {id(n): "<module>" for n in ast.walk(tree)}
    for func in (f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)):
        for n in ast.walk(func):  # nested functions are walked later and win
            owner[id(n)] = func.name
    return owner


def _code(node: ast.AST, parents: dict[int, ast.AST]) -> str:
    """The mutated code as a key shows it: the node, or for a bare constant its parent
    expression (a constant alone says too little; a slice's bound, the subscript), at most 70
    characters."""
    shown = parents.get(id(node), node) if isinstance(node, ast.Constant) else node
    while isinstance(shown, ast.Slice | ast.Tuple) and id(shown) in parents:
        shown = parents[id(shown)]  # a slice's bound: the subscript it slices (`x[None, 1:]`)
    if isinstance(shown, ast.arguments):  # a parameter's default value
        return f"default {ast.unparse(node)}"
    text = " ".join(ast.unparse(shown).split())
    return text if len(text) <= 70 else text[:67] + "..."


def _bumped(value):
    new = value * 1.1
    return (round(new) if round(new) != value else value + 1) if isinstance(value, int) else new


def _rename_call(node: ast.Call, name: str) -> None:
    if isinstance(node.func, ast.Attribute):
        node.func.attr = name
    else:
        node.func.id = name


def generated(module: str, functions: tuple[str, ...], sources: bool = True) -> list[Mutant]:
    """Every operator mutant of ``module`` within ``functions``, as whole mutated sources
    (``sources=False``: labels and keys only, the source left empty)."""
    text = (ROOT / PKG / module).read_text()
    tree = ast.parse(text)
    targets = {id(n) for n in _in_scope(tree, functions) if hasattr(n, "lineno")}
    owner = _owners(tree)
    parents = {id(c): n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    out = []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) not in targets:
            continue
        for what, change in _edits(node):
            source = ""
            if sources:
                mutated = copy.deepcopy(tree)
                twin = list(ast.walk(mutated))[index]
                if change is None:  # drop `not`: replace the UnaryOp by its operand in its parent
                    _replace_in_parent(mutated, twin, twin.operand)
                else:
                    change(twin)
                source = ast.unparse(ast.fix_missing_locations(mutated))
            key = f"{module} {owner[id(node)]}: `{_code(node, parents)}` {what}"
            out.append(Mutant(module, f"{module}:{node.lineno} {what}", source, key))
    return out


def _replace_in_parent(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
            elif isinstance(value, list) and old in value:
                value[value.index(old)] = new


def named() -> list[Mutant]:
    out = []
    for module, old, new, label in NAMED:
        text = (ROOT / PKG / module).read_text()
        if old in text:
            name = f"NAMED {label}"
            out.append(Mutant(module, name, text.replace(old, new, 1), name))
        else:
            print(f"  (named mutant not applicable, code moved: {label} in {module})")
    return out


def run(mutant: Mutant, copy_root: Path) -> bool:
    """True if the covering tests fail on the mutant (killed)."""
    path = copy_root / PKG / mutant.module
    original = path.read_text()
    path.write_text(mutant.source)
    tests = TARGETS.get(mutant.module, ((), NAMED_TESTS.get(mutant.module, ())))[1]
    try:
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
        env = {"PYTHONPATH": str(copy_root), "PATH": "/usr/bin:/bin", "HOME": str(copy_root)}
        proc = subprocess.run(cmd, cwd=copy_root, capture_output=True, env=env, timeout=600)
        return proc.returncode != 0
    except subprocess.TimeoutExpired:
        return True  # a mutant that hangs the tests is detected
    finally:
        path.write_text(original)


def _copy(dest: Path) -> Path:
    for part in (PKG, "tests", "data"):
        shutil.copytree(ROOT / part, dest / part, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("conftest.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, dest / name)
    return dest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--only", help="run only mutants whose label or key contains this text")
    args = parser.parse_args()
    mutants = named() + [m for mod, (fn, _) in TARGETS.items() for m in generated(mod, fn)]
    mutants = [m for m in mutants if not args.only or args.only in f"{m.label} {m.key}"]
    if args.list:
        mutants = named() + [
            m for mod, (fn, _) in TARGETS.items() for m in generated(mod, fn, False)
        ]
        mutants = [m for m in mutants if not args.only or args.only in f"{m.label} {m.key}"]
        print("\n".join(f"{m.label}  [{m.key}]" for m in mutants), f"\n{len(mutants)} mutants")
        return 0
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        free: queue.Queue[Path] = queue.Queue()  # a copy serves one mutant at a time
        for folder in (a, b):
            free.put(_copy(Path(folder)))

        def one(mutant: Mutant) -> bool:
            copy_root = free.get()
            try:
                k = run(mutant, copy_root)
            finally:
                free.put(copy_root)
            print(f"{'killed  ' if k else 'SURVIVED'}  {mutant.label}", flush=True)
            return k

        with ThreadPoolExecutor(2) as pool:
            killed = list(pool.map(one, mutants))
    survivors = [m for m, k in zip(mutants, killed, strict=True) if not k]
    counted = [(m, k) for m, k in zip(mutants, killed, strict=True) if m.key not in EQUIVALENT]
    score = 100 * sum(k for _, k in counted) / len(counted)
    for m in survivors:
        why = EQUIVALENT.get(m.key)
        print(f"SURVIVED  {m.label}  [{m.key}]" + (f"  (equivalent: {why})" if why else ""))
    for m, k in zip(mutants, killed, strict=True):
        if m.label.startswith("NAMED"):
            print(f"{'killed  ' if k else 'SURVIVED'}  {m.label}")
    print(f"mutation score: {score:.1f} % of {len(counted)} non-equivalent mutants killed")
    return 0 if score >= 90 else 1


if __name__ == "__main__":
    sys.exit(main())
