"""The package surface: lazy public names and the CLI's handling of user errors."""

import pytest

import wattgpu_lite as wl
from wattgpu_lite.__main__ import COMMAND_MODULES, build_parser


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no_such_thing"):
        wl.no_such_thing  # noqa: B018


def test_every_listed_command_module_registers_a_subcommand():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert len(sub.choices) >= len(COMMAND_MODULES)
