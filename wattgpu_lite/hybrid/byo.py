"""Bring your own GPU: a spec sheet (dict) -> predictions with intervals and extrapolation notes.

The pure function behind the spec-sheet form (:func:`widgets.byo_gpu_form`):

    byo.predict_for_spec({"name": "My GPU", "bandwidth_gbs": 8000, ...}, llm=..., rate=0.1)
"""

from __future__ import annotations

import warnings

import pandas as pd

from wattgpu_lite.hybrid.extrapolation import ExtrapolationWarning
from wattgpu_lite.hybrid.model import HybridModel
from wattgpu_lite.specs.catalog import GPU, gpu

# the spec fields the form shows (the models' GPU inputs), with units in the names
FORM_FIELDS = ("name", "release_year", "base_clock_mhz", "boost_clock_mhz", "memory_gb",
               "memory_type", "bandwidth_gbs", "fp16_tflops", "transistors_m", "tdp_w")  # fmt: skip


def spec_template(like: str = "H100 NVL") -> dict:
    """A complete spec dict copied from a catalog GPU, to edit field by field."""
    row = gpu(like)
    return {f: getattr(row, f) for f in GPU.__dataclass_fields__} | {"measured": False}


def predict_for_spec(spec: dict, llm: str, rate=None, batch=None, level: float = 0.8):
    """(tidy table: quantity, value, lo, hi, unit; extrapolation notes) for a GPU from ``spec``.

    Warnings are captured and returned (the form shows them); SpecError names a bad field.
    """
    device = GPU.from_spec(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        r = HybridModel.pretrained().predict(llm, device, rate=rate, batch=batch, level=level)
    rows = [(q, r[q], r[f"{q}_lo"], r[f"{q}_hi"], u) for q, u in
            (("power_w", "W"), ("itl_s", "s"), ("time_per_token_s", "s"))]  # fmt: skip
    table = pd.DataFrame(rows, columns=["quantity", "value", "lo", "hi", "unit"])
    return table.assign(level=level, interval_basis=r["interval_basis"]), r["extrapolation"]
