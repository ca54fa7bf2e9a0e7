"""Build hook: ship every file of data/ inside the wheel as wattgpu_lite/_data/, except the
build scripts of data/scripts (they make the data; the kit only reads it).

Hatch's ``force-include`` takes whole folders and ignores ``exclude``, so the files are listed
here, one by one, when the wheel is built. tests/kit/test_packaging.py builds a wheel and checks it.
"""

from __future__ import annotations

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

LEFT_OUT = ("scripts", "__pycache__")  # folders of data/ that are not part of the kit


class DataFilesHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        data = Path(self.root) / "data"
        for path in sorted(data.rglob("*")):
            relative = path.relative_to(data)
            if path.is_file() and not set(relative.parts) & set(LEFT_OUT):
                build_data["force_include"][str(path)] = f"wattgpu_lite/_data/{relative.as_posix()}"
