"""Bring your own GPU: a spec sheet (dict) -> predictions with intervals and notes.

The pure function behind the spec-sheet form (:func:`wattgpu_lite.face.widgets.byo_gpu_form`):

    byo.predict_for_spec({"name": "My GPU", "bandwidth_gbs": 8000, ...}, llm=..., rate_qps=0.1)
"""

from __future__ import annotations

import pandas as pd

from wattgpu_lite.hybrid.predict.api import predict
from wattgpu_lite.specs.catalog import GPU, gpu

# the spec fields the form shows (the predictor's GPU inputs), with units in the names
FORM_FIELDS = ("name", "release_year", "architecture", "memory_gb", "memory_type",
               "bandwidth_gbs", "fp16_tflops", "tdp_w")  # fmt: skip
UNITS = {"power_w": "W", "itl_s": "s", "time_per_token_s": "s", "energy_per_token_j": "J"}


def spec_template(like: str = "H100 NVL") -> dict:
    """A complete spec dict copied from a catalog GPU, to edit field by field."""
    row = gpu(like)
    return {f: getattr(row, f) for f in GPU.__dataclass_fields__} | {"measured": False}


def predict_for_spec(spec: dict, llm: str, rate_qps=None, batch=None, level: float = 0.8):
    """(tidy table: quantity, value, lo, hi, unit, level, basis; notes) for a GPU from ``spec``.

    SpecError names a bad field; CapacityError says when the load is beyond the GPU.
    """
    p = predict(llm, GPU.from_spec(spec), rate_qps=rate_qps, batch=batch, level=level)
    table = pd.DataFrame(p.rows(), columns=["quantity", "value", "lo", "hi"])
    table["unit"] = table["quantity"].map(UNITS)
    return table.assign(level=level, basis=p.power_w_interval.basis), p.notes
