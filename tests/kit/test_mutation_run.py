"""The mutation run's own bookkeeping (tests/mutation.py, ``make mutation``): every mutant it
calls equivalent exists in the code as it is now, and every named mutant still applies — so an
edit cannot silently drop a mutant from the score or excuse one that no longer exists."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

MUTATION = Path(__file__).parents[1] / "mutation.py"


@pytest.fixture(scope="module")
def mutation():
    spec = importlib.util.spec_from_file_location("mutation_run", MUTATION)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def test_every_equivalent_mutant_is_one_the_run_makes(mutation):
    keys = {
        m.key for mod, (fns, _) in mutation.TARGETS.items() for m in mutation.generated(mod, fns)
    }
    assert sorted(set(mutation.EQUIVALENT) - keys) == []


def test_every_named_mutant_applies_to_the_code_as_it_is(mutation, capsys):
    made = mutation.named()
    assert len(made) == len(mutation.NAMED)
    assert "not applicable" not in capsys.readouterr().out


def test_a_key_names_the_function_and_code_not_the_line(mutation):
    """Keys stay when lines move: module, enclosing function, the code mutated, the change."""
    keys = [m.key for m in mutation.generated("checks.py", ("shown",), sources=False)]
    assert "checks.py shown: `len(text) <= 40` LtE -> Lt" in keys
    assert all(":" not in k.split(" ")[0] for k in keys)  # no "module:line"
