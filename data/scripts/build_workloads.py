"""Print the Azure rows of data/workloads.csv from the two files of the Azure LLM inference trace 2023.

Usage: ``python data/scripts/build_workloads.py CONV.csv CODE.csv`` with the files
``data/AzureLLMInferenceTrace_conv.csv`` and ``data/AzureLLMInferenceTrace_code.csv`` of
github.com/Azure/AzurePublicDataset at commit b469a113cedca53ddc3bdea71a143dc4b7d8700c (their sha256
are checked). Not run by the tests (the files are not shipped); data/SOURCES.md cites them.
"""

from __future__ import annotations

import csv
import hashlib
import statistics
import sys
from pathlib import Path

SHA256 = {
    "conv": "2f1e5b666d4e3055fdbba98598ce2ec307767b9064e03e2fa46676dbcc7d0bf8",
    "code": "54e9a6d2a4bd06ba1e060304b900abbc74cbea53de96506e60fe5bb4f2277fb6",
}


def rows(kind: str, path: Path) -> list[tuple]:
    """(name, t_in, t_out, statistic, t_in_reported, t_out_reported, requests) for the mean and
    the median of one trace file."""
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != SHA256[kind]:
        raise SystemExit(f"{path}: not the pinned AzureLLMInferenceTrace_{kind}.csv")
    reader = csv.DictReader(data.decode().splitlines())
    pairs = [(int(r["ContextTokens"]), int(r["GeneratedTokens"])) for r in reader]
    t_in, t_out = [p[0] for p in pairs], [p[1] for p in pairs]
    out = []
    for stat, fn in (("mean", statistics.fmean), ("median", statistics.median)):
        a, b = fn(t_in), fn(t_out)
        name = f"azure-{kind}-2023" + ("" if stat == "mean" else "-median")
        out.append((name, round(a), round(b), stat, round(a, 3), round(b, 3), len(pairs)))
    return out


def main(conv: str, code: str) -> None:
    for kind, path in (("conv", conv), ("code", code)):
        for row in rows(kind, Path(path)):
            print(",".join(str(x) for x in row))


if __name__ == "__main__":
    main(*sys.argv[1:3])
