"""Rerun a subset of the nested protocol and compare it with the shipped tables (a few minutes).

    .venv/bin/python benchmarks/reproduce.py [--logo A30 ...] [--lolo openai-community/gpt2 ...]

For each outer fold asked (by default one held-out GPU and one held-out LLM), the protocol runs
from scratch — inner folds, the choice, the refit, the calibration — and its rows are compared with
data/hybrid/nested_<strategy>.csv: the same rows and chosen candidates, predictions and half-widths
within the 6 figures the file keeps. The environment of this run is printed beside the one the
tables were computed with (nested_<strategy>_environment.json): a difference there is the first
suspect when a fold does not reproduce. Exit code 1 if any fold differs.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from wattgpu_lite.datafiles import data_dir
from wattgpu_lite.hybrid.fit import protocol
from wattgpu_lite.hybrid.report import results as report
from wattgpu_lite.jsonfiles import read_json

KEYS = ["llm", "gpu", "scenario", "target", "regime", "candidate"]
RTOL = 1e-5  # the shipped CSV keeps 6 significant figures
DEFAULT = {"logo": ["A30"], "lolo": ["openai-community/gpt2"]}


def compare(strategy: str, group: str) -> list[str]:
    """What differs between a fresh run of one outer fold and the shipped rows (empty: none)."""
    live = protocol.nested(outer=strategy, groups=(group,)).reset_index(drop=True)
    shipped = report.shipped(strategy)
    shipped = shipped[shipped["held_out"] == group].reset_index(drop=True)
    if len(live) != len(shipped) or not live[KEYS].equals(shipped[KEYS]):
        return [f"{strategy} {group}: rows or chosen candidates differ"]
    out = []
    for col in ("y_pred", "q80", "q90"):
        gap = float(np.max(np.abs(live[col].to_numpy() / shipped[col].to_numpy() - 1)))
        if gap > RTOL:
            out.append(f"{strategy} {group}: {col} differs by up to {gap:.2g} (relative)")
    return out


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(data_dir().parents[0] / "benchmarks"))
    from hybrid_protocol import environment

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logo", nargs="*", default=DEFAULT["logo"], metavar="GPU")
    ap.add_argument("--lolo", nargs="*", default=DEFAULT["lolo"], metavar="LLM")
    args = ap.parse_args(argv)
    now = environment()
    problems = []
    for strategy, groups in (("logo", args.logo), ("lolo", args.lolo)):
        then = read_json(data_dir() / "hybrid" / f"nested_{strategy}_environment.json")
        changed = {k: (then.get(k), v) for k, v in now.items() if then.get(k) != v}
        print(f"{strategy}: environment differences from the shipped run: {changed or 'none'}")
        for group in groups:
            found = compare(strategy, group)
            print(f"  {group}: {'reproduced' if not found else '; '.join(found)}")
            problems += found
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
