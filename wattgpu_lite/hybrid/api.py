"""``wl.predict``: one (LLM, GPU) at a load, from the shipped models.

The calibrated hybrid (:mod:`wattgpu_lite.hybrid.model`) by default; WattGPU exactly as published
(:mod:`wattgpu_lite.wattgpu.predictor`) with ``config="paper"``.
"""

from __future__ import annotations

from wattgpu_lite.errors import InvalidInputError
from wattgpu_lite.hybrid.model import HybridModel
from wattgpu_lite.wattgpu.predictor import WattGPU


def predict(
    llm, gpu, scenario: str | None = None, *, rate: float | None = None,
    batch: float | None = None, level: float = 0.8, config: str = "hybrid",
) -> dict:  # fmt: skip
    """Power, ITL and energy per token for one (LLM, GPU), from the shipped models.

    ``config="hybrid"`` (default, the best of the ablation in notebook 06): any load — a Watt Counts
    ``scenario``, a request ``rate`` (req/s) or a fixed ``batch`` — with split-conformal
    ``*_lo``/``*_hi`` bounds at ``level``, the ``interval_basis`` (cv / logo / lolo: which held-out
    residuals calibrate it) and an ``extrapolation`` note. ``itl_s`` is per request;
    ``time_per_token_s`` is the aggregate 1/throughput; energy per token = power × time per token.
    ``config="paper"``: WattGPU exactly as published — a scenario only, point predictions.
    """
    if config == "paper":
        if rate is not None or batch is not None or scenario is None:
            raise InvalidInputError(
                "config='paper' knows only the three Watt Counts scenarios: pass scenario= "
                "(offline, server_low, server_high), or use config='hybrid' for rate= or batch="
            )
        return WattGPU.pretrained().predict(llm, gpu, scenario) | {"config": "paper"}
    if config != "hybrid":
        raise InvalidInputError(f"config must be 'hybrid' or 'paper', got {config!r}")
    if scenario is None and rate is None and batch is None:
        raise InvalidInputError("pass one of scenario=, rate= (requests/s) or batch= (sequences)")
    return HybridModel.pretrained().predict(llm, gpu, scenario, rate=rate, batch=batch, level=level)
