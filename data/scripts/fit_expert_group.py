"""Choose ``expert_group_us`` (energy.symbolic_parallel.expert_groups_s) on the external MoE rows.

The grouped-GEMM time per further expert a step reads, t_grp, has no datasheet value. Candidates
were written down before any was evaluated (energy_coefficients.csv, its source column):
0, 1, 2, 4, 8 µs. Each is scored by the median absolute log-ratio of the backbone's ITL to the
measured ITL on the mixture-of-experts rows of data/external_measurements.csv that the kit can ask
(a batch of at most 256 sequences: a GPUStack row that submits 500 or 1,000 requests at once is a
queue, not a batch), with the replica read as tensor parallel over its GPUs, as the table states
it. Never the ML.ENERGY leaderboard. Prints the scores; the smallest wins and is written by hand
into energy_coefficients.csv (then run update_manifest.py).

The constant is chosen once, on every source's rows, and the leave-one-source-out calibration
(hybrid/report/calibration.py) does not refit it: the held-out scores of the sources these rows
come from are in-sample for it. ``--loso`` says how much that matters: per source, the candidate
the other sources' rows choose (the same score, at the shipped constants), and the source's median
predicted/measured ITL at that choice and at the one chosen on every row.

    PYTHONPATH=$PWD .venv/bin/python data/scripts/fit_expert_group.py          # from the checkout
    PYTHONPATH=$PWD .venv/bin/python data/scripts/fit_expert_group.py --loso
"""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np
import pandas as pd

from wattgpu_lite.energy import backbone as S
from wattgpu_lite.energy.backbone import row_arrays as R
from wattgpu_lite.hybrid.predict.model import HybridState
from wattgpu_lite.hybrid.report import external as X
from wattgpu_lite.hybrid.report.external_per_gpu import source_labels
from wattgpu_lite.specs.catalog import gpu, llm

CANDIDATES_US = (0.0, 1.0, 2.0, 4.0, 8.0)
MAX_BATCH = 256


def moe_rows() -> tuple[pd.DataFrame, np.ndarray]:
    """(questions, measured ITL in s) of the external MoE rows at a batch of ≤ 256 sequences;
    the questions carry their row's ``source_title``."""
    table = X.table()
    asked, itl = [], []
    for _, row in table.iterrows():
        q = X.question(row)
        ok = isinstance(q, dict) and llm(q["llm"]).is_moe and q["batch"] <= MAX_BATCH
        if ok and np.isfinite(row["itl_ms"]):
            asked.append(q | {"source_title": row["source_title"]})
            itl.append(row["itl_ms"] / 1e3)
    return pd.DataFrame(asked), np.asarray(itl)


def log_ratios(frame: pd.DataFrame, measured: np.ndarray) -> dict[float, np.ndarray]:
    """ln(backbone ITL / measured ITL) of each row, per candidate t_grp (µs)."""
    return {t: np.log(backbone_itl_s(frame, t * 1e-6) / measured) for t in CANDIDATES_US}


def choose_us(logs: dict[float, np.ndarray], rows: np.ndarray) -> float:
    """The candidate of the least median |ln ratio| over ``rows`` (the first of a tie)."""
    scores = {t: float(np.median(np.abs(v[rows]))) for t, v in logs.items()}
    return min(scores, key=scores.get)


def leave_one_source_out(frame: pd.DataFrame, measured: np.ndarray) -> pd.DataFrame:
    """Per source: its rows, the candidate the other sources' rows choose, and the source's median
    predicted/measured ITL at that candidate and at the one every row chooses."""
    logs, source = log_ratios(frame, measured), frame["source_title"].to_numpy()
    every = choose_us(logs, np.ones(len(frame), dtype=bool))
    out = []
    for s in sorted(set(source)):
        mine = source == s
        without = choose_us(logs, ~mine)
        out.append({"source_title": s, "rows": int(mine.sum()), "chosen_on_every_row_us": every,
                    "chosen_without_it_us": without,
                    "ratio_without_it": float(np.exp(np.median(logs[without][mine]))),
                    "ratio_on_every_row": float(np.exp(np.median(logs[every][mine])))})  # fmt: skip
    return pd.DataFrame(out)


def backbone_itl_s(frame: pd.DataFrame, t_grp_s: float) -> np.ndarray:
    """The backbone's ITL at each row's batch with the expert-group time set to ``t_grp_s``."""
    rows, _ = R.build([llm(n) for n in frame["llm"]], [gpu(n) for n in frame["gpu"]],
                      frame["t_in"], frame["t_out"], num_gpus=frame["num_gpus"].astype(int).tolist(),
                      weights=list(frame["weights"]))  # fmt: skip
    rows = replace(rows, deploy=rows.deploy._replace(expert_group_s=np.full(len(frame), t_grp_s)))
    return S.step_time_s(rows, frame["batch"].to_numpy(float), HybridState.pretrained().constants)


def main(argv: list[str]) -> None:
    frame, measured = moe_rows()
    if "--loso" in argv:
        table = leave_one_source_out(frame, measured)
        table["source_title"] = table["source_title"].map(source_labels(table["source_title"]))
        print(table.to_string(index=False, float_format="{:.2f}".format))
        return
    print(f"{len(frame)} MoE rows: {frame.groupby(['llm', 'gpu']).size().to_dict()}")
    for t in CANDIDATES_US:
        ratio = backbone_itl_s(frame, t * 1e-6) / measured
        score = np.median(np.abs(np.log(ratio)))
        print(f"t_grp {t:4.1f} us: median |ln(pred/meas)| {score:.3f}, median ratio "
              f"{np.median(ratio):.2f}, MdAPE {np.median(np.abs(ratio - 1)) * 100:.1f} %")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
