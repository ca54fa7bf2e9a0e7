"""Run every benchmark in this folder and print one table of their figures and ratios.

Each benchmark is a script that prints ``label: figure`` lines; this runner starts each in its own
process (so one cannot warm another's caches), collects those lines and prints them as one table.
Timings are figures to read, never asserts. Run: ``make bench`` or ``.venv/bin/python benchmarks/run_all.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Scripts here that rebuild shipped result files (minutes of fitting): run them by hand, not in here.
BUILDERS = ("hybrid_protocol.py",)


def benchmark_scripts() -> list[Path]:
    """Every benchmark script beside this one but the builders, in name order."""
    skip = {Path(__file__).name, *BUILDERS}
    return sorted(p for p in HERE.glob("*.py") if p.name not in skip)


def figures(script: Path) -> list[tuple[str, str, str]]:
    """(benchmark, label, figure) for each ``label: figure`` line the script prints."""
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    rows = []
    for line in out.stdout.splitlines():
        label, sep, value = line.partition(":")
        if sep and label.strip() and value.strip():
            rows.append((script.stem, label.strip(), value.strip()))
    return rows


def main() -> None:
    rows = [row for script in benchmark_scripts() for row in figures(script)]
    widths = [max(len(r[i]) for r in rows + [("benchmark", "figure", "")]) for i in range(2)]
    print(f"{'benchmark':<{widths[0]}}  {'figure':<{widths[1]}}  value")
    for bench, label, value in rows:
        print(f"{bench:<{widths[0]}}  {label:<{widths[1]}}  {value}")


if __name__ == "__main__":
    main()
