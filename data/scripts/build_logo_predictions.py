"""Build data/wattgpu_logo_predictions.csv: WattGPU's predictions for each measured GPU made by a
model that never saw that GPU's runs (leave-one-GPU-out), for every catalog LLM and scenario.

    .venv/bin/python data/scripts/build_logo_predictions.py

Eight fits of the two XGBoost models take minutes on a laptop; the table lets notebook 05 and
``rank_gpus(source="logo")`` answer at once. Deterministic (seed 0, hist trees);
tests/selection/test_selection_logo.py refits one GPU's model and checks its rows.
"""

from __future__ import annotations

import pandas as pd

import wattgpu_lite as wl
from wattgpu_lite.runs.measurements import MEASURED_GPUS, SCENARIOS
from wattgpu_lite.selection.sources import LOGO_SOURCE, logo_path, logo_predictor
from wattgpu_lite.wattgpu.features import feature_frame


def held_out_rows(gpu_name: str) -> pd.DataFrame:
    """Predictions for every dense 16-bit catalog LLM (what WattGPU knows) and scenario on
    ``gpu_name``, fitted without it: the trees' raw output, the published model's as it is.

    Not ``predict_frame``, which refuses an ITL below the physical floor (NaN): the table keeps
    every prediction, and ``selection.sources.logo_rows`` refuses such a row when it answers."""
    dense = wl.llms().query("n_experts == 0 and weight_bits == 16")
    frame = feature_frame(list(dense["name"]), [gpu_name], SCENARIOS)
    models = logo_predictor(gpu_name).models
    raw = {"power_w": models["power"].predict(frame), "itl_s": models["itl"].predict(frame)}
    return frame[["llm", "gpu", "scenario"]].assign(**raw, source=LOGO_SOURCE)


def main() -> None:
    table = pd.concat([held_out_rows(g) for g in MEASURED_GPUS], ignore_index=True)
    table.to_csv(logo_path(), index=False, float_format="%.10g")
    print(f"wrote {len(table)} rows to {logo_path().name}")


if __name__ == "__main__":
    main()
