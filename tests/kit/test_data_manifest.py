"""Data integrity: every file under data/ matches the sha256 recorded in data/MANIFEST.sha256."""

from __future__ import annotations

import hashlib
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data"
FIX = "if the change is deliberate, run: .venv/bin/python data/scripts/update_manifest.py"


def recorded() -> dict[str, str]:
    lines = (DATA / "MANIFEST.sha256").read_text().splitlines()
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines)}


def present() -> set[str]:
    files = (p for p in DATA.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return {p.relative_to(DATA).as_posix() for p in files} - {"MANIFEST.sha256"}


def test_every_data_file_is_in_the_manifest_and_nothing_else():
    assert present() == set(recorded()), f"data/ and MANIFEST.sha256 list different files; {FIX}"


def test_every_data_file_matches_its_checksum():
    changed = [
        name
        for name, digest in recorded().items()
        if hashlib.sha256((DATA / name).read_bytes()).hexdigest() != digest
    ]
    assert not changed, f"changed since the manifest was written: {changed}; {FIX}"


def test_the_manifest_covers_the_measurements_and_the_shipped_models():
    names = set(recorded())
    assert {"watt_counts_runs.csv", "gpus.csv", "llms.csv"} <= names
    assert any(n.startswith("models/wattgpu/") for n in names)
