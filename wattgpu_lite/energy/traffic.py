"""Memory traffic in bytes, before any joule: what physical mode's terms multiply by e.

:func:`bytes_table` evaluates the bit counts of :data:`wattgpu_lite.energy.symbolic_physical.bits`
(weights read, KV writes, attention reads, per phase) for one model and workload, per request and
per generated token (notebook 02's first table).
"""

from __future__ import annotations

import pandas as pd
import sympy as sp

from wattgpu_lite.energy import symbolic_physical
from wattgpu_lite.energy.args import llm_args
from wattgpu_lite.energy.codegen import WORDS

TRAFFIC = ("parameter_reads", "kv_writes", "attention_reads")
_KEYS = tuple((ph, c) for ph in symbolic_physical.PHASES for c in TRAFFIC)
_BITS = sp.lambdify(
    (symbolic_physical.MODEL, symbolic_physical.WORKLOAD),  # (model record, workload)
    [symbolic_physical.bits[ph][c].subs(WORDS) for ph, c in _KEYS],
    "numpy",
)


def bytes_table(llm, t_in: int, t_out: int, batch: int = 1, weights=None) -> pd.DataFrame:
    """Bytes per request (the request's share of the batch's weight reads) and per generated token,
    by phase and component: phase, component, bytes_per_request, bytes_per_output_token."""
    bits = _BITS(llm_args(llm, weights), (t_in, t_out, batch))
    df = pd.DataFrame(
        [(ph, c, float(b) / 8) for (ph, c), b in zip(_KEYS, bits, strict=True)],
        columns=["phase", "component", "bytes_per_request"],
    )
    return df.assign(bytes_per_output_token=df["bytes_per_request"] / t_out)
