"""Physics-informed features: the energy model's physical mode and roofline, at a numeric load.

Per row (an LLM on a GPU at a load, :mod:`wattgpu_lite.hybrid.load`), with b = max(L, 1) sequences
sharing each decode step:

- ``log_in_flight`` = ln L and ``busy_fraction`` = 1 − exp(−L) (offline: 1);
- ``log_roofline_itl_s`` = ln(t_req(b) · b / T_out): the per-request ITL of the roofline, with
  t_req the roofline time per request (:func:`energy_physical.active_time_s`, batch time / b);
- ``log_phys_energy_per_token_j`` = ln(E_req(b) / T_out), E_req the physical-mode energy per
  request (compute + traffic + static over the active time);
- ``phys_power_ratio`` = (P_static + (E_req / t_req − P_static) · busy_fraction) / TDP: the
  physical mode's mean power while busy, diluted by the idle share, as a fraction of TDP;
- ``legacy_attention`` = 1 on NVIDIA architectures before Ampere (compute capability < 8.0),
  where vLLM has no FlashAttention backend and falls back to slower xFormers kernels in FP16
  (no BF16): a property of the software stack read off the spec sheet's architecture.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from wattgpu_lite.energy import physical as P
from wattgpu_lite.hybrid.load import busy_fraction, in_flight, workload_columns
from wattgpu_lite.specs.catalog import GPU, LLM, gpu, llm

LEGACY_ARCHITECTURES = ("Kepler", "Maxwell", "Pascal", "Volta", "Turing")
PHYSICS_FEATURES: tuple[str, ...] = (
    "log_in_flight", "busy_fraction", "log_roofline_itl_s", "log_phys_energy_per_token_j",
    "phys_power_ratio",
)  # fmt: skip


def _pair_physics(model: LLM, device: GPU, work: pd.DataFrame) -> pd.DataFrame:
    """Physics columns for the rows ``work`` (t_in, t_out, rate_qps, batch) of one pair."""
    c = P.defaults()
    t_in, t_out = work["t_in"].to_numpy(), work["t_out"].to_numpy()
    rate, batch, n_req = (work[c].to_numpy() for c in ("rate_qps", "batch", "n_requests"))
    load = in_flight(model, device, t_in, t_out, rate, batch, n_req)
    b = np.maximum(load, 1.0)
    hw = P.gpu_args(device, c["static_fraction"])
    args = (P.llm_args(model), (t_in, t_out, b), hw, c["kappa"])
    t_req = P.active_time_s(*args)
    e_req = sum(P.physical_terms_j(*args).values())
    busy = np.where(np.isfinite(work["rate_qps"].to_numpy()), busy_fraction(load), 1.0)
    p_static = hw[5]
    power = p_static + (e_req / t_req - p_static) * busy
    return pd.DataFrame({
        "in_flight": load, "log_in_flight": np.log(load), "busy_fraction": busy,
        "log_roofline_itl_s": np.log(t_req * b / t_out),
        "log_phys_energy_per_token_j": np.log(e_req / t_out),
        "phys_power_ratio": power / device.tdp_w,
        "legacy_attention": float(device.architecture in LEGACY_ARCHITECTURES),
    }, index=work.index)  # fmt: skip


def physics_frame(
    frame: pd.DataFrame,
    llms: Mapping[str, LLM] | None = None,
    gpus: Mapping[str, GPU] | None = None,
) -> pd.DataFrame:
    """The physics columns of every row of a feature frame (columns llm, gpu, and the load:
    scenario or rate_qps / batch; token counts prompt_tokens / generated_tokens if present).

    ``llms`` / ``gpus`` map names to objects not in the catalogs (e.g. ``GPU.from_spec``).
    """
    work = workload_columns(frame)
    parts = []
    for (m, g), idx in frame.groupby(["llm", "gpu"], sort=False).groups.items():
        model = (llms or {}).get(m) or llm(m)
        device = (gpus or {}).get(g) or gpu(g)
        parts.append(_pair_physics(model, device, work.loc[idx]))
    return pd.concat(parts).loc[frame.index]


def log_spec_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """ln of the paper's spec latencies and rates (inputs of the linear stage, which
    extrapolates in log space where trees cannot)."""
    cols = ("bandwidth_latency_s", "compute_latency_s", "bandwidth_gbs", "fp16_tflops")
    return pd.DataFrame({f"log_{c}": np.log(frame[c].astype(float)) for c in cols}, frame.index)


def add_physics(frame: pd.DataFrame, llms=None, gpus=None) -> pd.DataFrame:
    """``frame`` with the physics columns, ``in_flight`` and the log spec columns added."""
    extra = physics_frame(frame, llms, gpus).join(log_spec_columns(frame))
    return frame.drop(columns=[c for c in extra if c in frame]).join(extra)
