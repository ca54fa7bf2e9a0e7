"""Which workload the paper's per-request column was computed at: Tables 3 and 4 under two readings.

Table 3 labels E_request "500/500 tokens", and Table 4 compares it with measurements at 500/500.
The printed equations reproduce that column at T_in = 500, **T_out = 300** for some rows to four
figures, and not at 500/500 for any: :func:`table3_readings` recomputes every row under both
readings, :func:`reading_counts` counts how many agree, :func:`table4_readings` does the same for
Table 4's analytical column (whose 24 B and 72 B rows name no model: we take the shapes of
Mistral-Small-24B and Qwen2.5-72B from our catalog, an assumption stated in the table).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wattgpu_lite.energy import coefficients as D
from wattgpu_lite.energy.breakdown import J_PER_WH
from wattgpu_lite.energy.paper import paper_request_j

READINGS = (500, 300)  # T_out of the two readings; T_in = 500 in both
T_IN = 500
#: Table 4 rows -> (model whose shape we use, n_layers, d_model, where the shape comes from)
TABLE4_SHAPES = {8: (36, 4096, "Qwen3-8B (Table 5)"), 24: (40, 5120, "Mistral-Small-24B (assumed)"),
                 70: (80, 8192, "Llama-3.3-70B (Table 5)"), 72: (80, 8192, "Qwen2.5-72B (assumed)")}  # fmt: skip


def _wh(params_b, n_layers, d_model, t_out) -> np.ndarray:
    """Printed equations' E_request (Wh) at T_in = 500 and ``t_out``."""
    return np.asarray(paper_request_j(np.asarray(params_b) * 1e9, n_layers, d_model, T_IN,
                                      t_out)) / J_PER_WH  # fmt: skip


def table3_readings() -> pd.DataFrame:
    """Every Table 3 row: the printed E_request and the equations' value and error (%) at
    500/500 and at 500/300."""
    t = D.paper_table3()
    out = t[["label", "architecture", "params_b", "e_request_wh"]].copy()
    for t_out in READINGS:
        wh = _wh(t["params_b"], t["n_layers"], t["d_model"], t_out)
        out[f"wh_500_{t_out}"] = wh
        out[f"error_pct_500_{t_out}"] = (wh / t["e_request_wh"] - 1) * 100
    return out


def reading_counts(readings: pd.DataFrame, limits=(0.1, 5.0, 10.0)) -> pd.DataFrame:
    """Per reading: rows within each error limit (%), rows beyond the largest, and the worst row."""
    rows = []
    for t_out in READINGS:
        err = readings[f"error_pct_500_{t_out}"].abs()
        row = {"reading": f"500/{t_out}", "rows": len(err)}
        row |= {f"within_{lim:g}_pct": int((err <= lim).sum()) for lim in limits}
        row |= {f"beyond_{limits[-1]:g}_pct": int((err > limits[-1]).sum()),
                "worst": readings.loc[err.idxmax(), "label"], "worst_error_pct": float(err.max())}  # fmt: skip
        rows.append(row)
    return pd.DataFrame(rows)


def table4_readings() -> pd.DataFrame:
    """Table 4's analytical Wh beside the equations at 500/500 and 500/300, and the measured Wh."""
    t = D.paper_table4()
    shapes = pd.DataFrame([TABLE4_SHAPES[int(p)] for p in t["params_b"]],
                          columns=["n_layers", "d_model", "shape_from"])  # fmt: skip
    out = pd.concat([t[["params_b", "analytical_wh", "measured_wh"]], shapes], axis=1)
    for t_out in READINGS:
        wh = _wh(out["params_b"], out["n_layers"], out["d_model"], t_out)
        out[f"wh_500_{t_out}"] = wh
        out[f"error_pct_500_{t_out}"] = (wh / out["analytical_wh"] - 1) * 100
    return out
