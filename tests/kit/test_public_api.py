"""One coherent public API: the same argument names, types and order across
``predict``, ``predict_many``'s columns, ``explain``, ``estimate_energy`` and ``rank_gpus``: the
LLM and the GPU by position, everything else by name."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest

import wattgpu_lite as wl
from wattgpu_lite.hybrid.predict.frame_checks import NUMERIC_COLUMNS, TEXT_COLUMNS

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
# the arguments several entry points share, in the one order they take them
SHARED = ("rate_qps", "batch", "scenario", "t_in", "t_out", "level", "num_gpus", "weights",
          "parallel", "kv_cache", "engine", "max_num_seqs")  # fmt: skip
ENTRY_POINTS = ("predict", "explain", "estimate_energy", "rank_gpus")


def _params(name: str) -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(getattr(wl, name)).parameters)


def _base(annotation: str) -> str:
    """An annotation without its ``| None`` (a default of None means "not given")."""
    return annotation.replace(" | None", "")


def test_the_shared_arguments_have_one_type_and_one_default_everywhere():
    seen: dict[str, tuple[str, object]] = {}
    for fn in ENTRY_POINTS:
        for name, p in _params(fn).items():
            if name not in SHARED:
                continue
            assert p.annotation is not inspect.Parameter.empty, f"{fn}({name}) has no type"
            typed = (_base(p.annotation), p.default)
            if name in ("batch", "rate_qps", "scenario"):  # a load: None unless given
                typed = (typed[0], None)
            seen.setdefault(name, typed)
            assert typed == seen[name], f"{fn}({name}: {typed}) differs from {seen[name]}"
    assert seen["batch"][0] == "float" and seen["t_in"][0] == seen["t_out"][0] == "int"


@pytest.mark.parametrize(
    "fn",
    ["predict", "estimate_energy",
     "explain",
     "rank_gpus"],
)  # fmt: skip
def test_the_shared_arguments_come_in_one_order_after_llm_and_gpu(fn):
    params = _params(fn)
    positional = [n for n, p in params.items() if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert positional == (["llm"] if fn == "rank_gpus" else ["llm", "gpu"])  # it ranks the GPUs
    assert not any(p.kind is p.VAR_POSITIONAL for p in params.values()), "the rest by name only"
    order = [n for n in params if n in SHARED]
    assert order == [n for n in SHARED if n in order]


def test_predict_many_reads_predicts_request_arguments_as_columns():
    frame_wide = {"level", "correction", "workload", "model"}  # arguments of predict_many itself
    # a result's own: the name of a model you bring, the wall's inputs (predict_many answers at
    # the accelerator)
    not_rows = {"name", "region", "grid_gco2_per_kwh", "price_per_kwh", "pue"}
    spelled = {"parallel": ("tp", "ep")}
    not_yet = {"scenario"}  # predict_many takes rate_qps or batch per row (offline: a batch)
    columns = set(NUMERIC_COLUMNS) | set(TEXT_COLUMNS)
    for name in _params("predict"):
        if name in {"llm", "gpu"} | frame_wide | not_yet | not_rows:
            continue
        assert set(spelled.get(name, (name,))) <= columns, name
    assert set(inspect.signature(wl.predict_many).parameters) >= frame_wide


def test_batch_is_a_float_in_every_result():
    est = wl.estimate_energy(LLAMA, "A30", batch=8)
    p = wl.predict(LLAMA, "A30", batch=8)
    table = wl.rank_gpus(LLAMA, batch=8, itl_sla_ms=200, candidates=["A30"], gpu_counts=(1,))
    frame = wl.predict_many(pd.DataFrame({"llm": [LLAMA], "gpu": ["A30"], "batch": [8]}))
    assert isinstance(est.batch, float) and isinstance(p.inputs.batch, float)
    assert isinstance(table["batch"].iloc[0], float)
    # predict_many echoes its input columns as given (an int column stays int)
    assert est.batch == p.inputs.batch == table["batch"].iloc[0] == frame["batch"].iloc[0] == 8.0


def test_the_hybrid_models_docstring_names_only_what_exists():
    """Every method and :func:/:mod: target the HybridState module's docstring names exists."""
    import importlib
    import re

    from wattgpu_lite.hybrid.predict import model

    doc = model.__doc__ or ""
    for target in re.findall(r":(?:func|mod):`([\w.]+)`", doc):
        parts = target.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
            break
        else:
            raise AssertionError(f"{target} is not importable")
    for method in re.findall(r"\bm\.(\w+)\(", doc):
        assert hasattr(model.HybridState, method), method
    assert "engine." not in doc


# ---------------------------------------------------- every export visible to IDEs and pyright
def _stub_names() -> set[str]:
    import ast
    from pathlib import Path

    tree = ast.parse((Path(wl.__file__).parent / "__init__.pyi").read_text())
    names = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
             for a in node.names}  # fmt: skip
    names |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    stub_all = next(n for n in tree.body if isinstance(n, ast.Assign)
                    and n.targets[0].id == "__all__")  # fmt: skip
    assert set(ast.literal_eval(stub_all.value)) == names, "the stub's __all__ is what it imports"
    return names


def test_the_stub_all_and_the_lazy_maps_name_the_same_public_names():
    lazy = set(wl._EXPORTS) | set(wl._SUBMODULES) | {"clear_caches"}
    assert set(wl.__all__) == lazy == _stub_names()
    assert len(wl.__all__) == len(set(wl.__all__))


def test_the_stub_says_where_each_name_lives():
    import ast
    from pathlib import Path

    tree = ast.parse((Path(wl.__file__).parent / "__init__.pyi").read_text())
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                name = a.asname or a.name
                where = wl._EXPORTS.get(name) or wl._SUBMODULES[name]
                stub_where = node.module.removeprefix("wattgpu_lite").lstrip(".")
                if name in wl._EXPORTS:
                    assert stub_where == where, name
                else:
                    assert f"{stub_where}.{a.name}".lstrip(".") == where, name


@pytest.mark.parametrize("name", sorted(wl.__all__))
def test_every_public_name_resolves(name):
    assert getattr(wl, name) is not None
    assert name in dir(wl)


@pytest.mark.parametrize("name", sorted(wl.__all__))
def test_every_public_name_is_documented(name):
    """What ``help(wl.name)`` shows says what the name is (wherever it is defined)."""
    doc = inspect.getdoc(getattr(wl, name))
    assert doc and len(doc.split()) >= 5, f"wl.{name} has no docstring a reader can use"
